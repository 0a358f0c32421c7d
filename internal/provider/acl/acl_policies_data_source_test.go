package acl

import (
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
)

// TestAccACLPoliciesDataSource_andRoles lists the policies and roles a
// configuration made, by name prefix: names, descriptions and a role's
// policies; nothing else matches the prefix.
func TestAccACLPoliciesDataSource_andRoles(t *testing.T) {
	acctest.PreCheck(t)
	prefix := "berth-acc-ds-" + acctest.RandomHex(3)
	config := aclRoleConfig(prefix, prefix+"-role", "reads and writes",
		`[berth_acl_policy.read.name, berth_acl_policy.write.name]`) + fmt.Sprintf(`
data "berth_acl_policies" "p" {
  name_prefix = %[1]q
  depends_on  = [berth_acl_role.r]
}

data "berth_acl_roles" "r" {
  name_prefix = %[1]q
  depends_on  = [berth_acl_role.r]
}
`, prefix)
	policy := func(name string) knownvalue.Check {
		return knownvalue.ObjectExact(map[string]knownvalue.Check{"name": knownvalue.StringExact(name), "description": knownvalue.StringExact("")})
	}
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: config,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("data.berth_acl_policies.p", tfjsonpath.New("policies"),
					knownvalue.ListExact([]knownvalue.Check{policy(prefix + "-read"), policy(prefix + "-write")})),
				statecheck.ExpectKnownValue("data.berth_acl_roles.r", tfjsonpath.New("roles"), knownvalue.ListExact([]knownvalue.Check{
					knownvalue.ObjectExact(map[string]knownvalue.Check{
						"id": knownvalue.NotNull(), "name": knownvalue.StringExact(prefix + "-role"),
						"description": knownvalue.StringExact("reads and writes"),
						"policies": knownvalue.SetExact([]knownvalue.Check{
							knownvalue.StringExact(prefix + "-read"), knownvalue.StringExact(prefix + "-write")}),
					}),
				})),
			},
		}},
	})
}
