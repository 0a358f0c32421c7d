package instance

import (
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
)

// perAllocCSIConfig is two CSI volumes "<src>[0]" and "<src>[1]" on the
// plugin and a two-replica instance claiming them per allocation. Its exec
// service writes "<alloc index> <gen>" into the volume unless a file is
// already there, then copies what the volume holds to alloc/seen.txt.
func perAllocCSIConfig(p acctest.CSIPlugin, src, app, gen string) string {
	return p.Config() + fmt.Sprintf(`
resource "berth_volume" "per_alloc" {
  count        = 2
  name         = "%[1]s[${count.index}]"
  type         = "csi"
  plugin_id    = %[2]q
  capabilities = [{ access_mode = "single-node-writer", attachment_mode = "file-system" }]
  depends_on   = [berth_job.csi_plugin]
}

resource "berth_instance" "app" {
  name       = %[3]q
  replicas   = 2
  update     = { min_healthy_time = "1s", healthy_deadline = "1m", progress_deadline = "2m" }
  volumes    = { data = { type = "csi", volume = %[1]q, per_alloc = true } }
  depends_on = [berth_volume.per_alloc]
  services = {
    writer = {
      driver  = "exec"
      command = "/bin/sh"
      args    = ["-c", "[ -f /data/index ] || echo \"$NOMAD_ALLOC_INDEX $GEN\" > /data/index; cp /data/index /alloc/seen.txt; exec sleep 3600"]
      env     = { GEN = %[4]q }
      cpu     = 20
      memory  = 32
      mounts  = [{ volume = "data", destination = "/data" }]
    }
  }
}
`, src, p.ID, app, gen)
}

