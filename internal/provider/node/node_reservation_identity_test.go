package node

import (
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/knownvalue"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
	"github.com/berthhq/terraform-provider-berth/internal/ledger"
)

func TestAccNodeReservationIdentity_importByIdentity(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	if acctest.MainAgent == nil {
		t.Skip("needs the Nomad agent started by the tests (its node is reserved)")
	}
	name := "identity-" + acctest.RandomHex(3)
	node := acctest.MainAgent.NodeID
	acctest.CheckIdentity(t, acctest.IdentityCase{
		Addr: "berth_node_reservation.r",
		Config: fmt.Sprintf(`
resource "berth_node_reservation" "r" {
  name    = %q
  node_id = %q
  cpu     = 10
  memory  = 16
}`, name, node),
		Identity: map[string]knownvalue.Check{
			"node_id": knownvalue.StringExact(node), "name": knownvalue.StringExact(name),
		},
		InNomad: acctest.CheckLedger(t, node, func(l ledger.Ledger) error {
			if _, ok := l.Reservations[name]; !ok {
				return fmt.Errorf("the ledger of node %s holds no reservation %q: %v", node, name, l.Reservations)
			}
			return nil
		}),
	})
}
