package cluster

import (
	"fmt"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
)

// TestAccAllocationsDataSource_jobAndFilter registers a raw_exec job
// through Nomad's API, waits for it to run, and reads its allocations by
// job and by a filter expression: both report what Nomad's API says of
// the allocation and its task.
func TestAccAllocationsDataSource_jobAndFilter(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	nomad := acctest.Nomad(t)
	job := acctest.RegisterOutsideJob(t, "", acctest.ReadyNodeID(t), 20, 16)
	acctest.WaitFor(t, "the job's task to run", 2*time.Minute, func() (bool, error) {
		allocs, _, err := nomad.Jobs().Allocations(job, false, nil)
		if err != nil || len(allocs) != 1 {
			return false, err
		}
		ts := allocs[0].TaskStates["sleep"]
		return allocs[0].ClientStatus == api.AllocClientStatusRunning && ts != nil && ts.State == "running", nil
	})
	config := fmt.Sprintf(`
data "berth_allocations" "by_job" {
  job = %[1]q
}

data "berth_allocations" "by_filter" {
  namespace = "*"
  filter    = "JobID == \"%[1]s\" and ClientStatus == \"running\""
}

data "berth_allocations" "none" {
  job    = %[1]q
  filter = "ClientStatus == \"failed\""
}
`, job)
	asNomadSays := func(ds string) resource.TestCheckFunc {
		return func(s *terraform.State) error {
			allocs, _, err := nomad.Jobs().Allocations(job, false, nil)
			if err != nil {
				return err
			}
			if len(allocs) != 1 {
				return fmt.Errorf("Nomad has %d allocations of %s, want 1", len(allocs), job)
			}
			a := allocs[0]
			ts := a.TaskStates["sleep"]
			last := ts.Events[len(ts.Events)-1]
			return resource.ComposeTestCheckFunc(
				resource.TestCheckResourceAttr(ds, "allocations.#", "1"),
				resource.TestCheckResourceAttr(ds, "allocations.0.id", a.ID),
				resource.TestCheckResourceAttr(ds, "allocations.0.name", a.Name),
				resource.TestCheckResourceAttr(ds, "allocations.0.namespace", a.Namespace),
				resource.TestCheckResourceAttr(ds, "allocations.0.job", job),
				resource.TestCheckResourceAttr(ds, "allocations.0.job_type", "service"),
				resource.TestCheckResourceAttr(ds, "allocations.0.group", a.TaskGroup),
				resource.TestCheckResourceAttr(ds, "allocations.0.node_id", a.NodeID),
				resource.TestCheckResourceAttr(ds, "allocations.0.node_name", a.NodeName),
				resource.TestCheckResourceAttr(ds, "allocations.0.client_status", a.ClientStatus),
				resource.TestCheckResourceAttr(ds, "allocations.0.desired_status", a.DesiredStatus),
				resource.TestCheckResourceAttr(ds, "allocations.0.create_time", fmt.Sprint(a.CreateTime)),
				resource.TestCheckResourceAttr(ds, "allocations.0.tasks.%", "1"),
				resource.TestCheckResourceAttr(ds, "allocations.0.tasks.sleep.state", ts.State),
				resource.TestCheckResourceAttr(ds, "allocations.0.tasks.sleep.failed", fmt.Sprint(ts.Failed)),
				resource.TestCheckResourceAttr(ds, "allocations.0.tasks.sleep.restarts", fmt.Sprint(ts.Restarts)),
				resource.TestCheckResourceAttr(ds, "allocations.0.tasks.sleep.last_event_type", last.Type),
				resource.TestCheckResourceAttr(ds, "allocations.0.tasks.sleep.last_event_message", last.DisplayMessage),
			)(s)
		}
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: config,
			Check: resource.ComposeTestCheckFunc(asNomadSays("data.berth_allocations.by_job"),
				asNomadSays("data.berth_allocations.by_filter"),
				resource.TestCheckResourceAttr("data.berth_allocations.none", "allocations.#", "0")),
		}},
	})
}

// TestAccAllocationsDataSource_badFilter: an expression Nomad cannot
// parse fails the plan with one error, at filter, quoting Nomad.
func TestAccAllocationsDataSource_badFilter(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	expectOneError(t, `
data "berth_allocations" "bad" {
  filter = "ClientStatus =="
}
`, "Nomad refused the filter expression", "Nomad said:", `filter = "ClientStatus =="`)
}
