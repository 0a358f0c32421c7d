package job

import (
	"context"
	"fmt"
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
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
)

const jobAddr = "berth_job.t"

// jobConfig is a berth_job with jobspec as a heredoc.
func jobConfig(jobspec, extra string) string {
	return fmt.Sprintf(`
resource "berth_job" "t" {
  %s
  jobspec = <<-EOT
%s
  EOT
}
`, extra, jobspec)
}

// sleepTask is a jobspec task, name, that sleeps an hour on raw_exec
// (20 MHz, memory MiB); more goes into the task block. It is indented
// for a group at the jobspec's second level.
func sleepTask(name string, memory int, more string) string {
	return strings.ReplaceAll(fmt.Sprintf(`task %q {
  driver = "raw_exec"
  config {
    command = "/bin/sleep"
    args    = ["3600"]
  }
  %s
  resources {
    cpu    = 20
    memory = %d
  }
}`, name, more, memory), "\n", "\n    ")
}

// sleepJob is a job, name, of one group "g" holding groupMore and task
// "t" (sleepTask with memory 16).
func sleepJob(name, groupMore string) string {
	return fmt.Sprintf(`job %q {
  group "g" {
    %s
    %s
  }
}`, name, groupMore, sleepTask("t", 16, ""))
}

// twoGroupJobspec is a raw_exec job with two groups: web (count web,
// memory mem) and worker.
func twoGroupJobspec(name string, web, mem int) string {
	return fmt.Sprintf(`
job %q {
  group "web" {
    count = %d
    %s
  }
  group "worker" {
    %s
  }
}`, name, web, sleepTask("app", mem, `env { ROLE = "web" }`), sleepTask("run", 16, ""))
}

// expectDriftBefore checks that the plan's prior state (the refresh) names
// want among the resource's drift.
type expectDriftBefore struct{ want string }

func (e expectDriftBefore) CheckPlan(_ context.Context, req plancheck.CheckPlanRequest, resp *plancheck.CheckPlanResponse) {
	for _, rc := range req.Plan.ResourceChanges {
		if rc.Address != jobAddr {
			continue
		}
		before, _ := rc.Change.Before.(map[string]any)
		drift, _ := before["drift"].([]any)
		for _, d := range drift {
			if s, _ := d.(string); strings.Contains(s, e.want) {
				return
			}
		}
		resp.Error = fmt.Errorf("drift before the apply is %v, want an entry naming %q", drift, e.want)
		return
	}
	resp.Error = fmt.Errorf("no change planned for %s", jobAddr)
}

