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

const aclPolicyAddr = "berth_acl_policy.p"

const readDefaultRules = `namespace "default" {
  policy = "read"
}
`

const writeDefaultRules = `namespace "default" {
  policy = "write"
}
node {
  policy = "read"
}
`

// aclPolicyConfig is a berth_acl_policy; jobACL is the job_acl attribute's
// value, or "" for none.
func aclPolicyConfig(name, description, rules, jobACL string) string {
	j := ""
	if jobACL != "" {
		j = "  job_acl     = " + jobACL + "\n"
	}
	return fmt.Sprintf(`
resource "berth_acl_policy" "p" {
  name        = %q
  description = %q
  rules       = <<-EOT
%s  EOT
%s}
`, name, description, indent(rules), j)
}

// indent puts rules inside a heredoc whose "-" strips two spaces.
func indent(rules string) string {
	var b strings.Builder
	for _, l := range strings.SplitAfter(rules, "\n") {
		if l != "" {
			b.WriteString("  " + l)
		}
	}
	return b.String()
}

// checkACLPolicy reads the policy from Nomad and requires what it holds.
func checkACLPolicy(t *testing.T, name, description, rules string, jobACL *api.JobACL) resource.TestCheckFunc {
	return func(*terraform.State) error {
		p, _, err := acctest.Nomad(t).ACLPolicies().Info(name, nil)
		if err != nil {
			return fmt.Errorf("reading ACL policy %q from Nomad: %v", name, err)
		}
		if p.Description != description || p.Rules != rules {
			return fmt.Errorf("ACL policy %q in Nomad: description %q rules %q; want %q %q", name, p.Description, p.Rules, description, rules)
		}
		switch {
		case jobACL == nil && p.JobACL != nil && *p.JobACL != (api.JobACL{}):
			return fmt.Errorf("ACL policy %q in Nomad is attached to %+v; want no job_acl", name, *p.JobACL)
		case jobACL != nil && (p.JobACL == nil || *p.JobACL != *jobACL):
			return fmt.Errorf("ACL policy %q in Nomad has job_acl %+v; want %+v", name, p.JobACL, *jobACL)
		}
		return nil
	}
}

// checkACLPolicyGone requires that Nomad has no policy called name.
func checkACLPolicyGone(t *testing.T, name string) func(*terraform.State) error {
	return checkGoneFromNomad("ACL policy", name, acctest.Nomad(t).ACLPolicies().Info)
}

// TestAccACLPolicy_lifecycle: create with a namespace-wide job_acl (Nomad
// 1.10 attaches it to every job of the namespace), drift made through
// Nomad's API named in the plan and put back, narrowed to one task,
// imported to an empty plan, destroyed.
func TestAccACLPolicy_lifecycle(t *testing.T) {
	acctest.PreCheck(t)
	name := "berth-acc-policy-" + acctest.RandomHex(3)
	nsWide := `{ namespace = "default" }`
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy:             checkACLPolicyGone(t, name),
		Steps: []resource.TestStep{
			{
				Config: aclPolicyConfig(name, "readers", readDefaultRules, nsWide),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(aclPolicyAddr, plancheck.ResourceActionCreate),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(aclPolicyAddr, tfjsonpath.New("id"), knownvalue.StringExact(name)),
					statecheck.ExpectKnownValue(aclPolicyAddr, tfjsonpath.New("job_acl").AtMapKey("job_id"), knownvalue.Null()),
				},
				Check: checkACLPolicy(t, name, "readers", readDefaultRules, &api.JobACL{Namespace: "default"}),
			},
			{
				// Changed through Nomad's API: the plan names rules and
				// job_acl, and apply puts them back.
				PreConfig: func() {
					p := &api.ACLPolicy{Name: name, Description: "readers", Rules: writeDefaultRules,
						JobACL: &api.JobACL{Namespace: "default", JobID: "other"}}
					if _, err := acctest.Nomad(t).ACLPolicies().Upsert(p, nil); err != nil {
						t.Fatalf("changing ACL policy %q through the API: %v", name, err)
					}
				},
				Config: aclPolicyConfig(name, "readers", readDefaultRules, nsWide),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(aclPolicyAddr, plancheck.ResourceActionUpdate),
					plancheck.ExpectKnownValue(aclPolicyAddr, tfjsonpath.New("rules"), knownvalue.StringExact(readDefaultRules)),
					plancheck.ExpectKnownValue(aclPolicyAddr, tfjsonpath.New("job_acl").AtMapKey("job_id"), knownvalue.Null()),
				}},
				Check: checkACLPolicy(t, name, "readers", readDefaultRules, &api.JobACL{Namespace: "default"}),
			},
			{
				Config: aclPolicyConfig(name, "writers", writeDefaultRules,
					`{ namespace = "default", job_id = "web", group = "app", task = "server" }`),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(aclPolicyAddr, plancheck.ResourceActionUpdate),
				}},
				Check: checkACLPolicy(t, name, "writers", writeDefaultRules,
					&api.JobACL{Namespace: "default", JobID: "web", Group: "app", Task: "server"}),
			},
			{
				// No job_acl: detached from every workload.
				Config: aclPolicyConfig(name, "writers", writeDefaultRules, ""),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(aclPolicyAddr, plancheck.ResourceActionUpdate),
				}},
				Check: checkACLPolicy(t, name, "writers", writeDefaultRules, nil),
			},
			{
				ResourceName:      aclPolicyAddr,
				ImportState:       true,
				ImportStateId:     name,
				ImportStateVerify: true,
			},
			{
				// Deleted outside Terraform: planned again as a create.
				PreConfig: func() {
					if _, err := acctest.Nomad(t).ACLPolicies().Delete(name, nil); err != nil {
						t.Fatalf("deleting ACL policy %q through the API: %v", name, err)
					}
				},
				Config: aclPolicyConfig(name, "writers", writeDefaultRules, ""),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(aclPolicyAddr, plancheck.ResourceActionCreate),
				}},
				Check: checkACLPolicy(t, name, "writers", writeDefaultRules, nil),
			},
		},
	})
}

// TestAccACLPolicy_existingRefused: a policy Nomad already has is not taken
// over by a create (Nomad's write would overwrite it); the error says how
// to import it, and Nomad's policy is untouched.
func TestAccACLPolicy_existingRefused(t *testing.T) {
	acctest.PreCheck(t)
	name := "berth-acc-policy-taken-" + acctest.RandomHex(3)
	if _, err := acctest.Nomad(t).ACLPolicies().Upsert(&api.ACLPolicy{Name: name, Rules: writeDefaultRules}, nil); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = acctest.Nomad(t).ACLPolicies().Delete(name, nil) })
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config:      aclPolicyConfig(name, "mine", readDefaultRules, ""),
			ExpectError: regexp.MustCompile(`(?s)ACL policy already exists.*terraform import`),
		}},
	})
	if err := checkACLPolicy(t, name, "", writeDefaultRules, nil)(nil); err != nil {
		t.Fatal(err)
	}
}
