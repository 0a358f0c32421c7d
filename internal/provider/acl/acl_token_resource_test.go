package acl

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/nomad/api"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
)

const tokenAddr = "berth_acl_token.t"

func tokenConfig(name, policy, varPath string) string {
	path := "null"
	if varPath != "" {
		path = fmt.Sprintf("%q", varPath)
	}
	return fmt.Sprintf(`
resource "berth_acl_token" "t" {
  name                 = %q
  policies             = [%q]
  secret_variable_path = %s
}
`, name, policy, path)
}

// TestAccACLToken_lifecycle: a client token with a read-jobs policy, its
// secret written to a Variable. The secret (read from the Variable) can
// read jobs and is refused registering one. Drift made through Nomad's API
// (name, policies, the Variable deleted) is named in the plan and put
// back; a new policy updates in place; destroy deletes token and Variable.
func TestAccACLToken_lifecycle(t *testing.T) {
	acctest.PreCheck(t)
	suffix := acctest.RandomHex(3)
	name, p1, p2 := "berth-acc-token-"+suffix, "berth-acc-read-"+suffix, "berth-acc-read2-"+suffix
	varPath := "berth-acc/token-" + suffix
	createReadJobsPolicy(t, p1, "default")
	createReadJobsPolicy(t, p2, "default")
	role := createRole(t, "berth-acc-role-"+suffix, p2)
	var accessor string
	remember := func(s *terraform.State) error {
		var err error
		accessor, err = tokenFromState(s, tokenAddr)
		return err
	}
	enforced := func(*terraform.State) error {
		secret, err := secretInVariable(t, tokenAddr, varPath)
		if err != nil {
			return err
		}
		return checkEnforced(t, secret, "default")
	}
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy:             checkTokenGone(t, &accessor, varPath),
		Steps: []resource.TestStep{
			{
				Config: tokenConfig(name, p1, varPath),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(tokenAddr, plancheck.ResourceActionCreate),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(tokenAddr, tfjsonpath.New("type"), knownvalue.StringExact("client")),
					statecheck.ExpectKnownValue(tokenAddr, tfjsonpath.New("expiration_time"), knownvalue.Null()),
					statecheck.ExpectKnownValue(tokenAddr, tfjsonpath.New("secret_variable_namespace"), knownvalue.StringExact("default")),
				},
				Check: resource.ComposeTestCheckFunc(remember, checkToken(t, tokenAddr, name, p1),
					checkVariableHoldsSecret(t, tokenAddr, varPath), enforced),
			},
			{
				// Changed outside Terraform: renamed, another policy, and
				// its secret Variable deleted. The plan names all three.
				PreConfig: func() {
					c := acctest.Nomad(t)
					tok := &api.ACLToken{AccessorID: accessor, Name: "changed by hand", Type: "client", Policies: []string{p2}}
					if _, _, err := c.ACLTokens().Update(tok, nil); err != nil {
						t.Fatalf("changing token %s through the API: %v", accessor, err)
					}
					if _, err := c.Variables().Delete(varPath, nil); err != nil {
						t.Fatalf("deleting the Variable %s: %v", varPath, err)
					}
				},
				Config: tokenConfig(name, p1, varPath),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(tokenAddr, plancheck.ResourceActionUpdate),
					plancheck.ExpectKnownValue(tokenAddr, tfjsonpath.New("name"), knownvalue.StringExact(name)),
					plancheck.ExpectKnownValue(tokenAddr, tfjsonpath.New("secret_variable_path"), knownvalue.StringExact(varPath)),
					plancheck.ExpectKnownValue(tokenAddr, tfjsonpath.New("policies"), knownvalue.SetExact([]knownvalue.Check{knownvalue.StringExact(p1)})),
				}},
				Check: resource.ComposeTestCheckFunc(checkToken(t, tokenAddr, name, p1), checkVariableHoldsSecret(t, tokenAddr, varPath), enforced),
			},
			{
				Config: tokenConfig(name, p2, varPath),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(tokenAddr, plancheck.ResourceActionUpdate),
				}},
				Check: resource.ComposeTestCheckFunc(checkToken(t, tokenAddr, name, p2), checkVariableHoldsSecret(t, tokenAddr, varPath)),
			},
			{
				// A role added in place.
				Config: withRole(tokenConfig(name, p2, varPath), role.ID),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(tokenAddr, plancheck.ResourceActionUpdate),
				}},
				Check: checkTokenRoles(t, &accessor, "client", role.ID),
			},
			{
				// Made a management token through the API, its policies and
				// role dropped: the plan names type, policies and roles.
				PreConfig: func() {
					tok := &api.ACLToken{AccessorID: accessor, Name: name, Type: "management"}
					if _, _, err := acctest.Nomad(t).ACLTokens().Update(tok, nil); err != nil {
						t.Fatalf("changing token %s through the API: %v", accessor, err)
					}
				},
				Config: withRole(tokenConfig(name, p2, varPath), role.ID),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(tokenAddr, plancheck.ResourceActionUpdate),
					plancheck.ExpectKnownValue(tokenAddr, tfjsonpath.New("type"), knownvalue.StringExact("client")),
					plancheck.ExpectKnownValue(tokenAddr, tfjsonpath.New("roles"), knownvalue.SetExact([]knownvalue.Check{knownvalue.StringExact(role.ID)})),
				}},
				Check: resource.ComposeTestCheckFunc(checkTokenRoles(t, &accessor, "client", role.ID), checkToken(t, tokenAddr, name, p2)),
			},
		},
	})
}

