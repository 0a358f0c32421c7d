package acl

import (
	"fmt"
	"slices"
	"sort"
	"testing"

	"github.com/hashicorp/nomad/api"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
)

const aclRoleAddr = "berth_acl_role.r"

// twoPolicies declares berth_acl_policy.read and .write named prefix-read
// and prefix-write.
func twoPolicies(prefix string) string {
	return fmt.Sprintf(`
resource "berth_acl_policy" "read" {
  name  = "%[1]s-read"
  rules = "namespace \"default\" { policy = \"read\" }"
}

resource "berth_acl_policy" "write" {
  name  = "%[1]s-write"
  rules = "namespace \"default\" { policy = \"write\" }"
}
`, prefix)
}

func aclRoleConfig(prefix, name, description, policies string) string {
	return twoPolicies(prefix) + fmt.Sprintf(`
resource "berth_acl_role" "r" {
  name        = %q
  description = %q
  policies    = %s
}
`, name, description, policies)
}

// roleID is the ID state holds for the role at addr.
func roleID(s *terraform.State, addr string) (string, error) { return idIn(addr, "id")(s) }

// checkACLRole reads the role state names from Nomad and requires what it
// holds.
func checkACLRole(t *testing.T, name, description string, policies ...string) resource.TestCheckFunc {
	return checkInNomad("ACL role", idIn(aclRoleAddr, "id"), acctest.Nomad(t).ACLRoles().Get,
		func(_ *terraform.State, id string, r *api.ACLRole) error {
			var got []string
			for _, p := range r.Policies {
				got = append(got, p.Name)
			}
			sort.Strings(got)
			sort.Strings(policies)
			if r.Name != name || r.Description != description || !slices.Equal(got, policies) {
				return fmt.Errorf("ACL role %s in Nomad: %q %q %v; want %q %q %v", id, r.Name, r.Description, got, name, description, policies)
			}
			return nil
		})
}

// checkACLRoleGone requires that Nomad has no role called name.
func checkACLRoleGone(t *testing.T, name string) func(*terraform.State) error {
	return checkGoneFromNomad("ACL role", name, acctest.Nomad(t).ACLRoles().GetByName)
}

// TestAccACLRole_lifecycle: a role over two berth policies; drift made
// through Nomad's API named in the plan and put back; renamed in place;
// imported by ID and by name to an empty plan; destroyed.
func TestAccACLRole_lifecycle(t *testing.T) {
	acctest.PreCheck(t)
	prefix := "berth-acc-role-" + acctest.RandomHex(3)
	name, renamed := prefix, prefix+"-renamed"
	both := `[berth_acl_policy.read.name, berth_acl_policy.write.name]`
	var id string
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy: resource.ComposeTestCheckFunc(checkACLRoleGone(t, name), checkACLRoleGone(t, renamed),
			checkACLPolicyGone(t, prefix+"-read"), checkACLPolicyGone(t, prefix+"-write")),
		Steps: []resource.TestStep{
			{
				Config: aclRoleConfig(prefix, name, "operators", both),
				Check: resource.ComposeTestCheckFunc(checkACLRole(t, name, "operators", prefix+"-read", prefix+"-write"),
					func(s *terraform.State) (err error) { id, err = roleID(s, aclRoleAddr); return err }),
			},
			{
				PreConfig: func() {
					r := &api.ACLRole{ID: id, Name: name, Description: "changed by hand",
						Policies: []*api.ACLRolePolicyLink{{Name: prefix + "-read"}}}
					if _, _, err := acctest.Nomad(t).ACLRoles().Update(r, nil); err != nil {
						t.Fatalf("changing ACL role %s through the API: %v", id, err)
					}
				},
				Config: aclRoleConfig(prefix, name, "operators", both),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(aclRoleAddr, plancheck.ResourceActionUpdate),
					plancheck.ExpectKnownValue(aclRoleAddr, tfjsonpath.New("description"), knownvalue.StringExact("operators")),
					plancheck.ExpectKnownValue(aclRoleAddr, tfjsonpath.New("policies"), knownvalue.SetSizeExact(2)),
				}},
				Check: checkACLRole(t, name, "operators", prefix+"-read", prefix+"-write"),
			},
			{
				Config: aclRoleConfig(prefix, renamed, "readers", `[berth_acl_policy.read.name]`),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(aclRoleAddr, plancheck.ResourceActionUpdate),
				}},
				Check: resource.ComposeTestCheckFunc(checkACLRole(t, renamed, "readers", prefix+"-read"),
					func(s *terraform.State) error {
						if now, _ := roleID(s, aclRoleAddr); now != id {
							return fmt.Errorf("the rename replaced the role: ID %s -> %s", id, now)
						}
						return nil
					}),
			},
			{ResourceName: aclRoleAddr, ImportState: true, ImportStateVerify: true},
			{ResourceName: aclRoleAddr, ImportState: true, ImportStateId: renamed, ImportStateVerify: true},
		},
	})
}

