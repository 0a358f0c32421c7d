package namespace_test

import (
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
)

// TestAccNamespaceMoved_fromNomadNamespace: a namespace created by the
// other provider's nomad_namespace moves to berth_namespace with a `moved`
// block: the plan changes nothing, the namespace's modify index in Nomad
// stays as it was, and the next plan is empty.
func TestAccNamespaceMoved_fromNomadNamespace(t *testing.T) {
	acctest.PreCheck(t)
	acctest.PeerProvider(t)
	name := nsName("moved")
	peer := fmt.Sprintf(`
terraform {
  required_providers {
    nomad = { source = "hashicorp/nomad" }
  }
}

resource "nomad_namespace" "ns" {
  name        = %q
  description = "made by nomad_namespace"
  meta        = { team = "a" }
  capabilities {
    enabled_task_drivers   = ["docker", "raw_exec"]
    disabled_network_modes = ["host"]
  }
}
`, name)
	moved := fmt.Sprintf(`
terraform {
  required_providers {
    nomad = { source = "hashicorp/nomad" }
  }
}

moved {
  from = nomad_namespace.ns
  to   = berth_namespace.ns
}

resource "berth_namespace" "ns" {
  name         = %q
  description  = "made by nomad_namespace"
  meta         = { team = "a" }
  capabilities = {
    enabled_task_drivers   = ["docker", "raw_exec"]
    disabled_network_modes = ["host"]
  }
}
`, name)
	var index uint64
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_12_0)},
		CheckDestroy:             checkNamespaceGone(t, name),
		Steps: []resource.TestStep{
			{
				Config: peer,
				Check: func(*terraform.State) error {
					ns, err := readNamespace(t, name)
					if err != nil || ns == nil {
						return fmt.Errorf("namespace %q made by nomad_namespace: %v (found %v)", name, err, ns != nil)
					}
					index = ns.ModifyIndex
					return nil
				},
			},
			{
				Config: moved,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(nsAddr, plancheck.ResourceActionNoop),
				}},
				Check: resource.ComposeTestCheckFunc(
					checkNamespace(t, name, wantNamespace{description: "made by nomad_namespace", meta: map[string]string{"team": "a"},
						enabledDrivers: []string{"docker", "raw_exec"}, disabledModes: []string{"host"}}),
					func(*terraform.State) error {
						ns, err := readNamespace(t, name)
						if err != nil || ns == nil || ns.ModifyIndex != index {
							return fmt.Errorf("the move changed namespace %q: %+v (%v); want modify index %d", name, ns, err, index)
						}
						return nil
					}),
			},
			{Config: moved, PlanOnly: true},
		},
	})
}
