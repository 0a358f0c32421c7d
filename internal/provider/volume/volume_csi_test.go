package volume

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
)

// csiVolumeConfig is a CSI berth_volume on plugin, with mount options
// and a secret; gen goes into its parameters, so changing it replaces the
// volume.
func csiVolumeConfig(p acctest.CSIPlugin, name, gen string) string {
	return csiVolumeWith(p, name, gen, `
  mount_options = { mount_flags = ["noatime"] }
  secrets_wo    = { token = "berth-csi-secret" }
  depends_on    = [berth_job.csi_plugin]`)
}

// csiVolumeWith is a CSI berth_volume on plugin with gen in its
// parameters, and the attributes in extra.
func csiVolumeWith(p acctest.CSIPlugin, name, gen, extra string) string {
	return fmt.Sprintf(`
resource "berth_volume" "csi" {
  name         = %q
  type         = "csi"
  plugin_id    = %q
  capacity_min = "10MiB"
  capacity_max = "20MiB"
  capabilities = [{ access_mode = "single-node-writer", attachment_mode = "file-system" }]
  parameters   = { gen = %q }%s
}
`, name, p.ID, gen, extra)
}

// csiUserConfig is an exec job mounting the volume at /data and running
// script; it depends on the volume so destroy stops it first.
func csiUserConfig(job, vol, script string) string {
	return fmt.Sprintf(`
resource "berth_job" "user" {
  depends_on = [berth_volume.csi]
  jobspec = <<-EOT
job %q {
  group "g" {
    volume "data" {
      type            = "csi"
      source          = %q
      access_mode     = "single-node-writer"
      attachment_mode = "file-system"
    }
    task "t" {
      driver = "exec"
      config {
        command = "/bin/sh"
        args    = ["-c", %q]
      }
      volume_mount {
        volume      = "data"
        destination = "/data"
      }
      resources {
        cpu    = 20
        memory = 32
      }
    }
  }
}
  EOT
}
`, job, vol, script)
}

// runningAllocOf waits for the job's running allocation of version.
func runningAllocOf(t *testing.T, nomad *api.Client, job string, version uint64) *api.Allocation {
	t.Helper()
	var id string
	acctest.WaitFor(t, fmt.Sprintf("job %s version %d running", job, version), 2*time.Minute, func() (bool, error) {
		allocs, _, err := nomad.Jobs().Allocations(job, false, nil)
		if err != nil {
			return false, err
		}
		for _, a := range allocs {
			if a.JobVersion == version && a.ClientStatus == "running" {
				id = a.ID
				return true, nil
			}
		}
		return false, fmt.Errorf("%d allocations, none of version %d running", len(allocs), version)
	})
	a, _, err := nomad.Allocations().Info(id, nil)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// TestAccVolumeCSI_createdMountedDeleted: with the test plugin's job
// healthy, a CSI berth_volume is created through the plugin and
// schedulable in Nomad (secrets never in state); an exec job writes a file
// into it, which lands in the plugin's directory for the volume; the job's
// next version (a new allocation) reads it back; replacing the volume
// while the job claims it is refused; destroy removes job, volume
// (directory included) and plugin.
func TestAccVolumeCSI_createdMountedDeleted(t *testing.T) {
	acctest.PreCheck(t)
	acctest.NeedRootForCSI(t)
	nomad := acctest.Nomad(t)
	plugin := acctest.NewCSIPlugin(t, nomad)
	name, job := "berth-acc-csivol-"+acctest.RandomHex(3), "berth-acc-csiuser-"+acctest.RandomHex(3)
	volDir := filepath.Join(plugin.BaseDir, name)
	withVolume := plugin.Config() + csiVolumeConfig(plugin, name, "1")
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: plugin.Config(),
				Check:  func(*terraform.State) error { plugin.WaitHealthy(t, nomad); return nil },
			},
			{
				Config: withVolume,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("berth_volume.csi", plancheck.ResourceActionCreate),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					stateIs("berth_volume.csi", "id", knownvalue.StringExact(name)),
					stateIs("berth_volume.csi", "state", knownvalue.StringExact("ready")),
					stateIs("berth_volume.csi", "external_id", knownvalue.StringExact(name)),
					stateIs("berth_volume.csi", "secrets_wo", knownvalue.Null()),
				},
				Check: func(s *terraform.State) error {
					v, _, err := nomad.CSIVolumes().Info(name, nil)
					if err != nil {
						return fmt.Errorf("reading CSI volume %s from Nomad: %w", name, err)
					}
					if !v.Schedulable || v.PluginID != plugin.ID || v.RequestedCapacityMin != 10<<20 || len(v.RequestedCapabilities) != 1 {
						return fmt.Errorf("Nomad's volume: schedulable %v, plugin %q, capacity_min %d, %d capabilities",
							v.Schedulable, v.PluginID, v.RequestedCapacityMin, len(v.RequestedCapabilities))
					}
					if fi, err := os.Stat(volDir); err != nil || !fi.IsDir() {
						return fmt.Errorf("the plugin made no directory for the volume: %v", err)
					}
					for k, attr := range s.RootModule().Resources["berth_volume.csi"].Primary.Attributes {
						if strings.Contains(attr, "berth-csi-secret") {
							return fmt.Errorf("the secret is in state at %s", k)
						}
					}
					return nil
				},
			},
			{
				Config: withVolume + csiUserConfig(job, name, "echo written-by-v0 > /data/greeting && exec sleep 3600"),
				Check: func(*terraform.State) error {
					runningAllocOf(t, nomad, job, 0)
					acctest.WaitFor(t, "the file in the volume's directory", time.Minute, func() (bool, error) {
						b, err := os.ReadFile(filepath.Join(volDir, "greeting"))
						return strings.TrimSpace(string(b)) == "written-by-v0", err
					})
					v, _, err := nomad.CSIVolumes().Info(name, nil)
					if err != nil {
						return err
					}
					if len(v.WriteAllocs) != 1 {
						return fmt.Errorf("Nomad lists %d write claims on the volume, want 1", len(v.WriteAllocs))
					}
					return nil
				},
			},
			{
				// A new job version: a new allocation, which reads the file back.
				Config: withVolume + csiUserConfig(job, name, "cat /data/greeting > /alloc/read.txt && exec sleep 3600"),
				Check: func(*terraform.State) error {
					a := runningAllocOf(t, nomad, job, 1)
					acctest.WaitFor(t, "the new allocation to read the file", time.Minute, func() (bool, error) {
						r, err := nomad.AllocFS().Cat(a, "alloc/read.txt", nil)
						if err != nil {
							return false, err
						}
						defer r.Close()
						b, err := io.ReadAll(r)
						return strings.TrimSpace(string(b)) == "written-by-v0", fmt.Errorf("read %q (%v)", b, err)
					})
					return nil
				},
			},
			{
				// Replacing the volume deletes it first: refused while claimed.
				Config: plugin.Config() + csiVolumeConfig(plugin, name, "2") +
					csiUserConfig(job, name, "cat /data/greeting > /alloc/read.txt && exec sleep 3600"),
				ExpectError: regexp.MustCompile(`(?s)CSI volume "` + name + `".*is\s+used\s+by.*"` + job + `"`),
			},
		},
		CheckDestroy: func(*terraform.State) error {
			if err := checkUnregistered(nomad, name); err != nil {
				return err
			}
			if _, err := os.Stat(volDir); !os.IsNotExist(err) {
				return fmt.Errorf("the volume's directory is still there after destroy: %v", err)
			}
			plugin.WaitGone(t, nomad)
			return nil
		},
	})
}

