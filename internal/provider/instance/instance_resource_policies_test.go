package instance

import (
	"fmt"
	"reflect"
	"regexp"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
	"github.com/berthhq/terraform-provider-berth/internal/capacity"
	"github.com/berthhq/terraform-provider-berth/internal/nomadclient"
)

// TestAccInstancePolicies_failFast: with restart { attempts = 0 } and
// reschedule { attempts = 0, unlimited = false } a failing task fails the
// apply at once, well before its healthy_deadline, quoting the task events;
// Nomad neither restarted nor rescheduled it, and the policies read back
// exactly (Nomad's values for the fields left out).
func TestAccInstancePolicies_failFast(t *testing.T) {
	name := startInstanceTest(t)
	const healthyDeadline = 2 * time.Minute
	cfg := fmt.Sprintf(`
resource "berth_instance" "t" {
  name       = %q
  replicas   = 1
  update     = { min_healthy_time = "1s", healthy_deadline = %q, progress_deadline = "3m" }
  policies = {
    restart    = { attempts = 0 }
    reschedule = { attempts = 0, unlimited = false }
  }
  services = {
    app = { driver = "raw_exec", command = "/bin/sh", args = ["-c", "echo no config >&2; exit 3"], cpu = 50, memory = 32 }
  }
}`, name, healthyDeadline.String())
	var started time.Time
	acctest.TestJobSteps(t, name, []resource.TestStep{
		{
			PreConfig:   func() { started = time.Now() },
			Config:      cfg,
			ExpectError: regexp.MustCompile(`(?s)did not become healthy.*task "app".*Exit Code: 3`),
		},
		{
			// The failed create is in state (tainted), policies read in full.
			PreConfig: func() {
				if took := time.Since(started); took >= healthyDeadline {
					t.Fatalf("the failing apply took %s, not less than healthy_deadline %s", took, healthyDeadline)
				}
			},
			RefreshState:       true,
			ExpectNonEmptyPlan: true,
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttr(acctest.InstanceAddr, "policies.restart.attempts", "0"),
				resource.TestCheckResourceAttr(acctest.InstanceAddr, "policies.restart.interval", "30m"),
				resource.TestCheckResourceAttr(acctest.InstanceAddr, "policies.restart.delay", "15s"),
				resource.TestCheckResourceAttr(acctest.InstanceAddr, "policies.restart.mode", "fail"),
				resource.TestCheckResourceAttr(acctest.InstanceAddr, "policies.reschedule.attempts", "0"),
				resource.TestCheckResourceAttr(acctest.InstanceAddr, "policies.reschedule.unlimited", "false"),
				resource.TestCheckResourceAttr(acctest.InstanceAddr, "policies.reschedule.delay_function", "exponential"),
				resource.TestCheckNoResourceAttr(acctest.InstanceAddr, "policies.migrate.max_parallel"),
				acctest.WithJob(t, name, func(job *api.Job, allocs []*api.AllocationListStub) error {
					g := job.TaskGroups[0]
					if r := g.RestartPolicy; *r.Attempts != 0 || *r.Mode != "fail" {
						return fmt.Errorf("restart in Nomad = %+v", r)
					}
					if r := g.ReschedulePolicy; *r.Attempts != 0 || *r.Unlimited {
						return fmt.Errorf("reschedule in Nomad = %+v", r)
					}
					if len(allocs) != 1 {
						return fmt.Errorf("%d allocations, want 1: Nomad rescheduled the failed one", len(allocs))
					}
					if ts := allocs[0].TaskStates["app"]; allocs[0].ClientStatus != "failed" || ts == nil || ts.Restarts != 0 {
						return fmt.Errorf("allocation %s, task state %+v: want failed without restarts", allocs[0].ClientStatus, ts)
					}
					return nil
				}),
			),
		},
	})
}

// policyConfig is an instance setting every policy; unset removes priority
// and kill_timeout again.
func policyConfig(name string, unset bool) string {
	priority, kill := "priority = 60", `kill_timeout = "3s"`
	if unset {
		priority, kill = "", ""
	}
	return acctest.InstanceConfig{Name: name, Extra: `replicas = 1
  policies = {
    ` + priority + `
    restart        = { attempts = 1, interval = "10s", delay = "1s", mode = "fail" }
    reschedule     = { attempts = 0, unlimited = false }
    migrate        = { max_parallel = 2, health_check = "task_states" }
    ephemeral_disk = { size = 200, sticky = true }
  }`,
		App: `policies = {
        ` + kill + `
        shutdown_delay = "1s"
        logs           = { max_files = 2, max_file_size_mb = 5 }
        meta           = { team = "shop" }
      }`,
	}.String()
}

