package acl

import (
	"fmt"
	"testing"

	"github.com/hashicorp/nomad/api"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
)

// checkPolicyDataMatchesNomad requires the data source at addr to hold
// what Nomad's API answers for the policy name.
func checkPolicyDataMatchesNomad(t *testing.T, addr, name string) resource.TestCheckFunc {
	return checkDataInNomad(addr, "ACL policy", known(name), acctest.Nomad(t).ACLPolicies().Info,
		func(attrs map[string]string, p *api.ACLPolicy) error {
			want := map[string]string{"id": p.Name, "name": p.Name, "description": p.Description, "rules": p.Rules,
				"job_acl.namespace": "", "job_acl.job_id": "", "job_acl.group": "", "job_acl.task": ""}
			if j := p.JobACL; j != nil && *j != (api.JobACL{}) {
				want["job_acl.namespace"], want["job_acl.job_id"], want["job_acl.group"], want["job_acl.task"] = j.Namespace, j.JobID, j.Group, j.Task
			}
			return compareAttrs(addr, attrs, want)
		})
}

// TestAccACLPolicyDataSource_matchesNomad reads a policy berth made (with
// a description and a job_acl) and one made through the API (with
// neither) and compares each with what Nomad's API answers.
func TestAccACLPolicyDataSource_matchesNomad(t *testing.T) {
	acctest.PreCheck(t)
	name := "berth-acc-policy-ds-" + acctest.RandomHex(3)
	other := name + "-api"
	c := acctest.Nomad(t)
	if _, err := c.ACLPolicies().Upsert(&api.ACLPolicy{Name: other, Rules: readDefaultRules}, nil); err != nil {
		t.Fatalf("creating ACL policy %s: %v", other, err)
	}
	t.Cleanup(func() { _, _ = c.ACLPolicies().Delete(other, nil) })
	config := aclPolicyConfig(name, "read through the data source", writeDefaultRules,
		`{ namespace = "default", job_id = "web", group = "api" }`) + fmt.Sprintf(`
data "berth_acl_policy" "managed" {
  name = berth_acl_policy.p.name
}

data "berth_acl_policy" "api" {
  name = %q
}
`, other)
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: config,
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttr("data.berth_acl_policy.managed", "description", "read through the data source"),
				resource.TestCheckResourceAttr("data.berth_acl_policy.managed", "job_acl.group", "api"),
				resource.TestCheckNoResourceAttr("data.berth_acl_policy.api", "description"),
				resource.TestCheckNoResourceAttr("data.berth_acl_policy.api", "job_acl.namespace"),
				checkPolicyDataMatchesNomad(t, "data.berth_acl_policy.managed", name),
				checkPolicyDataMatchesNomad(t, "data.berth_acl_policy.api", other),
			),
		}},
	})
}

// TestAccACLPolicyDataSource_missing: a policy Nomad does not have is one
// error naming it.
func TestAccACLPolicyDataSource_missing(t *testing.T) {
	acctest.PreCheck(t)
	name := "berth-acc-policy-none-" + acctest.RandomHex(3)
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config:      fmt.Sprintf("data \"berth_acl_policy\" \"none\" {\n  name = %q\n}\n", name),
			ExpectError: errorSaying("ACL policy not found", fmt.Sprintf("Nomad has no ACL policy named %q.", name)),
		}},
	})
}