// TestAccJob_twoGroupsLifecycle: a two-group raw_exec job runs in Nomad
// (every allocation of both groups running); its next plan is empty; a
// field changed through Nomad's API shows in the next plan by name and the
// apply puts it back; a count change registers a new version; import by
// ID reads the job back with no drift; destroy purges it.
func TestAccJob_twoGroupsLifecycle(t *testing.T) {
	acctest.PreCheck(t)
	name := "berth-acc-job-" + acctest.RandomHex(3)
	nomad := acctest.Nomad(t)
	groups := func(web int) resource.TestCheckFunc {
		return acctest.WithJob(t, name, func(job *api.Job, allocs []*api.AllocationListStub) error {
			if len(job.TaskGroups) != 2 || *job.TaskGroups[0].Count != web {
				return fmt.Errorf("%d groups, web count %d; want 2 groups, web %d", len(job.TaskGroups), *job.TaskGroups[0].Count, web)
			}
			if got := acctest.RunningAllocs(allocs); got != web+1 {
				return fmt.Errorf("%d running allocations, want %d", got, web+1)
			}
			return nil
		})
	}
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: jobConfig(twoGroupJobspec(name, 2, 32), ""),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(jobAddr, plancheck.ResourceActionCreate),
					plancheck.ExpectKnownValue(jobAddr, tfjsonpath.New("scheduler_plan"), knownvalue.MapExact(map[string]knownvalue.Check{
						"web": knownvalue.StringExact("2 create"), "worker": knownvalue.StringExact("1 create"),
					})),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(jobAddr, tfjsonpath.New("name"), knownvalue.StringExact(name)),
					statecheck.ExpectKnownValue(jobAddr, tfjsonpath.New("type"), knownvalue.StringExact("service")),
					statecheck.ExpectKnownValue(jobAddr, tfjsonpath.New("drift"), knownvalue.ListSizeExact(0)),
				},
				Check: groups(2),
			},
			{
				// Changed behind Terraform's back: memory and the env.
				PreConfig: func() {
					job, _, err := nomad.Jobs().Info(name, nil)
					if err != nil {
						t.Fatal(err)
					}
					task := job.TaskGroups[0].Tasks[0]
					task.Resources.MemoryMB = acctest.Ptr(48)
					task.Env["ROLE"] = "changed"
					if _, _, err := nomad.Jobs().Register(job, nil); err != nil {
						t.Fatal(err)
					}
				},
				Config: jobConfig(twoGroupJobspec(name, 2, 32), ""),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(jobAddr, plancheck.ResourceActionUpdate),
					expectDriftBefore{`group "web" / task "app" / resources.memory: 48 → 32`},
					expectDriftBefore{`group "web" / task "app" / env`},
				}},
				Check: acctest.WithJob(t, name, func(job *api.Job, _ []*api.AllocationListStub) error {
					task := job.TaskGroups[0].Tasks[0]
					if *task.Resources.MemoryMB != 32 || task.Env["ROLE"] != "web" {
						return fmt.Errorf("memory %d, ROLE %q in Nomad; want 32 and web put back", *task.Resources.MemoryMB, task.Env["ROLE"])
					}
					return nil
				}),
			},
			{
				// The apply before waited; once Nomad has also finished
				// its follow-up evaluations the job is at rest, so the
				// scheduler's counts are planned.
				PreConfig: func() { waitJobAtRest(t, name) },
				Config:    jobConfig(twoGroupJobspec(name, 1, 32), ""),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(jobAddr, plancheck.ResourceActionUpdate),
					plancheck.ExpectKnownValue(jobAddr, tfjsonpath.New("scheduler_plan"), knownvalue.MapExact(map[string]knownvalue.Check{
						"web": knownvalue.StringExact("1 in-place update, 1 destroy"), "worker": knownvalue.StringExact("1 in-place update"),
					})),
				}},
				Check: groups(1),
			},
			{
				// The hand-written HCL imports to a no-op plan: berth
				// registered the job with its source, and import reads it.
				Config:          jobConfig(twoGroupJobspec(name, 1, 32), ""),
				ResourceName:    jobAddr,
				ImportState:     true,
				ImportStateKind: resource.ImportBlockWithID,
				ImportStateId:   "default/" + name,
			},
			{
				// A job registered through the API without its source
				// imports as the JSON Nomad holds.
				PreConfig: func() {
					job, _, err := nomad.Jobs().Info(name, nil)
					if err != nil {
						t.Fatal(err)
					}
					job.Meta = map[string]string{"via": "api"}
					if _, _, err := nomad.Jobs().Register(job, nil); err != nil {
						t.Fatal(err)
					}
				},
				Config:        jobConfig(twoGroupJobspec(name, 1, 32), ""),
				ResourceName:  jobAddr,
				ImportState:   true,
				ImportStateId: "default/" + name,
				ImportStateCheck: func(states []*terraform.InstanceState) error {
					attrs := states[0].Attributes
					if attrs["format"] != "json" || !strings.HasPrefix(attrs["jobspec"], "{") || !strings.Contains(attrs["jobspec"], `"via":"api"`) ||
						attrs["drift.#"] != "0" || attrs["name"] != name {
						return fmt.Errorf("imported format %q, %s drifted fields, name %q, jobspec %.80q", attrs["format"], attrs["drift.#"],
							attrs["name"], attrs["jobspec"])
					}
					return nil
				},
			},
		},
		CheckDestroy: func(*terraform.State) error {
			if _, _, err := nomad.Jobs().Info(name, nil); err == nil || !strings.Contains(err.Error(), "404") {
				return fmt.Errorf("job %s still in Nomad after destroy (err %v)", name, err)
			}
			return nil
		},
	})
}

// TestAccJob_periodicAndSysbatch: a periodic batch job is registered (its
// runs are Nomad's to launch) and reads back as periodic, and a forced
// launch runs to completion without changing it; a sysbatch job
// runs to completion on the node before the apply returns.
func TestAccJob_periodicAndSysbatch(t *testing.T) {
	acctest.PreCheck(t)
	periodic, sysbatch := "berth-acc-job-cron-"+acctest.RandomHex(3), "berth-acc-job-sys-"+acctest.RandomHex(3)
	config := fmt.Sprintf(`
resource "berth_job" "cron" {
  jobspec = <<-EOT
    job %q {
      type = "batch"
      periodic {
        crons            = ["0 3 * * *"]
        prohibit_overlap = true
      }
      group "g" {
        task "t" {
          driver = "raw_exec"
          config { command = "/bin/true" }
          resources {
            cpu    = 20
            memory = 16
          }
        }
      }
    }
  EOT
}

resource "berth_job" "sys" {
  jobspec = <<-EOT
    job %q {
      type = "sysbatch"
      group "g" {
        task "t" {
          driver = "raw_exec"
          config {
            command = "/bin/sh"
            args    = ["-c", "echo done"]
          }
          resources {
            cpu    = 20
            memory = 16
          }
        }
      }
    }
  EOT
}
`, periodic, sysbatch)
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: config,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("berth_job.sys", tfjsonpath.New("type"), knownvalue.StringExact("sysbatch")),
			},
			Check: resource.ComposeTestCheckFunc(
				acctest.WithJob(t, periodic, func(job *api.Job, allocs []*api.AllocationListStub) error {
					if job.Periodic == nil || len(job.Periodic.Specs) != 1 || job.Periodic.Specs[0] != "0 3 * * *" || len(allocs) != 0 {
						return fmt.Errorf("periodic %+v, %d allocations; want the cron and none launched", job.Periodic, len(allocs))
					}
					return nil
				}),
				acctest.WithJob(t, sysbatch, func(job *api.Job, allocs []*api.AllocationListStub) error {
					done := 0
					for _, a := range allocs {
						if a.ClientStatus == api.AllocClientStatusComplete {
							done++
						}
					}
					if done == 0 || done != len(allocs) {
						return fmt.Errorf("%d of %d allocations complete; want all, at least one", done, len(allocs))
					}
					return nil
				}),
			),
		}, {
			// A launch (forced, as `nomad job periodic force`): a child job
			// that runs to completion; the periodic job itself is unchanged.
			PreConfig: func() {
				if _, _, err := acctest.Nomad(t).Jobs().PeriodicForce(periodic, nil); err != nil {
					t.Fatal(err)
				}
				acctest.WaitFor(t, "the periodic launch to complete", 2*time.Minute, func() (bool, error) {
					stubs, _, err := acctest.Nomad(t).Jobs().PrefixList(periodic + "/periodic-")
					if err != nil || len(stubs) != 1 {
						return false, fmt.Errorf("%d launches (%v)", len(stubs), err)
					}
					allocs, _, err := acctest.Nomad(t).Jobs().Allocations(stubs[0].ID, false, nil)
					if err != nil || len(allocs) != 1 || allocs[0].ClientStatus != api.AllocClientStatusComplete {
						return false, fmt.Errorf("launch %s: %d allocations (%v)", stubs[0].ID, len(allocs), err)
					}
					return true, nil
				})
			},
			Config:   config,
			PlanOnly: true, // nothing drifts: Nomad's defaults are not the jobspec's, nor a launch
		}},
	})
}

