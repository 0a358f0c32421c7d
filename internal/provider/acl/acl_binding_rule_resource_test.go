package acl

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
)

const aclBindingRuleAddr = "berth_acl_binding_rule.b"

// bindingRuleConfig is a JWT method and one rule of it.
func bindingRuleConfig(method, key, rule string) string {
	return jwtMethodConfig(method, key, "berth", "1h") + fmt.Sprintf(`
resource "berth_acl_binding_rule" "b" {
  auth_method = berth_acl_auth_method.m.name
  %s
}
`, rule)
}

// checkBindingRule reads the rule state names from Nomad.
func checkBindingRule(t *testing.T, method, selector, bindType, bindName, description string) resource.TestCheckFunc {
	return checkInNomad("ACL binding rule", idIn(aclBindingRuleAddr, "id"), acctest.Nomad(t).ACLBindingRules().Get,
		func(_ *terraform.State, id string, b *api.ACLBindingRule) error {
			if b.AuthMethod != method || b.Selector != selector || b.BindType != bindType || b.BindName != bindName || b.Description != description {
				return fmt.Errorf("ACL binding rule %s in Nomad: %+v; want %q %q %q %q %q", id, *b, method, selector, bindType, bindName, description)
			}
			return nil
		})
}

// checkNoBindingRules requires that method has no binding rule in Nomad.
func checkNoBindingRules(t *testing.T, method string) func(*terraform.State) error {
	return func(*terraform.State) error {
		rules, _, err := acctest.Nomad(t).ACLBindingRules().List(nil)
		if err != nil {
			return err
		}
		for _, r := range rules {
			if r.AuthMethod == method {
				return fmt.Errorf("binding rule %s of %q is still in Nomad", r.ID, method)
			}
		}
		return nil
	}
}

// TestAccACLBindingRule_lifecycle: a role rule of a JWT method; drift made
// through Nomad's API named in the plan and put back; changed; imported to
// an empty plan; destroyed.
func TestAccACLBindingRule_lifecycle(t *testing.T) {
	acctest.PreCheck(t)
	method := "berth-acc-rule-" + acctest.RandomHex(3)
	key := publicKeyPEM(t)
	first := `selector    = "\"ops\" in list.groups"
  bind_type   = "role"
  bind_name   = "operators"
  description = "ops get operators"`
	var id string
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy:             resource.ComposeTestCheckFunc(checkNoBindingRules(t, method), checkAuthMethodGone(t, method)),
		Steps: []resource.TestStep{
			{
				Config: bindingRuleConfig(method, key, first),
				Check: resource.ComposeTestCheckFunc(checkBindingRule(t, method, `"ops" in list.groups`, "role", "operators", "ops get operators"),
					func(s *terraform.State) (err error) { id, err = roleID(s, aclBindingRuleAddr); return err }),
			},
			{
				PreConfig: func() {
					b, _, err := acctest.Nomad(t).ACLBindingRules().Get(id, nil)
					if err != nil {
						t.Fatal(err)
					}
					b.Selector, b.BindName = `"dev" in list.groups`, "developers"
					if _, _, err := acctest.Nomad(t).ACLBindingRules().Update(b, nil); err != nil {
						t.Fatalf("changing ACL binding rule %s through the API: %v", id, err)
					}
				},
				Config: bindingRuleConfig(method, key, first),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(aclBindingRuleAddr, plancheck.ResourceActionUpdate),
					plancheck.ExpectKnownValue(aclBindingRuleAddr, tfjsonpath.New("selector"), knownvalue.StringExact(`"ops" in list.groups`)),
					plancheck.ExpectKnownValue(aclBindingRuleAddr, tfjsonpath.New("bind_name"), knownvalue.StringExact("operators")),
				}},
				Check: checkBindingRule(t, method, `"ops" in list.groups`, "role", "operators", "ops get operators"),
			},
			{
				// Every login through the method, one policy named from a claim.
				Config: bindingRuleConfig(method, key, `bind_type = "policy"
  bind_name = "team-$${value.team}"`),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(aclBindingRuleAddr, plancheck.ResourceActionReplace),
				}},
				Check: checkBindingRule(t, method, "", "policy", "team-${value.team}", ""),
			},
			{ResourceName: aclBindingRuleAddr, ImportState: true, ImportStateVerify: true},
		},
	})
}

// TestAccACLBindingRule_badInputRefusedAtPlan: a selector Nomad's parser
// refuses and bind_name rules, one error each at the attribute, nothing
// written.
func TestAccACLBindingRule_badInputRefusedAtPlan(t *testing.T) {
	acctest.PreCheck(t)
	t.Parallel()
	for _, c := range []refusal{
		{name: "bad selector", path: "selector", summary: "Invalid binding rule selector",
			detail: []string{"refused by Nomad's selector parser"},
			config: `selector  = "list.groups contains"
  bind_type = "role"
  bind_name = "x"`},
		{name: "role without name", path: "bind_name", summary: "Invalid bind_name",
			detail: []string{`a "role" binding rule needs bind_name`}, config: `bind_type = "role"`},
		{name: "management with name", path: "bind_name", summary: "Invalid bind_name",
			detail: []string{"remove bind_name"}, config: `bind_type = "management"
  bind_name = "x"`},
	} {
		t.Run(strings.ReplaceAll(c.name, " ", "_"), func(t *testing.T) {
			t.Parallel()
			method := "berth-acc-rule-bad-" + acctest.RandomHex(3)
			c.config = fmt.Sprintf("resource \"berth_acl_binding_rule\" \"b\" {\n  auth_method = %q\n  %s\n}\n", method, c.config)
			requireRefusedAtPlan(t, c, func() error { return checkNoBindingRules(t, method)(nil) })
		})
	}
}

