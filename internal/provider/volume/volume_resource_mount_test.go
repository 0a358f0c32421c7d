package volume

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/nomad/api"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
)

// TestAccVolume_mountedByInstance: an exec instance mounts a berth_volume
// and writes a file that appears under the volume's host path; destroying
// the volume while the instance runs fails naming the allocation, and
// succeeds once the instance is gone.
func TestAccVolume_mountedByInstance(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	vol := "berth-acc-mnt-" + acctest.RandomHex(3)
	app := "berth-acc-mnt-app-" + acctest.RandomHex(3)
	// Pinned to the main node: the test reads the file on this machine's
	// disk, and other tests add client agents that could take it.
	volumeBlock := fmt.Sprintf(`
resource "berth_volume" "v" {
  name       = %q
  node_id    = %q
  parameters = { mode = "0777" }
}`, vol, acctest.MainNode(t, acctest.Nomad(t)).ID)
	instanceBlock := func(volumeRef string) string {
		return fmt.Sprintf(`
resource "berth_instance" "app" {
  name     = %q
  replicas = 1
  update   = { min_healthy_time = "1s", healthy_deadline = "1m", progress_deadline = "2m" }
  volumes  = { data = { volume = %s } }
  services = {
    writer = {
      driver  = "exec"
      command = "/bin/sh"
      args    = ["-c", "echo written-by-berth > /data/hello.txt; exec sleep 3600"]
      cpu     = 50
      memory  = 32
      mounts  = [{ volume = "data", destination = "/data" }]
    }
  }
}`, app, volumeRef)
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy: resource.ComposeAggregateTestCheckFunc(
			checkVolumesDestroyed(t, vol), acctest.CheckInstanceDestroyed(t, app)),
		Steps: []resource.TestStep{
			{
				Config: volumeBlock + instanceBlock("berth_volume.v.name"),
				Check: resource.ComposeAggregateTestCheckFunc(
					acctest.WithJob(t, app, func(job *api.Job, allocs []*api.AllocationListStub) error {
						req := job.TaskGroups[0].Volumes["data"]
						if req == nil || req.Type != "host" || req.Source != vol {
							return fmt.Errorf("group volume request in Nomad = %+v", req)
						}
						if acctest.RunningAllocs(allocs) != 1 {
							return fmt.Errorf("%d running allocations", acctest.RunningAllocs(allocs))
						}
						return nil
					}),
					func(s *terraform.State) error {
						hostPath := s.RootModule().Resources[volumeAddr].Primary.Attributes["host_path"]
						b, err := os.ReadFile(filepath.Join(hostPath, "hello.txt"))
						if err != nil || strings.TrimSpace(string(b)) != "written-by-berth" {
							return fmt.Errorf("file written by the task under %s: %q, %v", hostPath, b, err)
						}
						return nil
					},
				),
			},
			{
				// The volume leaves the configuration while the instance
				// still runs with it: destroy refuses and names who uses it.
				Config:      instanceBlock(fmt.Sprintf("%q", vol)),
				ExpectError: regexp.MustCompile(`(?s)Volume is in use.*` + regexp.QuoteMeta(app) + `.*allocation`),
			},
			{
				// The instance goes first; the volume stays.
				Config: volumeBlock,
				Check: withVolume(t, func(v *api.HostVolume) error {
					if len(v.Allocations) > 0 {
						for _, a := range v.Allocations {
							if a.ClientStatus == "running" {
								return fmt.Errorf("allocation %s still uses the volume", a.ID)
							}
						}
					}
					return nil
				}),
			},
		},
	})
}