// A jobspec Nomad's parser refuses is one error at validate, naming the
// line, and nothing reaches Nomad.
func TestAccJob_invalidJobspec(t *testing.T) {
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config:      jobConfig("job \"x\" {\n  group \"g\" {\n    bogus = 1\n  }\n}", ""),
			PlanOnly:    true,
			ExpectError: regexp.MustCompile(`(?s)Invalid jobspec.*line 3.*bogus`),
		}},
	})
}

// unplaceableJobspec is a job whose group "big" no node can take: memory
// beyond any node, or a constraint no node meets.
func unplaceableJobspec(name, resources, constraint string) string {
	return fmt.Sprintf(`
job %q {
  group "big" {
    %s
    task "t" {
      driver = "raw_exec"
      config { command = "/bin/true" }
      resources {
        %s
      }
    }
  }
}`, name, constraint, resources)
}

// TestAccJob_cannotBePlaced: a job the scheduler cannot place fails the
// plan, naming the group and why (memory exhausted, a constraint that
// filters every node), and nothing is registered; with plan_failures =
// "warn" and no wait, the plan warns and the job registers, blocked.
func TestAccJob_cannotBePlaced(t *testing.T) {
	acctest.PreCheck(t)
	name := "berth-acc-job-big-" + acctest.RandomHex(3)
	nomad := acctest.Nomad(t)
	huge := "cpu = 20\n memory = 100000000"
	windows := `constraint {
      attribute = "$${attr.kernel.name}"
      value     = "windows"
    }`
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config:      jobConfig(unplaceableJobspec(name, huge, ""), ""),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`(?s)The job cannot be placed.*group "big": 1 allocation\(s\) not placed.*memory exhausted on [1-9]`),
			},
			{
				Config:      jobConfig(unplaceableJobspec(name, "cpu = 20\n memory = 16", windows), ""),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`(?s)The job cannot be placed.*constraint .\$\{attr.kernel.name\} = windows. filtered [1-9]`),
			},
			{
				PreConfig: func() {
					if _, _, err := nomad.Jobs().Info(name, nil); err == nil {
						t.Fatalf("job %s was registered by a plan that failed", name)
					}
				},
				Config: jobConfig(unplaceableJobspec(name, huge, ""), `plan_failures = "warn"
  wait_for_healthy = false`),
				Check: acctest.WithJob(t, name, func(job *api.Job, allocs []*api.AllocationListStub) error {
					if len(allocs) != 0 {
						return fmt.Errorf("%d allocations of a job no node can take", len(allocs))
					}
					return nil
				}),
			},
		},
	})
}

// A jobspec known only at apply (built from another resource's output)
// plans its job's name and type as unknown and registers at apply.
func TestAccJob_jobspecKnownAtApply(t *testing.T) {
	acctest.PreCheck(t)
	name := "berth-acc-job-late-" + acctest.RandomHex(3)
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: fmt.Sprintf(`
resource "terraform_data" "name" {
  input = %q
}
`, name) + jobConfig(sleepJob("${terraform_data.name.output}", ""), ""),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectUnknownValue(jobAddr, tfjsonpath.New("name")),
				plancheck.ExpectUnknownValue(jobAddr, tfjsonpath.New("type")),
			}},
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(jobAddr, tfjsonpath.New("name"), knownvalue.StringExact(name)),
			},
			Check: acctest.WithJob(t, name, func(_ *api.Job, allocs []*api.AllocationListStub) error {
				if acctest.RunningAllocs(allocs) != 1 {
					return fmt.Errorf("%d running allocations, want 1", acctest.RunningAllocs(allocs))
				}
				return nil
			}),
		}},
	})
}
