package node

import (
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
)

// TestAccNodeSettingsIdentity_importByIdentity: node settings on a node of
// the test's own record the node's ID as their identity, and an import
// block with that identity takes them over with no change.
func TestAccNodeSettingsIdentity_importByIdentity(t *testing.T) {
	acctest.PreCheck(t)
	t.Parallel()
	nodes, _ := drainNodes(t)
	id := nodes[0].NodeID
	acctest.CheckIdentity(t, acctest.IdentityCase{
		Addr: "berth_node_settings.n",
		Config: fmt.Sprintf(`
resource "berth_node_settings" "n" {
  node_id  = %q
  eligible = true
}`, id),
		Identity: map[string]knownvalue.Check{"id": knownvalue.StringExact(id)},
		InNomad: func(*terraform.State) error {
			if n := nodeOf(t, id); n.SchedulingEligibility != "eligible" {
				return fmt.Errorf("node %s is %q in Nomad; want eligible", id, n.SchedulingEligibility)
			}
			return nil
		},
	})
}
