package namespace_test

import (
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/knownvalue"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
)

func TestAccNamespaceIdentity_importByIdentity(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	name := nsName("identity")
	acctest.CheckIdentity(t, acctest.IdentityCase{
		Addr: nsAddr,
		Config: fmt.Sprintf(`
resource "berth_namespace" "ns" {
  name         = %q
  description  = "imported by identity"
  meta         = { team = "a" }
  capabilities = { disabled_task_drivers = ["docker"] }
}`, name),
		Identity: map[string]knownvalue.Check{"name": knownvalue.StringExact(name)},
		InNomad: checkNamespace(t, name, wantNamespace{description: "imported by identity", meta: map[string]string{"team": "a"},
			disabledDrivers: []string{"docker"}}),
	})
}
