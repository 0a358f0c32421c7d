package instance

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/hashicorp/nomad/api"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
)

func TestAccInstance_lifecycleAndUpdate(t *testing.T) {
	name := startInstanceTest(t)
	cfg := acctest.InstanceConfig{
		Name: name,
		Extra: `replicas = 1
  meta = { team = "acc" }`,
		App: `env = { LOG_LEVEL = "info" }`,
		More: `migrate = { role = "init", driver = "raw_exec", command = "/bin/sh", args = ["-c", "echo migrated"], cpu = 50, memory = 32 }
    shipper = { role = "sidecar", driver = "raw_exec", command = "/bin/sleep", args = ["3600"], cpu = 50, memory = 32 }`,
	}
	updated := cfg
	updated.App = `env = { LOG_LEVEL = "debug" }`

	acctest.TestJobSteps(t, name, []resource.TestStep{
		{
			Config: cfg.String(),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(acctest.InstanceAddr, plancheck.ResourceActionCreate),
				plancheck.ExpectKnownValue(acctest.InstanceAddr, tfjsonpath.New("id"), knownvalue.StringExact("default/"+name)),
			}},
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(acctest.InstanceAddr, tfjsonpath.New("job_version"), knownvalue.Int64Exact(0)),
				statecheck.ExpectKnownValue(acctest.InstanceAddr, tfjsonpath.New("deployment_status"), knownvalue.StringExact("successful")),
			},
			Check: acctest.WithJob(t, name, func(job *api.Job, allocs []*api.AllocationListStub) error {
				if job.Meta["berth.kind"] != "instance" || job.Meta["team"] != "acc" {
					return fmt.Errorf("job meta = %v", job.Meta)
				}
				hooks := map[string]string{}
				for _, task := range job.TaskGroups[0].Tasks {
					if task.Lifecycle == nil {
						hooks[task.Name] = "none"
					} else {
						hooks[task.Name] = fmt.Sprintf("%s/sidecar=%v", task.Lifecycle.Hook, task.Lifecycle.Sidecar)
					}
				}
				want := map[string]string{"app": "none", "migrate": "prestart/sidecar=false", "shipper": "poststart/sidecar=true"}
				if fmt.Sprint(hooks) != fmt.Sprint(want) {
					return fmt.Errorf("lifecycle hooks = %v, want %v", hooks, want)
				}
				if acctest.RunningAllocs(allocs) != 1 {
					return fmt.Errorf("%d running allocations, want 1", acctest.RunningAllocs(allocs))
				}
				ts := allocs[0].TaskStates
				if ts["migrate"] == nil || ts["migrate"].State != "dead" || ts["migrate"].Failed {
					return fmt.Errorf("init task should have completed: %+v", ts["migrate"])
				}
				if ts["shipper"] == nil || ts["shipper"].State != "running" {
					return fmt.Errorf("sidecar should run: %+v", ts["shipper"])
				}
				return nil
			}),
		},
		{
			Config: updated.String(),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(acctest.InstanceAddr, plancheck.ResourceActionUpdate),
			}},
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(acctest.InstanceAddr, tfjsonpath.New("job_version"), knownvalue.Int64Exact(1)),
				statecheck.ExpectKnownValue(acctest.InstanceAddr, tfjsonpath.New("deployment_status"), knownvalue.StringExact("successful")),
			},
			Check: acctest.WithJob(t, name, func(job *api.Job, _ []*api.AllocationListStub) error {
				if v := job.TaskGroups[0].Tasks[0].Env["LOG_LEVEL"]; v != "debug" {
					return fmt.Errorf("env LOG_LEVEL in Nomad = %q", v)
				}
				dep, _, err := acctest.Nomad(t).Jobs().LatestDeployment(name, nil)
				if err != nil || dep == nil || dep.JobVersion != 1 || dep.Status != "successful" {
					return fmt.Errorf("latest deployment = %+v (err %v), want version 1 successful", dep, err)
				}
				return nil
			}),
		},
	})
}