func TestAccACLAuthMethodIdentity_importByIdentity(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	name := "berth-acc-jwt-identity-" + acctest.RandomHex(3)
	key := publicKeyPEM(t)
	acctest.CheckIdentity(t, acctest.IdentityCase{
		Addr:     aclAuthMethodAddr,
		Config:   jwtMethodConfig(name, key, "berth", "1h"),
		Identity: map[string]knownvalue.Check{"name": knownvalue.StringExact(name)},
		InNomad:  checkJWTMethod(t, name, key, "berth", time.Hour),
	})
}

func TestAccACLBindingRuleIdentity_importByIdentity(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	method := "berth-acc-rule-identity-" + acctest.RandomHex(3)
	acctest.CheckIdentity(t, acctest.IdentityCase{
		Addr:     aclBindingRuleAddr,
		Config:   bindingRuleConfig(method, publicKeyPEM(t), `bind_type = "management"`),
		Identity: map[string]knownvalue.Check{"id": knownvalue.NotNull()},
		InNomad:  checkBindingRule(t, method, "", "management", "", ""),
	})
}

// TestAccACLAuthMethodQuery_generateConfig: a JWT method found by terraform
// query imports with no change.
func TestAccACLAuthMethodQuery_generateConfig(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	name := "berth-acc-jwt-query-" + acctest.RandomHex(3)
	acctest.AdoptAgain(t, jwtMethodConfig(name, publicKeyPEM(t), "berth", "1h"), aclAuthMethodAddr, queryByNamePrefix("berth_acl_auth_method", name), name)
}

// TestAccACLAuthMethodMoved_fromNomadACLAuthMethod and its binding rule:
// both move from the other provider's resources with no change in Nomad.
func TestAccACLAuthMethodMoved_fromNomadACLAuthMethod(t *testing.T) {
	acctest.PreCheck(t)
	acctest.PeerProvider(t)
	name := "berth-acc-jwt-moved-" + acctest.RandomHex(3)
	key := publicKeyPEM(t)
	peer := fmt.Sprintf(`
resource "nomad_acl_auth_method" "m" {
  name           = %q
  type           = "JWT"
  token_locality = "local"
  max_token_ttl  = "1h"
  config {
    jwt_validation_pub_keys = [%q]
    bound_audiences         = ["berth"]
    signing_algs            = ["ES256"]
    claim_mappings          = { team = "team" }
    list_claim_mappings     = { groups = "groups" }
    expiration_leeway       = "30s"
  }
}

resource "nomad_acl_binding_rule" "b" {
  auth_method = nomad_acl_auth_method.m.name
  selector    = "\"ops\" in list.groups"
  bind_type   = "role"
  bind_name   = "operators"
}
`, name, key)
	moved := `
moved {
  from = nomad_acl_auth_method.m
  to   = berth_acl_auth_method.m
}

moved {
  from = nomad_acl_binding_rule.b
  to   = berth_acl_binding_rule.b
}
` + bindingRuleConfig(name, key, `selector  = "\"ops\" in list.groups"
  bind_type = "role"
  bind_name = "operators"`)
	unchanged := resource.ComposeTestCheckFunc(
		checkUnchanged("ACL auth method "+name, func() (uint64, error) {
			m, err := getAuthMethod(t, name)
			if err != nil {
				return 0, err
			}
			return m.ModifyIndex, nil
		}),
		checkUnchanged("the binding rule of "+name, func() (uint64, error) {
			rules, _, err := acctest.Nomad(t).ACLBindingRules().List(nil)
			if err != nil {
				return 0, err
			}
			for _, r := range rules {
				if r.AuthMethod == name {
					return r.ModifyIndex, nil
				}
			}
			return 0, fmt.Errorf("no binding rule of %q in Nomad", name)
		}))
	steps := movedSteps(aclAuthMethodAddr, peer, moved,
		resource.ComposeTestCheckFunc(checkJWTMethod(t, name, key, "berth", time.Hour),
			checkBindingRule(t, name, `"ops" in list.groups`, "role", "operators", "")), unchanged)
	steps[1].ConfigPlanChecks.PreApply = append(steps[1].ConfigPlanChecks.PreApply,
		plancheck.ExpectResourceAction(aclBindingRuleAddr, plancheck.ResourceActionNoop))
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_12_0)},
		CheckDestroy:             resource.ComposeTestCheckFunc(checkNoBindingRules(t, name), checkAuthMethodGone(t, name)),
		Steps:                    steps,
	})
}