// csiPlainVolumeConfig is a CSI berth_volume without mount options or
// secrets, on a plugin started outside the configuration.
func csiPlainVolumeConfig(p acctest.CSIPlugin, name string) string {
	return csiVolumeWith(p, name, "1", "")
}

// parallelCSIPlugin checks that the agent is there, runs t alongside the
// other parallel tests, and starts a CSI plugin for it (csiPluginOutside).
func parallelCSIPlugin(t *testing.T) (*api.Client, acctest.CSIPlugin) {
	t.Helper()
	acctest.PreCheck(t)
	t.Parallel()
	return csiPluginOutside(t)
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
	nomad, plugin := parallelCSIPlugin(t)
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
					stateIs(byName, "type", knownvalue.StringExact("csi")),
					stateIs(byName, "id", knownvalue.StringExact(name)),
					stateIs(byName, "plugin_id", knownvalue.StringExact(plugin.ID)),
					stateIs(byName, "external_id", knownvalue.StringExact(name)),
					stateIs(byName, "capacity_min_bytes", knownvalue.Int64Exact(10<<20)),
					stateIs(byName, "state", knownvalue.StringExact("ready")),
					stateIs(byName, "node_id", knownvalue.Null()),
					stateIs(byName, "capabilities", knownvalue.ListExact([]knownvalue.Check{
						knownvalue.ObjectExact(map[string]knownvalue.Check{
							"access_mode": knownvalue.StringExact("single-node-writer"), "attachment_mode": knownvalue.StringExact("file-system"),
						}),
					})),
					stateIs(byID, "name", knownvalue.StringExact(name)),
					stateIs(byID, "type", knownvalue.StringExact("csi")),
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
		CheckDestroy: func(*terraform.State) error { return checkUnregistered(nomad, name) },
	})
}

// TestAccVolumeCSIIdentity_importByIdentity: a CSI volume's identity is
// its namespace and ID, and importing by identity plans no change.
func TestAccVolumeCSIIdentity_importByIdentity(t *testing.T) {
	nomad, plugin := parallelCSIPlugin(t)
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
	_, plugin := parallelCSIPlugin(t)
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
