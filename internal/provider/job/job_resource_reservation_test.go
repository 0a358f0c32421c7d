package job

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/hashicorp/nomad/api"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
	"github.com/berthhq/terraform-provider-berth/internal/capacity"
	"github.com/berthhq/terraform-provider-berth/internal/nomadclient"
)

// TestAccJobReservation_chargedAndPinned: a berth_job placed into a node
// reservation is charged every group's resources times its count before it
// registers, pinned to the reservation's node and runs there; a count that
// no longer fits is refused with nothing changed in Nomad; destroy
// releases the charge.
func TestAccJobReservation_chargedAndPinned(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	n := acctest.ConsumerFleet(t)
	node := n.A.NodeID
	name := "berth-acc-jobres-" + acctest.RandomHex(3)
	resName := "jobres-" + name[len(name)-6:]
	key := nomadclient.JobConsumer("default", name)
	config := func(count int) string {
		return fmt.Sprintf(`
resource "berth_node_reservation" "r" {
  name    = %q
  node_id = %q
  cpu     = 300
  memory  = 400
  disk    = 1000
}
resource "berth_job" "t" {
  node_reservation = berth_node_reservation.r.id
  jobspec = <<-EOT
    job %q {
      node_pool = %q
      group "web" {
        count = %d
        ephemeral_disk { size = 150 }
        task "app" {
          driver = "raw_exec"
          config {
            command = "/bin/sleep"
            args    = ["3600"]
          }
          resources {
            cpu    = 50
            memory = 32
          }
        }
      }
    }
  EOT
}
`, resName, node, name, n.Pool, count)
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy: func(s *terraform.State) error {
			if _, ok := acctest.UsedBy(t, node, resName, key); ok {
				return fmt.Errorf("%s still charged after destroy", key)
			}
			return nil
		},
		Steps: []resource.TestStep{
			{
				Config: config(2),
				Check: resource.ComposeAggregateTestCheckFunc(
					acctest.CheckCharge(t, node, resName, key, capacity.Resources{CPU: 100, MemoryMB: 64, DiskMB: 300}),
					acctest.WithJob(t, name, func(job *api.Job, allocs []*api.AllocationListStub) error {
						pinned := false
						for _, c := range job.Constraints {
							pinned = pinned || (c.LTarget == "${node.unique.id}" && c.RTarget == node)
						}
						if !pinned || acctest.RunningAllocs(allocs) != 2 {
							return fmt.Errorf("pinned %v, %d running allocations; want pinned to %s and 2", pinned, acctest.RunningAllocs(allocs), node)
						}
						for _, a := range allocs {
							if a.NodeID != node {
								return fmt.Errorf("allocation %s on node %s, want %s", a.ID, a.NodeID, node)
							}
						}
						return nil
					}),
				),
			},
			{Config: config(2), PlanOnly: true},
			{
				// 8 × 50 MHz = 400 > 300.
				Config:      config(8),
				ExpectError: regexp.MustCompile(`Not enough left in the node reservation`),
			},
			{
				Config:   config(2),
				PlanOnly: true,
				PreConfig: func() {
					job, _, err := acctest.Nomad(t).Jobs().Info(name, nil)
					if err != nil || *job.TaskGroups[0].Count != 2 {
						t.Fatalf("job after a refused apply: %v", err)
					}
					if got, _ := acctest.UsedBy(t, node, resName, key); got != (capacity.Resources{CPU: 100, MemoryMB: 64, DiskMB: 300}) {
						t.Fatalf("charge after a refused apply: %+v", got)
					}
				},
			},
		},
	})
}