// expectPolicies checks the policies in Nomad.
func expectPolicies(t *testing.T, name string, priority int, kill time.Duration, restartAttempts int) resource.TestCheckFunc {
	return acctest.WithJob(t, name, func(job *api.Job, _ []*api.AllocationListStub) error {
		g, task := job.TaskGroups[0], appTask(job)
		got := []any{*job.Priority, *g.RestartPolicy.Attempts, *g.RestartPolicy.Interval, *g.RestartPolicy.Delay,
			*g.ReschedulePolicy.Attempts, *g.ReschedulePolicy.Unlimited, *g.Migrate.MaxParallel, *g.Migrate.HealthCheck,
			*g.EphemeralDisk.SizeMB, *g.EphemeralDisk.Sticky, *task.KillTimeout, task.ShutdownDelay,
			*task.LogConfig.MaxFiles, *task.LogConfig.MaxFileSizeMB, task.Meta["team"], *task.RestartPolicy.Attempts}
		want := []any{priority, restartAttempts, 10 * time.Second, time.Second, 0, false, 2, "task_states",
			200, true, kill, time.Second, 2, 5, "shop", restartAttempts}
		if !reflect.DeepEqual(got, want) {
			return fmt.Errorf("policies in Nomad = %v, want %v", got, want)
		}
		return nil
	})
}

// TestAccInstancePolicies_roundTrip: set policies reach Nomad and read back
// with an empty plan; a change made in Nomad shows in the next plan and the
// apply puts it back; unset ones are Nomad's defaults, and a change made in
// Nomad to one of them is drift too.
func TestAccInstancePolicies_roundTrip(t *testing.T) {
	name := startInstanceTest(t)
	set, unset := policyConfig(name, false), policyConfig(name, true)
	policies := tfjsonpath.New("policies")
	restartAttempts := policies.AtMapKey("restart").AtMapKey("attempts")
	priority := policies.AtMapKey("priority")
	killTimeout := tfjsonpath.New("services").AtMapKey("app").AtMapKey("policies").AtMapKey("kill_timeout")
	acctest.TestJobSteps(t, name, checkedByNomad(t, []resource.TestStep{
		{
			Config: set,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(acctest.InstanceAddr, restartAttempts, knownvalue.Int64Exact(1)),
				statecheck.ExpectKnownValue(acctest.InstanceAddr, policies.AtMapKey("migrate").AtMapKey("min_healthy_time"), knownvalue.StringExact("10s")),
				statecheck.ExpectKnownValue(acctest.InstanceAddr, policies.AtMapKey("ephemeral_disk").AtMapKey("migrate"), knownvalue.Bool(false)),
			},
			Check: expectPolicies(t, name, 60, 3*time.Second, 1),
		},
		{
			// Changed in Nomad: the plan puts restart.attempts back.
			Config: set,
			PreConfig: acctest.MutateJob(t, name, func(j *api.Job) {
				j.TaskGroups[0].RestartPolicy.Attempts = acctest.Ptr(4)
				for _, task := range j.TaskGroups[0].Tasks {
					task.RestartPolicy = nil // the tasks take the group's, as berth sends it
				}
			}),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(acctest.InstanceAddr, plancheck.ResourceActionUpdate),
				plancheck.ExpectKnownValue(acctest.InstanceAddr, restartAttempts, knownvalue.Int64Exact(1)),
			}},
			Check: expectPolicies(t, name, 60, 3*time.Second, 1),
		},
		{
			// Unset: Nomad's defaults, null in state.
			Config: unset,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(acctest.InstanceAddr, priority, knownvalue.Null()),
				statecheck.ExpectKnownValue(acctest.InstanceAddr, killTimeout, knownvalue.Null()),
			},
			Check: expectPolicies(t, name, 50, 5*time.Second, 1),
		},
		planShowsUpdate(unset, acctest.MutateJob(t, name, func(j *api.Job) { j.Priority = acctest.Ptr(70) })),
		{
			Config: unset,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(acctest.InstanceAddr, plancheck.ResourceActionUpdate),
				plancheck.ExpectKnownValue(acctest.InstanceAddr, priority, knownvalue.Null()),
			}},
			Check: expectPolicies(t, name, 50, 5*time.Second, 1),
		},
	}...))
}

