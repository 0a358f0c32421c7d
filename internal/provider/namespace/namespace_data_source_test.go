package namespace_test

import (
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
)

// TestAccNamespaceDataSource_reads: berth_namespace reads one namespace's
// settings, berth_namespaces lists names and descriptions by prefix.
func TestAccNamespaceDataSource_reads(t *testing.T) {
	acctest.PreCheck(t)
	name := nsName("ds")
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy:             checkNamespaceGone(t, name),
		Steps: []resource.TestStep{{
			Config: fmt.Sprintf(`
resource "berth_namespace" "ns" {
  name         = %q
  description  = "read back"
  meta         = { team = "a" }
  capabilities = { disabled_task_drivers = ["docker"] }
}

data "berth_namespace" "one" {
  name = berth_namespace.ns.name
}

data "berth_namespaces" "some" {
  name_prefix = berth_namespace.ns.name
}

data "berth_namespaces" "all" {
  depends_on = [berth_namespace.ns]
}
`, name),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("data.berth_namespace.one", tfjsonpath.New("description"), knownvalue.StringExact("read back")),
				statecheck.ExpectKnownValue("data.berth_namespace.one", tfjsonpath.New("meta"),
					knownvalue.MapExact(map[string]knownvalue.Check{"team": knownvalue.StringExact("a")})),
				statecheck.ExpectKnownValue("data.berth_namespace.one", tfjsonpath.New("capabilities").AtMapKey("disabled_task_drivers"),
					knownvalue.SetExact([]knownvalue.Check{knownvalue.StringExact("docker")})),
				statecheck.ExpectKnownValue("data.berth_namespace.one", tfjsonpath.New("vault_config"), knownvalue.Null()),
				statecheck.ExpectKnownValue("data.berth_namespaces.some", tfjsonpath.New("namespaces"),
					knownvalue.ListExact([]knownvalue.Check{knownvalue.ObjectExact(map[string]knownvalue.Check{
						"name": knownvalue.StringExact(name), "description": knownvalue.StringExact("read back")})})),
			},
			Check: resource.ComposeTestCheckFunc(
				resource.TestCheckTypeSetElemAttr("data.berth_namespaces.all", "names.*", "default"),
				resource.TestCheckTypeSetElemAttr("data.berth_namespaces.all", "names.*", name),
			),
		}},
	})
}