// TestAccACLToken_import: a token without a secret Variable (one whose
// secret was handed out already) imports by accessor ID to an empty plan.
func TestAccACLToken_import(t *testing.T) {
	acctest.PreCheck(t)
	suffix := acctest.RandomHex(3)
	name, policy := "berth-acc-token-import-"+suffix, "berth-acc-read-import-"+suffix
	createReadJobsPolicy(t, policy, "default")
	var accessor string
	config := fmt.Sprintf(`
resource "berth_acl_token" "t" {
  name           = %q
  policies       = [%q]
  expiration_ttl = "2h"
}
`, name, policy)
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy:             checkTokenGone(t, &accessor, ""),
		Steps: []resource.TestStep{
			{
				Config: config,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(tokenAddr, tfjsonpath.New("expiration_time"), knownvalue.NotNull()),
				},
				Check: func(s *terraform.State) error {
					var err error
					accessor, err = tokenFromState(s, tokenAddr)
					return err
				},
			},
			{
				Config:            config,
				ResourceName:      tokenAddr,
				ImportState:       true,
				ImportStateKind:   resource.ImportBlockWithID,
				ImportStateIdFunc: func(s *terraform.State) (string, error) { return tokenFromState(s, tokenAddr) },
				ImportPlanChecks: resource.ImportPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(tokenAddr, plancheck.ResourceActionNoop),
				}},
			},
		},
	})
}

// TestAccACLToken_badInput: Nomad's rules on types and grants, at plan,
// one diagnostic at the attribute.
func TestAccACLToken_badInput(t *testing.T) {
	t.Parallel()
	acctest.ExpectPlanRejects(t, `
resource "berth_acl_token" "t" {
  name = "no grants"
}
`, regexp.QuoteMeta("Client token without policies or roles"))
	acctest.ExpectPlanRejects(t, `
resource "berth_acl_token" "t" {
  type     = "management"
  policies = ["x"]
}
`, regexp.QuoteMeta("Management token with policies or roles"))
}

// withRole adds roles = [id] to a token configuration.
func withRole(config, id string) string {
	return strings.Replace(config, "  policies ", fmt.Sprintf("  roles                = [%q]\n  policies ", id), 1)
}

// createRole writes an ACL role with policy through Nomad's API, deleted
// when the test ends.
func createRole(t *testing.T, name, policy string) *api.ACLRole {
	t.Helper()
	c := acctest.Nomad(t)
	r, _, err := c.ACLRoles().Create(&api.ACLRole{Name: name, Policies: []*api.ACLRolePolicyLink{{Name: policy}}}, nil)
	if err != nil {
		t.Fatalf("creating ACL role %s: %v", name, err)
	}
	t.Cleanup(func() { _, _ = c.ACLRoles().Delete(r.ID, nil) })
	return r
}

// checkTokenRoles requires the token's type and role IDs in Nomad.
func checkTokenRoles(t *testing.T, accessor *string, typ string, roles ...string) func(*terraform.State) error {
	return func(*terraform.State) error {
		tok, _, err := acctest.Nomad(t).ACLTokens().Info(*accessor, nil)
		if err != nil {
			return err
		}
		var got []string
		for _, r := range tok.Roles {
			got = append(got, r.ID)
		}
		if tok.Type != typ || strings.Join(got, ",") != strings.Join(roles, ",") {
			return fmt.Errorf("token %s in Nomad: type %s roles %v; want %s %v", *accessor, tok.Type, got, typ, roles)
		}
		return nil
	}
}

// TestAccACLToken_variableTaken: berth never overwrites a Variable it did
// not write for the token. The create fails with one diagnostic at
// secret_variable_path, and no token is left behind.
func TestAccACLToken_variableTaken(t *testing.T) {
	acctest.PreCheck(t)
	suffix := acctest.RandomHex(3)
	name, policy := "berth-acc-token-taken-"+suffix, "berth-acc-read-taken-"+suffix
	varPath := "berth-acc/taken-" + suffix
	createReadJobsPolicy(t, policy, "default")
	c := acctest.Nomad(t)
	if _, _, err := c.Variables().Create(&api.Variable{Path: varPath, Items: api.VariableItems{"owner": "someone else"}}, nil); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = c.Variables().Delete(varPath, nil) })
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config:      tokenConfig(name, policy, varPath),
			ExpectError: regexp.MustCompile(`Could not write the token's secret Variable`),
		}},
		CheckDestroy: func(*terraform.State) error {
			requireNoTokenNamed(t, name)
			v, _, err := c.Variables().Read(varPath, nil)
			if err != nil || v.Items["owner"] != "someone else" || len(v.Items) != 1 {
				return fmt.Errorf("the Variable someone else wrote changed: %v %v", v, err)
			}
			return nil
		},
	})
}
