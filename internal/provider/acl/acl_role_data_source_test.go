package acl

import (
	"fmt"
	"slices"
	"testing"

	"github.com/hashicorp/nomad/api"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
)

// checkRoleDataMatchesNomad requires the data source at addr to hold what
// Nomad's API answers for the role berth_acl_role.r.
func checkRoleDataMatchesNomad(t *testing.T, addr string) resource.TestCheckFunc {
	return checkDataInNomad(addr, "ACL role", idIn(aclRoleAddr, "id"), acctest.Nomad(t).ACLRoles().Get,
		func(attrs map[string]string, r *api.ACLRole) error {
			var policies []string
			for _, p := range r.Policies {
				policies = append(policies, p.Name)
			}
			if got := setValues(attrs, "policies"); !slices.Equal(got, sorted(policies)) {
				return fmt.Errorf("%s: policies %v in state, %v in Nomad", addr, got, sorted(policies))
			}
			return compareAttrs(addr, attrs, map[string]string{"id": r.ID, "name": r.Name, "description": r.Description})
		})
}

// TestAccACLRoleDataSource_byIDAndByName reads a role berth made, once by
// its ID and once by its name, and compares each with what Nomad's API
// answers.
func TestAccACLRoleDataSource_byIDAndByName(t *testing.T) {
	acctest.PreCheck(t)
	prefix := "berth-acc-role-ds-" + acctest.RandomHex(3)
	config := aclRoleConfig(prefix, prefix+"-role", "read through the data source",
		`[berth_acl_policy.read.name, berth_acl_policy.write.name]`) + `
data "berth_acl_role" "by_id" {
  id = berth_acl_role.r.id
}

data "berth_acl_role" "by_name" {
  name = berth_acl_role.r.name
}
`
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: config,
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttr("data.berth_acl_role.by_name", "description", "read through the data source"),
				resource.TestCheckResourceAttr("data.berth_acl_role.by_id", "policies.#", "2"),
				resource.TestCheckResourceAttrPair("data.berth_acl_role.by_name", "id", aclRoleAddr, "id"),
				checkRoleDataMatchesNomad(t, "data.berth_acl_role.by_id"),
				checkRoleDataMatchesNomad(t, "data.berth_acl_role.by_name"),
			),
		}},
	})
}

// TestAccACLRoleDataSource_missing: a role Nomad does not have, by name or
// by ID, and an ID that is not one, are each one error naming it; the
// role is looked up by exactly one of id and name.
func TestAccACLRoleDataSource_missing(t *testing.T) {
	acctest.PreCheck(t)
	name := "berth-acc-role-none-" + acctest.RandomHex(3)
	const id = "0b6a1c1e-5d47-4b8e-9a63-0d2f1c8e7a55"
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config:      fmt.Sprintf("data \"berth_acl_role\" \"none\" {\n  name = %q\n}\n", name),
				ExpectError: errorSaying("ACL role not found", fmt.Sprintf("Nomad has no ACL role named %q.", name)),
			},
			{
				Config:      fmt.Sprintf("data \"berth_acl_role\" \"none\" {\n  id = %q\n}\n", id),
				ExpectError: errorSaying("ACL role not found", fmt.Sprintf("Nomad has no ACL role with the ID %q.", id)),
			},
			{
				Config: fmt.Sprintf("data \"berth_acl_role\" \"none\" {\n  id = %q\n}\n", name),
				ExpectError: errorSaying("ACL role not found",
					fmt.Sprintf("%q is not an ACL role ID (a UUID); to look a role up by its name, set name instead.", name)),
			},
			{
				Config:      "data \"berth_acl_role\" \"none\" {}\n",
				ExpectError: errorSaying("Missing Attribute Configuration", "Exactly one of these attributes must be configured: [id,name]"),
			},
		},
	})
}
