package variable_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/nomad/api"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
)

// TestAccVariableMoved_fromNomadVariable: a Variable written by the other
// provider's nomad_variable moves to berth_variable with a `moved` block:
// the plan changes nothing, the Variable's modify index in Nomad stays as
// it was, and the next plan is empty.
func TestAccVariableMoved_fromNomadVariable(t *testing.T) {
	checkMove(t, `items = { a = "1", b = "2" }`, `items = { a = "1", b = "2" }`)
}

// TestAccVariableMoved_writeOnlyItems: nomad_variable's write-only items
// (a JSON string) move to berth's items_wo with no write, and their values
// stay out of state: berth takes every key that is not a plain item as
// write-only.
func TestAccVariableMoved_writeOnlyItems(t *testing.T) {
	checkMove(t, `
  items_wo         = jsonencode({ password = "moved-secret", user = "app" })
  items_wo_version = 1`, `
  items_wo         = { password = "moved-secret", user = "app" }
  items_wo_version = 1`)
}

func checkMove(t *testing.T, peerItems, berthItems string) {
	acctest.PreCheck(t)
	acctest.PeerProvider(t)
	path := "berth-acc/moved-" + acctest.RandomHex(3)
	const peerProvider = `
terraform {
  required_providers {
    nomad = { source = "hashicorp/nomad" }
  }
}
`
	peer := peerProvider + fmt.Sprintf(`
resource "nomad_variable" "v" {
  path  = %q
  %s
}
`, path, peerItems)
	moved := peerProvider + fmt.Sprintf(`
moved {
  from = nomad_variable.v
  to   = berth_variable.v
}

resource "berth_variable" "v" {
  path  = %q
  %s
}
`, path, berthItems)
	var before *api.Variable
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_12_0)},
		CheckDestroy:             checkGone(t, "default", path),
		Steps: []resource.TestStep{
			{
				Config: peer,
				Check: func(*terraform.State) error {
					before = readVar(t, "default", path)
					if before == nil {
						return fmt.Errorf("nomad_variable wrote no Variable at %s", path)
					}
					return nil
				},
			},
			{
				Config: moved,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(varAddr, plancheck.ResourceActionNoop),
				}},
				Check: func(*terraform.State) error {
					after := readVar(t, "default", path)
					if after == nil || after.ModifyIndex != before.ModifyIndex {
						return fmt.Errorf("the move wrote the Variable: modify index %d -> %v", before.ModifyIndex, after)
					}
					return nil
				},
			},
			{Config: moved, PlanOnly: true},
			{Config: moved, Check: func(s *terraform.State) error {
				for k, v := range s.RootModule().Resources[varAddr].Primary.Attributes {
					if strings.Contains(v, "moved-secret") {
						return fmt.Errorf("state holds the write-only value at %s", k)
					}
				}
				return nil
			}},
		},
	})
}