func TestAccACLRoleIdentity_importByIdentity(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	prefix := "berth-acc-role-identity-" + acctest.RandomHex(3)
	acctest.CheckIdentity(t, acctest.IdentityCase{
		Addr:     aclRoleAddr,
		Config:   aclRoleConfig(prefix, prefix, "imported by identity", `[berth_acl_policy.read.name]`),
		Identity: map[string]knownvalue.Check{"id": knownvalue.NotNull()},
		InNomad:  checkACLRole(t, prefix, "imported by identity", prefix+"-read"),
	})
}

func TestAccACLRoleQuery_generateConfig(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	name := "berth-acc-role-query-" + acctest.RandomHex(3)
	// The role's policy is Nomad's, made outside the configuration, so
	// only the role is forgotten and found again.
	if _, err := acctest.Nomad(t).ACLPolicies().Upsert(&api.ACLPolicy{Name: name, Rules: readDefaultRules}, nil); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = acctest.Nomad(t).ACLPolicies().Delete(name, nil) })
	acctest.AdoptAgain(t, fmt.Sprintf(`
resource "berth_acl_role" "r" {
  name        = %[1]q
  description = "found by query"
  policies    = [%[1]q]
}
`, name), aclRoleAddr, queryByNamePrefix("berth_acl_role", name), name)
}

// TestAccACLRoleMoved_fromNomadACLRole: a role made by nomad_acl_role
// moves to berth_acl_role with no change in Nomad.
func TestAccACLRoleMoved_fromNomadACLRole(t *testing.T) {
	acctest.PreCheck(t)
	acctest.PeerProvider(t)
	name := "berth-acc-role-moved-" + acctest.RandomHex(3)
	if _, err := acctest.Nomad(t).ACLPolicies().Upsert(&api.ACLPolicy{Name: name, Rules: readDefaultRules}, nil); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = acctest.Nomad(t).ACLPolicies().Delete(name, nil) })
	peer := fmt.Sprintf(`
resource "nomad_acl_role" "r" {
  name        = %[1]q
  description = "moved"
  policy {
    name = %[1]q
  }
}
`, name)
	moved := fmt.Sprintf(`
moved {
  from = nomad_acl_role.r
  to   = berth_acl_role.r
}

resource "berth_acl_role" "r" {
  name        = %[1]q
  description = "moved"
  policies    = [%[1]q]
}
`, name)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_12_0)},
		CheckDestroy:             checkACLRoleGone(t, name),
		Steps: movedSteps(aclRoleAddr, peer, moved, checkACLRole(t, name, "moved", name),
			checkUnchanged("ACL role "+name, func() (uint64, error) {
				r, _, err := acctest.Nomad(t).ACLRoles().GetByName(name, nil)
				if err != nil {
					return 0, err
				}
				return r.ModifyIndex, nil
			})),
	})
}
