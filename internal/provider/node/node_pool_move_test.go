package node

import (
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
)

// TestAccNodePoolMoved_fromNomadNodePool: a pool made by the other
// provider's nomad_node_pool moves to berth_node_pool with a `moved` block:
// the plan changes nothing, the pool's modify index in Nomad stays as it
// was, and the next plan is empty.
func TestAccNodePoolMoved_fromNomadNodePool(t *testing.T) {
	acctest.PreCheck(t)
	acctest.PeerProvider(t)
	name := "berth-acc-moved-pool-" + acctest.RandomHex(3)
	const header = `
terraform {
  required_providers {
    nomad = { source = "hashicorp/nomad" }
  }
}
`
	peer := header + fmt.Sprintf(`
resource "nomad_node_pool" "p" {
  name        = %q
  description = "made by nomad_node_pool"
  meta        = { team = "a" }
}
`, name)
	moved := header + fmt.Sprintf(`
moved {
  from = nomad_node_pool.p
  to   = berth_node_pool.p
}

resource "berth_node_pool" "p" {
  name        = %q
  description = "made by nomad_node_pool"
  meta        = { team = "a" }
}
`, name)
	nomad := acctest.Nomad(t)
	var index uint64
	readIndex := func() (uint64, error) {
		p, _, err := nomad.NodePools().Info(name, nil)
		if err != nil {
			return 0, err
		}
		if p.Description != "made by nomad_node_pool" || p.Meta["team"] != "a" {
			return 0, fmt.Errorf("pool %s in Nomad: %+v", name, p)
		}
		return p.ModifyIndex, nil
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_12_0)},
		CheckDestroy: func(*terraform.State) error {
			if p, _, err := nomad.NodePools().Info(name, nil); err == nil && p != nil {
				return fmt.Errorf("node pool %s still in Nomad", name)
			}
			return nil
		},
		Steps: []resource.TestStep{
			{
				Config: peer,
				Check: func(*terraform.State) (err error) {
					index, err = readIndex()
					return err
				},
			},
			{
				Config: moved,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("berth_node_pool.p", plancheck.ResourceActionNoop),
				}},
				Check: func(*terraform.State) error {
					got, err := readIndex()
					if err != nil || got != index {
						return fmt.Errorf("the move changed pool %s: modify index %d (%v), want %d", name, got, err, index)
					}
					return nil
				},
			},
			{Config: moved, PlanOnly: true},
		},
	})
}
