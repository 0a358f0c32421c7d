package namespace_test

import (
	"fmt"
	"testing"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
)

// TestAccNamespaceQuery_generateConfig creates a namespace, forgets it,
// finds it with terraform query and requires the generated configuration
// to import it with no change.
func TestAccNamespaceQuery_generateConfig(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	name := nsName("query")
	acctest.AdoptAgain(t, fmt.Sprintf(`
resource "berth_namespace" "ns" {
  name         = %q
  description  = "found by query"
  meta         = { team = "a" }
  capabilities = { enabled_task_drivers = ["docker", "raw_exec"], disabled_network_modes = ["host"] }
}`, name), nsAddr, fmt.Sprintf(`list "berth_namespace" "found" {
  provider         = berth
  include_resource = true
  config {
    name_prefix = %q
  }
}
`, name), name)
}