// TestAccInstanceCSI_perAllocVolumes: a berth_instance with two replicas
// and a per_alloc CSI volume request runs each allocation on its own
// volume, "<src>[0]" or "<src>[1]" (one write claim each, the index written
// into the right volume's directory); a new job version replaces the
// allocations, which find the data the first ones wrote; the plan after
// each apply is empty; destroy removes the instance, then the volumes.
func TestAccInstanceCSI_perAllocVolumes(t *testing.T) {
	acctest.PreCheck(t)
	acctest.NeedRootForCSI(t)
	nomad := acctest.Nomad(t)
	plugin := acctest.NewCSIPlugin(t, nomad)
	suffix := acctest.RandomHex(3)
	src, app := "berth-acc-csipa-"+suffix, "berth-acc-csipa-app-"+suffix
	volName := func(i int) string { return src + "[" + strconv.Itoa(i) + "]" }

	// checkAllocs checks the running allocations of job version: one per
	// index, each the only write claim on its own volume, each having seen
	// "<index> 1" in it (written by version 0, kept since).
	checkAllocs := func(version uint64) resource.TestCheckFunc {
		return func(*terraform.State) error {
			byIndex := map[int]*api.Allocation{}
			acctest.WaitFor(t, fmt.Sprintf("two running allocations of version %d", version), 2*time.Minute, func() (bool, error) {
				allocs, _, err := nomad.Jobs().Allocations(app, false, nil)
				if err != nil {
					return false, err
				}
				clear(byIndex)
				for _, a := range allocs {
					if a.JobVersion == version && a.ClientStatus == "running" && a.DesiredStatus == "run" {
						full, _, err := nomad.Allocations().Info(a.ID, nil)
						if err != nil {
							return false, err
						}
						byIndex[allocIndex(full.Name)] = full
					}
				}
				return len(byIndex) == 2, fmt.Errorf("running allocations by index: %d", len(byIndex))
			})
			for i := range 2 {
				a := byIndex[i]
				if a == nil {
					return fmt.Errorf("no running allocation with index %d", i)
				}
				v, _, err := nomad.CSIVolumes().Info(volName(i), nil)
				if err != nil {
					return fmt.Errorf("reading CSI volume %s: %w", volName(i), err)
				}
				// Nomad lists claims by allocation ID (the values may be nil).
				if _, ok := v.WriteAllocs[a.ID]; len(v.WriteAllocs) != 1 || !ok {
					claims := slices.Sorted(maps.Keys(v.WriteAllocs))
					return fmt.Errorf("volume %s: write claims %v, want only allocation %s (index %d)", volName(i), claims, a.ID, i)
				}
				want := fmt.Sprintf("%d 1", i)
				b, err := os.ReadFile(filepath.Join(plugin.BaseDir, volName(i), "index"))
				if err != nil || strings.TrimSpace(string(b)) != want {
					return fmt.Errorf("volume %s holds %q (%v), want %q", volName(i), b, err, want)
				}
				acctest.WaitFor(t, fmt.Sprintf("allocation %d to copy its volume's file", i), time.Minute, func() (bool, error) {
					r, err := nomad.AllocFS().Cat(a, "alloc/seen.txt", nil)
					if err != nil {
						return false, err
					}
					defer r.Close()
					b, err := io.ReadAll(r)
					return strings.TrimSpace(string(b)) == want, fmt.Errorf("allocation %d saw %q (%v), want %q", i, b, err, want)
				})
			}
			return nil
		}
	}

	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: plugin.Config(),
				Check:  func(*terraform.State) error { plugin.WaitHealthy(t, nomad); return nil },
			},
			{
				Config: perAllocCSIConfig(plugin, src, app, "1"),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PostApplyPostRefresh: []plancheck.PlanCheck{acctest.ExpectNoChanges{}},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("berth_volume.per_alloc[1]", tfjsonpath.New("name"), knownvalue.StringExact(volName(1))),
					statecheck.ExpectKnownValue("berth_instance.app", tfjsonpath.New("volumes").AtMapKey("data"), knownvalue.ObjectExact(map[string]knownvalue.Check{
						"type": knownvalue.StringExact("csi"), "volume": knownvalue.StringExact(src), "per_alloc": knownvalue.Bool(true),
						"read_only": knownvalue.Bool(false), "access_mode": knownvalue.Null(), "attachment_mode": knownvalue.Null(),
					})),
				},
				Check: resource.ComposeAggregateTestCheckFunc(
					acctest.WithJob(t, app, func(job *api.Job, _ []*api.AllocationListStub) error {
						req := job.TaskGroups[0].Volumes["data"]
						if req == nil || req.Type != "csi" || req.Source != src || !req.PerAlloc ||
							req.AccessMode != "single-node-writer" || req.AttachmentMode != "file-system" {
							return fmt.Errorf("group volume request in Nomad = %+v", req)
						}
						return nil
					}),
					checkAllocs(0),
				),
			},
			{
				// A new job version replaces both allocations; each finds
				// what the first one with its index wrote.
				Config: perAllocCSIConfig(plugin, src, app, "2"),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction("berth_instance.app", plancheck.ResourceActionUpdate)},
					PostApplyPostRefresh: []plancheck.PlanCheck{acctest.ExpectNoChanges{}},
				},
				Check: checkAllocs(1),
			},
		},
		CheckDestroy: func(*terraform.State) error {
			if err := acctest.CheckInstanceDestroyed(t, app)(nil); err != nil {
				return err
			}
			for i := range 2 {
				if _, _, err := nomad.CSIVolumes().Info(volName(i), nil); err == nil || !strings.Contains(err.Error(), "404") {
					return fmt.Errorf("CSI volume %s still in Nomad after destroy (err %v)", volName(i), err)
				}
				if _, err := os.Stat(filepath.Join(plugin.BaseDir, volName(i))); !os.IsNotExist(err) {
					return fmt.Errorf("the directory of volume %s is still there after destroy: %v", volName(i), err)
				}
			}
			plugin.WaitGone(t, nomad)
			return nil
		},
	})
}

// allocIndex is the index in an allocation's name, "<job>.<group>[<index>]";
// -1 when there is none.
func allocIndex(name string) int {
	open := strings.LastIndexByte(name, '[')
	if open < 0 || !strings.HasSuffix(name, "]") {
		return -1
	}
	i, err := strconv.Atoi(name[open+1 : len(name)-1])
	if err != nil {
		return -1
	}
	return i
}