// A name Nomad already has a job under is refused at apply with the import
// hint, and the job is left as it was: the registration is check-and-set
// at index 0, so berth never looks the name up first when it writes
// nothing before the job.
func TestAccInstance_nameTakenByOutsideJob(t *testing.T) {
	acctest.PreCheck(t)
	name := acctest.RegisterOutsideJob(t, "", acctest.ReadyNodeID(t), 20, 16)
	before, _, err := acctest.Nomad(t).Jobs().Info(name, nil)
	if err != nil {
		t.Fatal(err)
	}
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config:      acctest.InstanceConfig{Name: name}.String(),
			ExpectError: regexp.MustCompile(`(?s)Job already exists.*not managed by berth.*terraform import`),
		}},
		CheckDestroy: acctest.WithJob(t, name, func(job *api.Job, _ []*api.AllocationListStub) error {
			if *job.JobModifyIndex != *before.JobModifyIndex || *job.TaskGroups[0].Name != "outside" {
				return fmt.Errorf("the outside job changed: modify index %d -> %d, group %s",
					*before.JobModifyIndex, *job.JobModifyIndex, *job.TaskGroups[0].Name)
			}
			return nil
		}),
	})
}

// expectKillSignal checks the app task's kill signal in Nomad.
func expectKillSignal(t *testing.T, name, want string) resource.TestCheckFunc {
	return acctest.WithJob(t, name, func(job *api.Job, _ []*api.AllocationListStub) error {
		if got := appTask(job).KillSignal; got != want {
			return fmt.Errorf("app task kill_signal in Nomad = %q, want %q", got, want)
		}
		return nil
	})
}

// TestAccInstance_killSignal: kill_signal reaches Nomad's task, a change
// made in Nomad is drift that the next apply puts back, and unsetting it
// leaves Nomad's default.
func TestAccInstance_killSignal(t *testing.T) {
	name := startInstanceTest(t)
	cfg := acctest.InstanceConfig{Name: name, App: `kill_signal = "SIGTERM"`}.String()
	killSignal := tfjsonpath.New("services").AtMapKey("app").AtMapKey("kill_signal")
	acctest.TestJobSteps(t, name, []resource.TestStep{
		{
			Config: cfg,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(acctest.InstanceAddr, plancheck.ResourceActionCreate),
				plancheck.ExpectKnownValue(acctest.InstanceAddr, killSignal, knownvalue.StringExact("SIGTERM")),
			}},
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(acctest.InstanceAddr, killSignal, knownvalue.StringExact("SIGTERM")),
			},
			Check: expectKillSignal(t, name, "SIGTERM"),
		},
		{
			// Changed in Nomad: a refresh reads Nomad's value into state.
			PreConfig:          acctest.MutateJob(t, name, func(j *api.Job) { appTask(j).KillSignal = "SIGQUIT" }),
			RefreshState:       true,
			ExpectNonEmptyPlan: true,
			Check:              resource.TestCheckResourceAttr(acctest.InstanceAddr, "services.app.kill_signal", "SIGQUIT"),
		},
		{
			Config: cfg,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(acctest.InstanceAddr, plancheck.ResourceActionUpdate),
				plancheck.ExpectKnownValue(acctest.InstanceAddr, killSignal, knownvalue.StringExact("SIGTERM")),
			}},
			Check: expectKillSignal(t, name, "SIGTERM"),
		},
		{
			Config: acctest.InstanceConfig{Name: name}.String(),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(acctest.InstanceAddr, plancheck.ResourceActionUpdate),
				plancheck.ExpectKnownValue(acctest.InstanceAddr, killSignal, knownvalue.Null()),
			}},
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(acctest.InstanceAddr, killSignal, knownvalue.Null()),
			},
			Check: expectKillSignal(t, name, ""),
		},
	})
}
