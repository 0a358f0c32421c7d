package acl

import (
	"fmt"
	"testing"

	"github.com/hashicorp/nomad/api"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
)

// peerRequired declares the other Nomad provider (hashicorp/nomad), whose
// dev_overrides acctest.PeerProvider sets.
const peerRequired = `
terraform {
  required_providers {
    nomad = { source = "hashicorp/nomad" }
  }
}
`

// checkUnchanged records an object's modify index in Nomad at the first
// call and requires the same index at every later one: a move must not
// write to Nomad.
func checkUnchanged(what string, modifyIndex func() (uint64, error)) resource.TestCheckFunc {
	var first uint64
	return func(*terraform.State) error {
		idx, err := modifyIndex()
		if err != nil {
			return fmt.Errorf("reading %s: %v", what, err)
		}
		if first == 0 {
			first = idx
			return nil
		}
		if idx != first {
			return fmt.Errorf("%s was written: modify index %d -> %d", what, first, idx)
		}
		return nil
	}
}

// movedSteps creates with the peer's configuration, moves to berth's with
// a `moved` block (the plan must be a no-op and the object's modify index
// in Nomad unchanged), then plans berth's configuration again (empty).
func movedSteps(addr, peer, moved string, check resource.TestCheckFunc, unchanged resource.TestCheckFunc) []resource.TestStep {
	return []resource.TestStep{
		{Config: peerRequired + peer, Check: unchanged},
		{
			Config: peerRequired + moved,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(addr, plancheck.ResourceActionNoop),
			}},
			Check: resource.ComposeTestCheckFunc(check, unchanged),
		},
		{Config: peerRequired + moved, PlanOnly: true},
	}
}

// TestAccACLPolicyMoved_fromNomadACLPolicy: a policy made by the other
// provider's nomad_acl_policy (with a namespace-wide job_acl) moves to
// berth_acl_policy with no change in Nomad and an empty plan after.
func TestAccACLPolicyMoved_fromNomadACLPolicy(t *testing.T) {
	acctest.PreCheck(t)
	acctest.PeerProvider(t)
	name := "berth-acc-policy-moved-" + acctest.RandomHex(3)
	peer := fmt.Sprintf(`
resource "nomad_acl_policy" "p" {
  name      = %q
  rules_hcl = <<-EOT
%s  EOT
  job_acl {
    namespace = "default"
  }
}
`, name, indent(readDefaultRules))
	moved := fmt.Sprintf(`
moved {
  from = nomad_acl_policy.p
  to   = berth_acl_policy.p
}

resource "berth_acl_policy" "p" {
  name    = %q
  rules   = <<-EOT
%s  EOT
  job_acl = { namespace = "default" }
}
`, name, indent(readDefaultRules))
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_12_0)},
		CheckDestroy:             checkACLPolicyGone(t, name),
		Steps: movedSteps(aclPolicyAddr, peer, moved,
			checkACLPolicy(t, name, "", readDefaultRules, &api.JobACL{Namespace: "default"}),
			checkUnchanged("ACL policy "+name, func() (uint64, error) {
				p, _, err := acctest.Nomad(t).ACLPolicies().Info(name, nil)
				if err != nil {
					return 0, err
				}
				return p.ModifyIndex, nil
			})),
	})
}
