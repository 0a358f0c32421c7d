package job

import (
	"fmt"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
)

// TestAccJob_schedulerPlanWhileMoving: a change to a job still moving on
// its own (a batch allocation running, registered without waiting) plans
// scheduler_plan unknown, since its counts would move before the apply;
// the apply then records none. A new job's counts are planned.
func TestAccJob_schedulerPlanWhileMoving(t *testing.T) {
	acctest.PreCheck(t)
	name := "berth-acc-job-moving-" + acctest.RandomHex(3)
	spec := func(role string) string {
		return fmt.Sprintf(`
job %q {
  type = "batch"
  group "g" {
    %s
  }
}`, name, sleepTask("t", 16, fmt.Sprintf("env { ROLE = %q }", role)))
	}
	nomad := acctest.Nomad(t)
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: jobConfig(spec("a"), "wait_for_healthy = false"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectKnownValue(jobAddr, tfjsonpath.New("scheduler_plan"), knownvalue.MapExact(map[string]knownvalue.Check{
						"g": knownvalue.StringExact("1 create"),
					})),
				}},
			},
			{
				PreConfig: func() {
					acctest.WaitFor(t, "the batch allocation to start", 2*time.Minute, func() (bool, error) {
						allocs, _, err := nomad.Jobs().Allocations(name, false, nil)
						return len(allocs) == 1 && allocs[0].ClientStatus == api.AllocClientStatusRunning, err
					})
				},
				Config: jobConfig(spec("b"), "wait_for_healthy = false"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(jobAddr, plancheck.ResourceActionUpdate),
					plancheck.ExpectUnknownValue(jobAddr, tfjsonpath.New("scheduler_plan")),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(jobAddr, tfjsonpath.New("scheduler_plan"), knownvalue.Null()),
				},
				Check: acctest.WithJob(t, name, func(job *api.Job, _ []*api.AllocationListStub) error {
					if role := job.TaskGroups[0].Tasks[0].Env["ROLE"]; role != "b" {
						return fmt.Errorf("ROLE %q in Nomad, want b", role)
					}
					return nil
				}),
			},
		},
	})
}

// waitJobAtRest waits until nothing moves the job on its own: no pending
// evaluation or allocation, no deployment under way (what berth_job's
// plan checks before it plans scheduler_plan).
func waitJobAtRest(t *testing.T, name string) {
	t.Helper()
	nomad := acctest.Nomad(t)
	acctest.WaitFor(t, "job "+name+" at rest", 2*time.Minute, func() (bool, error) {
		evals, _, err := nomad.Jobs().Evaluations(name, nil)
		if err != nil {
			return false, err
		}
		for _, e := range evals {
			if e.Status == api.EvalStatusPending {
				return false, nil
			}
		}
		allocs, _, err := nomad.Jobs().Allocations(name, false, nil)
		if err != nil {
			return false, err
		}
		for _, a := range allocs {
			if a.DesiredStatus == api.AllocDesiredStatusRun && a.ClientStatus == api.AllocClientStatusPending {
				return false, nil
			}
		}
		d, _, err := nomad.Jobs().LatestDeployment(name, nil)
		if err != nil {
			return false, err
		}
		return d == nil || (d.Status != "running" && d.Status != "pending" && d.Status != "paused"), nil
	})
}
