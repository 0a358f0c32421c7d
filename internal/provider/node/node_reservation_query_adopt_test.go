package node

import (
	"fmt"
	"testing"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
)

func TestAccNodeReservationQuery_adoptAgain(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	if acctest.MainAgent == nil {
		t.Skip("needs the Nomad agent started by the tests (its node is reserved)")
	}
	name := "query-" + acctest.RandomHex(3)
	acctest.AdoptAgain(t, fmt.Sprintf(`
provider "berth" {}
resource "berth_node_reservation" "r" {
  name    = %q
  node_id = %q
  cpu     = 10
  memory  = 16
}`, name, acctest.MainAgent.NodeID), "berth_node_reservation.r", fmt.Sprintf(`list "berth_node_reservation" "found" {
  provider         = berth
  include_resource = true
  config {
    node_id     = %q
    name_prefix = %q
  }
}
`, acctest.MainAgent.NodeID, name), name)
}
