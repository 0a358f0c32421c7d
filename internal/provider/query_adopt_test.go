package provider

import (
	"fmt"
	"testing"
)

func TestAccVolumeQuery_adoptAgain(t *testing.T) {
	t.Parallel()
	testAccPreCheck(t)
	name := "berth-acc-vol-query-" + randomHex(3)
	adoptAgain(t, fmt.Sprintf(`
provider "berth" {}
resource "berth_volume" "v" {
  name         = %q
  capacity_min = "10MiB"
  capacity_max = "20MiB"
  parameters   = { mode = "0755" }
}`, name), "berth_volume.v", fmt.Sprintf(`list "berth_volume" "found" {
  provider         = berth
  include_resource = true
  config {
    name_prefix = %q
  }
}
`, name), name)
}

func TestAccNodeReservationQuery_adoptAgain(t *testing.T) {
	t.Parallel()
	testAccPreCheck(t)
	if mainAgent == nil {
		t.Skip("needs the Nomad agent started by the tests (its node is reserved)")
	}
	name := "query-" + randomHex(3)
	adoptAgain(t, fmt.Sprintf(`
provider "berth" {}
resource "berth_node_reservation" "r" {
  name    = %q
  node_id = %q
  cpu     = 10
  memory  = 16
}`, name, mainAgent.NodeID), "berth_node_reservation.r", fmt.Sprintf(`list "berth_node_reservation" "found" {
  provider         = berth
  include_resource = true
  config {
    node_id     = %q
    name_prefix = %q
  }
}
`, mainAgent.NodeID, name), name)
}
