package volume

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/nomad/api"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
)

// csiPlainVolumeConfig is a CSI berth_volume without mount options or
// secrets, on a plugin started outside the configuration.
func csiPlainVolumeConfig(p acctest.CSIPlugin, name string) string {
	return fmt.Sprintf(`
resource "berth_volume" "csi" {
  name         = %q
  type         = "csi"
  plugin_id    = %q
  capacity_min = "10MiB"
  capacity_max = "20MiB"
  capabilities = [{ access_mode = "single-node-writer", attachment_mode = "file-system" }]
  parameters   = { gen = "1" }
}
`, name, p.ID)
}

// csiPluginOutside is the test's own CSI plugin, run outside any
// configuration, with the Nomad client it runs against (it needs root).
func csiPluginOutside(t *testing.T) (*api.Client, acctest.CSIPlugin) {
	t.Helper()
	acctest.NeedRootForCSI(t)
	nomad := acctest.Nomad(t)
	plugin := acctest.NewCSIPlugin(t, nomad)
	plugin.RunOutside(t, nomad)
	return nomad, plugin
}

// TestAccVolumeCSI_importAndDataSource: a CSI volume berth created is
// found by the data source (by name and by ID, type unset), which reports
// it as Nomad has it; it imports by name to an empty plan; a name no
// volume of either type has is one error at the name.
func TestAccVolumeCSI_importAndDataSource(t *testing.T) {
	acctest.PreCheck(t)
	t.Parallel()
	nomad, plugin := csiPluginOutside(t)
	name := "berth-acc-csiimp-" + acctest.RandomHex(3)
	const byName, byID = "data.berth_volume.by_name", "data.berth_volume.by_id"
	config := csiPlainVolumeConfig(plugin, name) + `
data "berth_volume" "by_name" {
  name = berth_volume.csi.name
}
data "berth_volume" "by_id" {
  id = berth_volume.csi.id
}
`
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_5_0)},
		Steps: []resource.TestStep{
			{
				Config: config,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(byName, tfjsonpath.New("type"), knownvalue.StringExact("csi")),
					statecheck.ExpectKnownValue(byName, tfjsonpath.New("id"), knownvalue.StringExact(name)),
					statecheck.ExpectKnownValue(byName, tfjsonpath.New("plugin_id"), knownvalue.StringExact(plugin.ID)),
					statecheck.ExpectKnownValue(byName, tfjsonpath.New("external_id"), knownvalue.StringExact(name)),
					statecheck.ExpectKnownValue(byName, tfjsonpath.New("capacity_min_bytes"), knownvalue.Int64Exact(10<<20)),
					statecheck.ExpectKnownValue(byName, tfjsonpath.New("state"), knownvalue.StringExact("ready")),
					statecheck.ExpectKnownValue(byName, tfjsonpath.New("node_id"), knownvalue.Null()),
					statecheck.ExpectKnownValue(byName, tfjsonpath.New("capabilities"), knownvalue.ListExact([]knownvalue.Check{
						knownvalue.ObjectExact(map[string]knownvalue.Check{
							"access_mode": knownvalue.StringExact("single-node-writer"), "attachment_mode": knownvalue.StringExact("file-system"),
						}),
					})),
					statecheck.ExpectKnownValue(byID, tfjsonpath.New("name"), knownvalue.StringExact(name)),
					statecheck.ExpectKnownValue(byID, tfjsonpath.New("type"), knownvalue.StringExact("csi")),
				},
				Check: func(*terraform.State) error {
					v, _, err := nomad.CSIVolumes().Info(name, nil)
					if err != nil {
						return fmt.Errorf("reading CSI volume %s from Nomad: %w", name, err)
					}
					if v.PluginID != plugin.ID || v.Parameters["gen"] != "1" {
						return fmt.Errorf("Nomad's volume: plugin %q, parameters %v", v.PluginID, v.Parameters)
					}
					return nil
				},
			},
			{
				Config:          config,
				ResourceName:    "berth_volume.csi",
				ImportState:     true,
				ImportStateKind: resource.ImportBlockWithID,
				ImportStateId:   name,
				ImportPlanChecks: resource.ImportPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("berth_volume.csi", plancheck.ResourceActionNoop),
				}},
			},
			{
				Config:      config + fmt.Sprintf("\ndata \"berth_volume\" \"missing\" {\n  name = %q\n}\n", name+"-missing"),
				ExpectError: regexp.MustCompile(`(?s)Volume not found.*no host volume and no CSI volume with name`),
			},
		},
		CheckDestroy: func(*terraform.State) error {
			if _, _, err := nomad.CSIVolumes().Info(name, nil); err == nil || !strings.Contains(err.Error(), "404") {
				return fmt.Errorf("CSI volume %s still in Nomad after destroy (err %v)", name, err)
			}
			return nil
		},
	})
}

// TestAccVolumeCSIIdentity_importByIdentity: a CSI volume's identity is
// its namespace and ID, and importing by identity plans no change.
func TestAccVolumeCSIIdentity_importByIdentity(t *testing.T) {
	acctest.PreCheck(t)
	t.Parallel()
	nomad, plugin := csiPluginOutside(t)
	name := "berth-acc-csiid-" + acctest.RandomHex(3)
	acctest.CheckIdentity(t, acctest.IdentityCase{
		Addr:   "berth_volume.csi",
		Config: csiPlainVolumeConfig(plugin, name),
		Identity: map[string]knownvalue.Check{
			"namespace": knownvalue.StringExact("default"),
			"id":        knownvalue.StringExact(name),
		},
		InNomad: func(*terraform.State) error {
			v, _, err := nomad.CSIVolumes().Info(name, nil)
			if err != nil || v.PluginID != plugin.ID {
				return fmt.Errorf("CSI volume %s in Nomad: %+v, %v", name, v, err)
			}
			return nil
		},
	})
}

// TestAccVolumeCSIQuery_adoptAgain: the list resource lists CSI volumes
// (type = "csi"), and the configuration it generates imports the volume
// with no change.
func TestAccVolumeCSIQuery_adoptAgain(t *testing.T) {
	acctest.PreCheck(t)
	t.Parallel()
	_, plugin := csiPluginOutside(t)
	name := "berth-acc-csiq-" + acctest.RandomHex(3)
	acctest.AdoptAgain(t, `provider "berth" {}`+csiPlainVolumeConfig(plugin, name), "berth_volume.csi", fmt.Sprintf(`list "berth_volume" "found" {
  provider         = berth
  include_resource = true
  config {
    name_prefix = %q
    type        = "csi"
  }
}
`, name), name)
}
