package node

import (
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/knownvalue"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
)

func TestAccNodePoolIdentity_importByIdentity(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	name := "berth-acc-pool-identity-" + acctest.RandomHex(3)
	acctest.CheckIdentity(t, acctest.IdentityCase{
		Addr: nodePoolAddr,
		Config: fmt.Sprintf(`
resource "berth_node_pool" "p" {
  name        = %q
  description = "imported by identity"
  meta        = { team = "a" }
}`, name),
		Identity: map[string]knownvalue.Check{"name": knownvalue.StringExact(name)},
		InNomad:  checkNodePool(t, name, "imported by identity", map[string]string{"team": "a"}),
	})
}
