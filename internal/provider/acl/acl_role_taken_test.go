package acl

import (
	"regexp"
	"testing"

	"github.com/hashicorp/nomad/api"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
)

// TestAccACLRole_existingRefused: a role whose name another role (made
// through the API) has is refused at "name" with the way to import it,
// from Nomad's own refusal, and Nomad's role is untouched.
func TestAccACLRole_existingRefused(t *testing.T) {
	acctest.PreCheck(t)
	prefix := "berth-acc-role-taken-" + acctest.RandomHex(3)
	nomad := acctest.Nomad(t)
	theirs := prefix + "-theirs"
	if _, err := nomad.ACLPolicies().Upsert(&api.ACLPolicy{Name: theirs, Rules: readDefaultRules}, nil); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = nomad.ACLPolicies().Delete(theirs, nil) })
	role, _, err := nomad.ACLRoles().Create(&api.ACLRole{Name: prefix, Description: "theirs",
		Policies: []*api.ACLRolePolicyLink{{Name: theirs}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = nomad.ACLRoles().Delete(role.ID, nil) })
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config:      aclRoleConfig(prefix, prefix, "mine", `[berth_acl_policy.read.name]`),
			ExpectError: regexp.MustCompile(`(?s)ACL role already exists.*terraform import`),
		}},
	})
	got, _, err := nomad.ACLRoles().Get(role.ID, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got.Name != prefix || got.Description != "theirs" || len(got.Policies) != 1 || got.Policies[0].Name != theirs {
		t.Fatalf("Nomad's role changed: %+v", got)
	}
}
