package volume

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/nomad/api"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
)

const peerHeader = `
terraform {
  required_providers {
    nomad = { source = "hashicorp/nomad" }
  }
}
`

// TestAccVolumeMoved_fromNomadDynamicHostVolume: a host volume made by the
// other provider's nomad_dynamic_host_volume moves to berth_volume with a
// `moved` block: the plan changes nothing, the volume in Nomad keeps its
// ID and modify index, the next plan is empty, and berth's destroy
// deletes it.
func TestAccVolumeMoved_fromNomadDynamicHostVolume(t *testing.T) {
	acctest.PreCheck(t)
	acctest.PeerProvider(t)
	nomad := acctest.Nomad(t)
	name := "berth-acc-volmv-" + acctest.RandomHex(3)
	peer := peerHeader + fmt.Sprintf(`
resource "nomad_dynamic_host_volume" "v" {
  name         = %q
  plugin_id    = "mkdir"
  capacity_min = "10MiB"
  capacity_max = "20MiB"
  parameters   = { mode = "0755" }
  capability {
    access_mode     = "single-node-single-writer"
    attachment_mode = "file-system"
  }
  constraint {
    attribute = "$${attr.kernel.name}"
    value     = "linux"
  }
}
`, name)
	moved := peerHeader + fmt.Sprintf(`
moved {
  from = nomad_dynamic_host_volume.v
  to   = berth_volume.v
}

resource "berth_volume" "v" {
  name         = %q
  capacity_min = "10MiB"
  capacity_max = "20MiB"
  parameters   = { mode = "0755" }
  access_mode  = "single-node-single-writer"
  constraints  = [{ attribute = "$${attr.kernel.name}", value = "linux" }]
}
`, name)
	var before *api.HostVolume
	read := func(s *terraform.State, addr string) (*api.HostVolume, error) {
		rs, ok := s.RootModule().Resources[addr]
		if !ok {
			return nil, fmt.Errorf("%s not in state", addr)
		}
		v, _, err := nomad.HostVolumes().Get(rs.Primary.ID, nil)
		if err != nil {
			return nil, fmt.Errorf("reading host volume %s: %w", rs.Primary.ID, err)
		}
		return v, nil
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_12_0)},
		CheckDestroy:             checkVolumesDestroyed(t, name),
		Steps: []resource.TestStep{
			{
				Config: peer,
				Check: func(s *terraform.State) (err error) {
					before, err = read(s, "nomad_dynamic_host_volume.v")
					if err == nil && (before.State != "ready" || before.Name != name) {
						err = fmt.Errorf("host volume %s in Nomad: state %s, name %s", before.ID, before.State, before.Name)
					}
					return err
				},
			},
			{
				Config: moved,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(volumeAddr, plancheck.ResourceActionNoop),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					stateIs(volumeAddr, "type", knownvalue.StringExact("host")),
					stateIs(volumeAddr, "state", knownvalue.StringExact("ready")),
					stateIs(volumeAddr, "node_name", knownvalue.NotNull()),
				},
				Check: func(s *terraform.State) error {
					after, err := read(s, volumeAddr)
					if err != nil {
						return err
					}
					if after.ID != before.ID || after.ModifyIndex != before.ModifyIndex {
						return fmt.Errorf("the move changed the volume in Nomad: ID %s -> %s, modify index %d -> %d",
							before.ID, after.ID, before.ModifyIndex, after.ModifyIndex)
					}
					return nil
				},
			},
			{Config: moved, PlanOnly: true},
		},
	})
}

// TestAccVolumeMoved_fromNomadCSIVolume: a CSI volume made by the other
// provider's nomad_csi_volume (through the test plugin, registered outside
// the configuration) moves to berth_volume with type = "csi": the plan
// changes nothing, Nomad's volume keeps its modify index, the other
// provider's secrets are nowhere in berth's state, the next plan is empty,
// and berth's destroy has the plugin delete it.
func TestAccVolumeMoved_fromNomadCSIVolume(t *testing.T) {
	acctest.PreCheck(t)
	acctest.PeerProvider(t)
	nomad, plugin := csiPluginOutside(t)
	name := "berth-acc-csimv-" + acctest.RandomHex(3)
	const secret = "berth-csi-moved-secret"
	peer := peerHeader + fmt.Sprintf(`
resource "nomad_csi_volume" "v" {
  volume_id    = %[1]q
  name         = %[1]q
  plugin_id    = %[2]q
  capacity_min = "10MiB"
  capacity_max = "20MiB"
  parameters   = { gen = "1" }
  secrets      = { token = %[3]q }
  capability {
    access_mode     = "single-node-writer"
    attachment_mode = "file-system"
  }
  mount_options {
    mount_flags = ["noatime"]
  }
}
`, name, plugin.ID, secret)
	moved := peerHeader + fmt.Sprintf(`
moved {
  from = nomad_csi_volume.v
  to   = berth_volume.csi
}

resource "berth_volume" "csi" {
  name          = %[1]q
  type          = "csi"
  plugin_id     = %[2]q
  capacity_min  = "10MiB"
  capacity_max  = "20MiB"
  parameters    = { gen = "1" }
  secrets_wo    = { token = %[3]q }
  capabilities  = [{ access_mode = "single-node-writer", attachment_mode = "file-system" }]
  mount_options = { mount_flags = ["noatime"] }
}
`, name, plugin.ID, secret)
	var modifyIndex uint64
	noSecret := func(s *terraform.State) error {
		for k, v := range s.RootModule().Resources["berth_volume.csi"].Primary.Attributes {
			if strings.Contains(v, secret) {
				return fmt.Errorf("the other provider's secret moved into berth's state at %s", k)
			}
		}
		return nil
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_12_0)},
		CheckDestroy:             func(*terraform.State) error { return checkUnregistered(nomad, name) },
		Steps: []resource.TestStep{
			{
				Config: peer,
				Check: func(*terraform.State) error {
					v, _, err := nomad.CSIVolumes().Info(name, nil)
					if err != nil {
						return fmt.Errorf("reading CSI volume %s: %w", name, err)
					}
					if !v.Schedulable || v.PluginID != plugin.ID {
						return fmt.Errorf("CSI volume %s in Nomad: schedulable %v, plugin %q", name, v.Schedulable, v.PluginID)
					}
					modifyIndex = v.ModifyIndex
					return nil
				},
			},
			{
				Config: moved,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("berth_volume.csi", plancheck.ResourceActionNoop),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					stateIs("berth_volume.csi", "id", knownvalue.StringExact(name)),
					stateIs("berth_volume.csi", "type", knownvalue.StringExact("csi")),
					stateIs("berth_volume.csi", "state", knownvalue.StringExact("ready")),
					stateIs("berth_volume.csi", "secrets_wo", knownvalue.Null()),
				},
				Check: resource.ComposeAggregateTestCheckFunc(noSecret, func(*terraform.State) error {
					v, _, err := nomad.CSIVolumes().Info(name, nil)
					if err != nil {
						return fmt.Errorf("reading CSI volume %s: %w", name, err)
					}
					if v.ModifyIndex != modifyIndex {
						return fmt.Errorf("the move changed the volume in Nomad: modify index %d -> %d", modifyIndex, v.ModifyIndex)
					}
					return nil
				}),
			},
			{Config: moved, PlanOnly: true},
		},
	})
}
