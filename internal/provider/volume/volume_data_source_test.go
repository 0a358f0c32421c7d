package volume

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/hashicorp/nomad/api"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
)

// The data source reports every attribute as Nomad has it, and a name
// that does not exist is one error at the name.
func TestAccVolumeDataSource_everyAttribute(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	name := "berth-acc-vds-" + acctest.RandomHex(3)
	const ds = "data.berth_volume.d"
	config := fmt.Sprintf(`
resource "berth_volume" "v" {
  name            = %q
  capacity_min    = "5MiB"
  capacity_max    = "7MiB"
  access_mode     = "single-node-multi-writer"
  parameters      = { mode = "0750" }
}
data "berth_volume" "d" {
  name      = berth_volume.v.name
  namespace = berth_volume.v.namespace
}`, name)
	testVolume(t, name, []resource.TestStep{
		{
			Config:           config,
			ConfigPlanChecks: createsVolume(),
			ConfigStateChecks: []statecheck.StateCheck{
				stateIs(ds, "capacity_min_bytes", knownvalue.Int64Exact(5<<20)),
				stateIs(ds, "capacity_max_bytes", knownvalue.Int64Exact(7<<20)),
				stateIs(ds, "access_mode", knownvalue.StringExact("single-node-multi-writer")),
				stateIs(ds, "attachment_mode", knownvalue.StringExact("file-system")),
				stateIs(ds, "plugin_id", knownvalue.StringExact("mkdir")),
				stateIs(ds, "state", knownvalue.StringExact("ready")),
				stateIs(ds, "parameters", knownvalue.MapExact(map[string]knownvalue.Check{
					"mode": knownvalue.StringExact("0750")})),
				stateIs(ds, "allocations", knownvalue.ListSizeExact(0)),
			},
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttrPair(ds, "id", volumeAddr, "id"),
				resource.TestCheckResourceAttrPair(ds, "namespace", volumeAddr, "namespace"),
				resource.TestCheckResourceAttrPair(ds, "node_pool", volumeAddr, "node_pool"),
				resource.TestCheckResourceAttrPair(ds, "capacity_bytes", volumeAddr, "capacity_bytes"),
				checkVolumeDataMatchesNomad(t, ds),
			),
		},
		{
			Config: config + fmt.Sprintf(`
data "berth_volume" "missing" { name = %q }`, name+"-missing"),
			ExpectError: regexp.MustCompile(`(?s)Volume not found.*no host volume and no CSI volume with name`),
		},
	})
}

// checkVolumeDataMatchesNomad compares the data source with the volume and
// its node as the Nomad API reports them.
func checkVolumeDataMatchesNomad(t *testing.T, addr string) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		rs, ok := s.RootModule().Resources[addr]
		if !ok {
			return fmt.Errorf("%s not in state", addr)
		}
		a := rs.Primary.Attributes
		v, _, err := acctest.Nomad(t).HostVolumes().Get(a["id"], &api.QueryOptions{Namespace: a["namespace"]})
		if err != nil {
			return fmt.Errorf("reading volume %s: %v", a["id"], err)
		}
		node, _, err := acctest.Nomad(t).Nodes().Info(v.NodeID, nil)
		if err != nil {
			return fmt.Errorf("reading node %s: %v", v.NodeID, err)
		}
		want := map[string]string{
			"name": v.Name, "node_id": v.NodeID, "node_name": node.Name, "host_path": v.HostPath,
			"state": string(v.State), "capacity_bytes": fmt.Sprint(v.CapacityBytes),
		}
		for k, w := range want {
			if a[k] != w {
				return fmt.Errorf("%s.%s = %q, Nomad says %q", addr, k, a[k], w)
			}
		}
		return nil
	}
}