// TestAccInstancePolicies_lifecycleRoles: every role maps onto its Nomad
// lifecycle block and the instance becomes healthy with all of them.
func TestAccInstancePolicies_lifecycleRoles(t *testing.T) {
	name := startInstanceTest(t)
	oneShot := `driver = "raw_exec", command = "/bin/sh", args = ["-c", "exit 0"], cpu = 20, memory = 16`
	long := `driver = "raw_exec", command = "/bin/sleep", args = ["3600"], cpu = 20, memory = 16`
	cfg := acctest.InstanceConfig{Name: name, Extra: "replicas = 1", More: fmt.Sprintf(`
    setup  = { role = "init", %[1]s }
    proxy  = { role = "prestart_sidecar", %[2]s }
    agent  = { role = "sidecar", %[2]s }
    notify = { role = "poststart", %[1]s }
    drain  = { role = "poststop", %[1]s }`, oneShot, long)}.String()
	want := map[string]*api.TaskLifecycle{
		"app":    nil,
		"setup":  {Hook: "prestart"},
		"proxy":  {Hook: "prestart", Sidecar: true},
		"agent":  {Hook: "poststart", Sidecar: true},
		"notify": {Hook: "poststart"},
		"drain":  {Hook: "poststop"},
	}
	acctest.TestJobSteps(t, name, []resource.TestStep{{
		Config: cfg,
		ConfigStateChecks: []statecheck.StateCheck{
			statecheck.ExpectKnownValue(acctest.InstanceAddr, tfjsonpath.New("deployment_status"), knownvalue.StringExact("successful")),
		},
		Check: acctest.WithJob(t, name, func(job *api.Job, allocs []*api.AllocationListStub) error {
			got := map[string]*api.TaskLifecycle{}
			for _, task := range job.TaskGroups[0].Tasks {
				got[task.Name] = task.Lifecycle
			}
			if !reflect.DeepEqual(got, want) {
				return fmt.Errorf("lifecycles in Nomad = %v, want %v", got, want)
			}
			if acctest.RunningAllocs(allocs) != 1 {
				return fmt.Errorf("%d running allocations, want 1", acctest.RunningAllocs(allocs))
			}
			return nil
		}),
	}})
}

// TestAccInstancePolicies_importHandWritten imports a job written by hand
// with non-default restart and reschedule policies and kill_timeout, and
// default everything else: the non-default ones import as written, the
// defaults as null, and the plan is empty.
func TestAccInstancePolicies_importHandWritten(t *testing.T) {
	name := startInstanceTest(t)
	job := &api.Job{
		ID: acctest.Ptr(name), Name: acctest.Ptr(name), Type: acctest.Ptr("service"), Datacenters: []string{"*"},
		TaskGroups: []*api.TaskGroup{{
			Name: acctest.Ptr("app"), Count: acctest.Ptr(1),
			Update: &api.UpdateStrategy{MaxParallel: acctest.Ptr(1), MinHealthyTime: acctest.Ptr(10 * time.Second),
				HealthyDeadline: acctest.Ptr(5 * time.Minute), ProgressDeadline: acctest.Ptr(10 * time.Minute)},
			RestartPolicy:    &api.RestartPolicy{Attempts: acctest.Ptr(5), Delay: acctest.Ptr(10 * time.Second)},
			ReschedulePolicy: &api.ReschedulePolicy{Attempts: acctest.Ptr(2), Interval: acctest.Ptr(time.Hour), Unlimited: acctest.Ptr(false)},
			Tasks: []*api.Task{{
				Name: "app", Driver: "raw_exec", KillTimeout: acctest.Ptr(20 * time.Second),
				Config:    map[string]any{"command": "/bin/sleep", "args": []string{"3600"}},
				Resources: &api.Resources{CPU: acctest.Ptr(50), MemoryMB: acctest.Ptr(32)},
			}},
		}},
	}
	if _, _, err := acctest.Nomad(t).Jobs().Register(job, nil); err != nil {
		t.Fatal(err)
	}
	cfg := fmt.Sprintf(`
resource "berth_instance" "t" {
  name       = %q
  replicas   = 1
  policies = {
    restart    = { attempts = 5, delay = "10s" }
    reschedule = { attempts = 2, interval = "1h", unlimited = false }
  }
  services = {
    app = { driver = "raw_exec", command = "/bin/sleep", args = ["3600"], cpu = 50, memory = 32, policies = { kill_timeout = "20s" } }
  }
}`, name)
	acctest.TestJobSteps(t, name, adoptSteps(cfg, name, importedAttrs(
		map[string]string{"policies.restart.attempts": "5", "policies.restart.interval": "30m",
			"policies.reschedule.delay_function": "exponential", "services.app.policies.kill_timeout": "20s"},
		[]string{"policies.priority", "policies.migrate.%", "policies.ephemeral_disk.%", "services.app.policies.logs.%",
			"services.app.policies.shutdown_delay"})))
}

