package node

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
)

// TestAccNodeReservation_timeouts: the timeouts block is accepted and
// stored, a change of timeouts alone is an in-place update that keeps the
// hold, and a bad duration fails at plan time.
func TestAccNodeReservation_timeouts(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	nodeID := acctest.ReadyNodeID(t)
	name := "timeouts-" + acctest.RandomHex(4)
	cfg := func(timeouts string) string {
		return fmt.Sprintf(`
resource "berth_node_reservation" "r" {
  name     = %q
  node_id  = %q
  cpu      = 1
  timeouts = %s
}`, name, nodeID, timeouts)
	}
	held := func(*terraform.State) error {
		l, _ := acctest.ReadLedger(t, nodeID)
		if r, ok := l.Reservations[name]; !ok || r.Request.CPU != 1 {
			return fmt.Errorf("ledger of %s has %+v for %q, want a 1 MHz hold", nodeID, l.Reservations[name], name)
		}
		return nil
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy: func(*terraform.State) error {
			l, _ := acctest.ReadLedger(t, nodeID)
			if _, ok := l.Reservations[name]; ok {
				return fmt.Errorf("reservation %q still in the ledger after destroy", name)
			}
			return nil
		},
		Steps: []resource.TestStep{
			{
				Config:      cfg(`{ create = "soon" }`),
				ExpectError: regexp.MustCompile(`(?s)Invalid Attribute Value Time Duration.*"soon"`),
				PlanOnly:    true,
			},
			{
				Config: cfg(`{ create = "2m", delete = "1m" }`),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("berth_node_reservation.r", tfjsonpath.New("timeouts").AtMapKey("create"), knownvalue.StringExact("2m")),
				},
				Check: held,
			},
			{
				Config: cfg(`{ create = "2m", update = "3m", delete = "1m" }`),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("berth_node_reservation.r", plancheck.ResourceActionUpdate),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("berth_node_reservation.r", tfjsonpath.New("timeouts").AtMapKey("update"), knownvalue.StringExact("3m")),
				},
				Check: held,
			},
		},
	})
}
