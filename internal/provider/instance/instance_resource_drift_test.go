package instance

import (
	"fmt"
	"regexp"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
)

func appTask(job *api.Job) *api.Task {
	for _, task := range job.TaskGroups[0].Tasks {
		if task.Name == "app" {
			return task
		}
	}
	panic("no app task")
}

// planShowsUpdate is a plan-only step that expects Terraform to want to
// put the instance back.
func planShowsUpdate(cfg string, preConfig func()) resource.TestStep {
	return resource.TestStep{
		PreConfig:          preConfig,
		Config:             cfg,
		PlanOnly:           true,
		ExpectNonEmptyPlan: true,
	}
}

func TestAccInstance_driftIsDetected(t *testing.T) {
	name := startInstanceTest(t)
	cfg := acctest.InstanceConfig{Name: name, Extra: "replicas = 1", App: `env = { LOG_LEVEL = "info" }`}.String()
	backToConfig := resource.TestStep{
		Config: cfg,
		ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
			plancheck.ExpectResourceAction(acctest.InstanceAddr, plancheck.ResourceActionUpdate),
		}},
		Check: acctest.WithJob(t, name, func(job *api.Job, _ []*api.AllocationListStub) error {
			task := appTask(job)
			if task.Env["LOG_LEVEL"] != "info" || *task.Resources.CPU != 50 || task.Config["command"] != "/bin/sleep" {
				return fmt.Errorf("apply did not restore the job: env %v cpu %d config %v", task.Env, *task.Resources.CPU, task.Config)
			}
			return nil
		}),
	}
	acctest.TestJobSteps(t, name, checkedByNomad(t,
		resource.TestStep{Config: cfg},
		planShowsUpdate(cfg, acctest.MutateJob(t, name, func(j *api.Job) { appTask(j).Env["LOG_LEVEL"] = "debug" })),
		backToConfig,
		planShowsUpdate(cfg, acctest.MutateJob(t, name, func(j *api.Job) { appTask(j).Resources.CPU = acctest.Ptr(70) })),
		backToConfig,
		planShowsUpdate(cfg, acctest.MutateJob(t, name, func(j *api.Job) { appTask(j).Config["command"] = "/usr/bin/sleep" })),
		backToConfig,
		resource.TestStep{
			// Stopped out of band: running drifts.
			PreConfig: func() {
				if _, _, err := acctest.Nomad(t).Jobs().Deregister(name, false, nil); err != nil {
					t.Fatal(err)
				}
			},
			Config:             cfg,
			PlanOnly:           true,
			ExpectNonEmptyPlan: true,
		},
		resource.TestStep{Config: cfg, Check: expectRunning(t, name, 1)},
		resource.TestStep{
			// Purged out of band: the next plan creates it again.
			PreConfig: func() {
				if _, _, err := acctest.Nomad(t).Jobs().Deregister(name, true, nil); err != nil {
					t.Fatal(err)
				}
			},
			Config: cfg,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(acctest.InstanceAddr, plancheck.ResourceActionCreate),
			}},
			Check: expectRunning(t, name, 1),
		},
	))
}

// TestAccInstance_unmanagedCountIsKept: with replicas unset, a scale done
// in Nomad (an autoscaler, `nomad job scale`) is not drift, and an apply
// that changes something else keeps it.
func TestAccInstance_unmanagedCountIsKept(t *testing.T) {
	name := startInstanceTest(t)
	cfg := acctest.InstanceConfig{Name: name, App: `env = { V = "1" }`}.String()
	changed := acctest.InstanceConfig{Name: name, App: `env = { V = "2" }`}.String()
	acctest.TestJobSteps(t, name, []resource.TestStep{
		{Config: cfg, Check: expectRunning(t, name, 1)},
		{
			PreConfig: func() {
				c := acctest.Nomad(t)
				if _, _, err := c.Jobs().Scale(name, "app", acctest.Ptr(2), "autoscaler", false, nil, nil); err != nil {
					t.Fatal(err)
				}
				acctest.WaitFor(t, "two running allocations", time.Minute, func() (bool, error) {
					allocs, _, err := c.Jobs().Allocations(name, false, nil)
					return err == nil && acctest.RunningAllocs(allocs) == 2, err
				})
			},
			Config: cfg,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				acctest.ExpectNoChanges{},
			}},
		},
		{
			Config: changed,
			Check: acctest.WithJob(t, name, func(job *api.Job, allocs []*api.AllocationListStub) error {
				if *job.TaskGroups[0].Count != 2 || acctest.RunningAllocs(allocs) != 2 {
					return fmt.Errorf("count %d with %d running, want the autoscaler's 2 kept", *job.TaskGroups[0].Count, acctest.RunningAllocs(allocs))
				}
				return nil
			}),
		},
	})
}

// TestAccInstance_failingTask: a task that exits 1 fails the apply with
// the task's own events, and the instance stays in state, tainted.
func TestAccInstance_failingTask(t *testing.T) {
	name := startInstanceTest(t)
	cfg := fmt.Sprintf(`
resource "berth_instance" "t" {
  name     = %q
  replicas = 1
  update   = { min_healthy_time = "1s", healthy_deadline = "5s", progress_deadline = "10s" }
  services = {
    app = { driver = "raw_exec", command = "/bin/sh", args = ["-c", "echo boom >&2; exit 1"], cpu = 50, memory = 32 }
  }
}`, name)
	acctest.TestJobSteps(t, name, []resource.TestStep{
		{
			Config:      cfg,
			ExpectError: regexp.MustCompile(`(?s)did not become healthy.*task "app".*Exit Code: 1`),
		},
		{
			// It is in state (tainted): the plan replaces it.
			Config:             cfg,
			PlanOnly:           true,
			ExpectNonEmptyPlan: true,
		},
	})
}