// TestAccInstancePolicies_diskCharge: an instance placed into a node
// reservation is charged its ephemeral_disk.size per allocation, not
// Nomad's default; the plan-time budget check uses the same size, and the
// allocations in Nomad ask for it.
func TestAccInstancePolicies_diskCharge(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	n := acctest.ConsumerFleet(t)
	node := n.A.NodeID
	app := "berth-acc-disk-" + acctest.RandomHex(3)
	resName := "disk-" + app[len(app)-6:]
	cfg := func(sizeMB int) string {
		return fmt.Sprintf(`
resource "berth_node_reservation" "r" {
  name    = %q
  node_id = %q
  cpu     = 400
  memory  = 400
  disk    = 1000
}
resource "berth_instance" "app" {
  name             = %q
  node_pool        = %q
  node_reservation = berth_node_reservation.r.id
  replicas         = 2
  policies         = { ephemeral_disk = { size = %d } }
  update           = { min_healthy_time = "1s", healthy_deadline = "1m", progress_deadline = "2m" }
  services = {
    app = {
      driver = "raw_exec", command = "/bin/sleep", args = ["3600"], cpu = 100, memory = 64
      policies = { logs = { max_files = 2, max_file_size_mb = 1 } }
    }
  }
}
`, resName, node, app, n.Pool, sizeMB)
	}
	key := nomadclient.InstanceConsumer("default", app)
	rec := &acctest.DiagRecorder{}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.RecordingFactories(rec),
		CheckDestroy:             acctest.CheckInstanceDestroyed(t, app),
		Steps: []resource.TestStep{
			{
				Config: cfg(100),
				Check: resource.ComposeAggregateTestCheckFunc(
					acctest.CheckCharge(t, node, resName, key, capacity.Resources{CPU: 200, MemoryMB: 128, DiskMB: 200}),
					acctest.WithJob(t, app, func(job *api.Job, allocs []*api.AllocationListStub) error {
						if got := *job.TaskGroups[0].EphemeralDisk.SizeMB; got != 100 {
							return fmt.Errorf("ephemeral disk in Nomad = %d MiB, want 100", got)
						}
						if acctest.RunningAllocs(allocs) != 2 {
							return fmt.Errorf("%d running allocations, want 2", acctest.RunningAllocs(allocs))
						}
						return nil
					}),
				),
			},
			{
				// 2 × 600 MiB do not fit in 1000.
				PreConfig:   rec.Reset,
				Config:      cfg(600),
				ExpectError: regexp.MustCompile(`(?s)Not enough left in the node reservation.*requested\s+1200`),
			},
			{
				PreConfig: func() {
					acctest.RequireRefusedAtApply(t, rec, "Not enough left in the node reservation")
					if c, _ := acctest.UsedBy(t, node, resName, key); c.DiskMB != 200 {
						t.Fatalf("charge after the refused apply: %+v, want the old 200 MiB disk", c)
					}
				},
				Config: cfg(400),
				Check:  acctest.CheckCharge(t, node, resName, key, capacity.Resources{CPU: 200, MemoryMB: 128, DiskMB: 800}),
			},
		},
	})
}
