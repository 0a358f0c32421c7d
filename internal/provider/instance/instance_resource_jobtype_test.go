package instance

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
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
	"github.com/berthhq/terraform-provider-berth/internal/devagent"
)

// jobTypeConfig is an instance of the given type with one raw_exec task
// running command with args; extra goes into the resource body.
func jobTypeConfig(name, typ, command, args, extra string) string {
	return fmt.Sprintf(`
resource "berth_instance" "t" {
  name = %q
  type = %q
  %s
  services = {
    app = { driver = "raw_exec", command = %q, args = %s, cpu = 50, memory = 32 }
  }
}
`, name, typ, extra, command, args)
}

func jobTypeName(t *testing.T) string {
	return "berth-acc-type-" + strings.ToLower(strings.TrimPrefix(t.Name(), "TestAccInstanceJobType_")) + "-" + acctest.RandomHex(3)
}

// expectBatchComplete checks in Nomad that the job is a batch job without
// an update block whose allocations of the current version all completed,
// and hands their IDs to got.
func expectBatchComplete(t *testing.T, name string, got func(ids []string)) resource.TestCheckFunc {
	return acctest.WithJob(t, name, func(job *api.Job, allocs []*api.AllocationListStub) error {
		if deref(job.Type) != "batch" || job.TaskGroups[0].Update != nil {
			return fmt.Errorf("job type %q, group update %+v; want a batch job without update", deref(job.Type), job.TaskGroups[0].Update)
		}
		var ids []string
		for _, a := range allocs {
			if a.JobVersion != deref(job.Version) {
				continue
			}
			if a.ClientStatus != api.AllocClientStatusComplete {
				return fmt.Errorf("allocation %s of version %d is %q, want complete", a.ID, a.JobVersion, a.ClientStatus)
			}
			ids = append(ids, a.ID)
		}
		if len(ids) != 1 {
			return fmt.Errorf("%d allocations of version %d, want 1", len(ids), deref(job.Version))
		}
		if got != nil {
			got(ids)
		}
		return nil
	})
}

// TestAccInstanceJobType_batch: a batch job that exits 0 applies and reads
// complete; the next plan is empty; changing its args runs it again (a new
// allocation); a job Nomad garbage-collected after completion stays in
// state and a later change registers it anew; changing the type replaces
// the instance.
func TestAccInstanceJobType_batch(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	name := jobTypeName(t)
	first := jobTypeConfig(name, "batch", "/bin/sh", `["-c", "echo run-1"]`, "")
	second := jobTypeConfig(name, "batch", "/bin/sh", `["-c", "echo run-2"]`, "")
	third := jobTypeConfig(name, "batch", "/bin/sh", `["-c", "echo run-3"]`, "")
	var firstAlloc, secondAlloc string
	completed := []statecheck.StateCheck{
		statecheck.ExpectKnownValue(acctest.InstanceAddr, tfjsonpath.New("update"), knownvalue.Null()),
		statecheck.ExpectKnownValue(acctest.InstanceAddr, tfjsonpath.New("running"), knownvalue.Bool(true)),
	}
	acctest.TestJobSteps(t, name, checkedByNomad(t, []resource.TestStep{
		{
			Config: first,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(acctest.InstanceAddr, plancheck.ResourceActionCreate),
				plancheck.ExpectKnownValue(acctest.InstanceAddr, tfjsonpath.New("update"), knownvalue.Null()),
			}},
			ConfigStateChecks: completed,
			Check:             expectBatchComplete(t, name, func(ids []string) { firstAlloc = ids[0] }),
		},
		{
			// A completed batch job is no change.
			Config:   first,
			PlanOnly: true,
		},
		{
			Config: second,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(acctest.InstanceAddr, plancheck.ResourceActionUpdate),
			}},
			ConfigStateChecks: append(completed,
				statecheck.ExpectKnownValue(acctest.InstanceAddr, tfjsonpath.New("job_version"), knownvalue.Int64Exact(1))),
			Check: expectBatchComplete(t, name, func(ids []string) {
				secondAlloc = ids[0]
				if secondAlloc == firstAlloc {
					t.Errorf("changing args did not run the job again: allocation %s is still the current one", firstAlloc)
				}
			}),
		},
		// Import reads the same: type, and update null.
		importVerified("default/" + name),
		{
			// Nomad garbage-collects dead batch jobs (a forced GC
			// would collect other tests' stopped jobs too, so the
			// job is purged the same way here): no plan to re-run it.
			PreConfig: func() {
				if _, _, err := acctest.Nomad(t).Jobs().Deregister(name, true, nil); err != nil {
					t.Fatalf("purging job %q: %v", name, err)
				}
			},
			Config:   second,
			PlanOnly: true,
		},
		{
			// A change registers it anew, and it runs again.
			Config: third,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(acctest.InstanceAddr, plancheck.ResourceActionUpdate),
			}},
			ConfigStateChecks: completed,
			Check: expectBatchComplete(t, name, func(ids []string) {
				if ids[0] == secondAlloc {
					t.Errorf("the re-registered job did not run again")
				}
			}),
		},
		{
			Config: jobTypeConfig(name, "service", "/bin/sleep", `["3600"]`,
				`update = { min_healthy_time = "1s", healthy_deadline = "30s", progress_deadline = "1m" }`),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(acctest.InstanceAddr, plancheck.ResourceActionDestroyBeforeCreate),
			}},
			Check: acctest.WithJob(t, name, func(job *api.Job, allocs []*api.AllocationListStub) error {
				if deref(job.Type) != "service" {
					return fmt.Errorf("job type in Nomad = %q, want service", deref(job.Type))
				}
				if acctest.RunningAllocs(allocs) != 1 {
					return fmt.Errorf("%d running allocations, want 1", acctest.RunningAllocs(allocs))
				}
				return nil
			}),
		},
	}...))
}

// TestAccInstanceJobType_batchFails: a batch job that exits 1 fails the
// apply, quoting the exit code; Nomad holds a failed allocation.
func TestAccInstanceJobType_batchFails(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	name := jobTypeName(t)
	want := regexp.MustCompile(`(?s)did\s+not\s+complete.*batch\s+job\s+version\s+0\s+failed.*task\s+"app"\s+failed\s+with\s+exit\s+code\s+1`)
	var sawError bool
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy:             acctest.CheckInstanceDestroyed(t, name),
		// Called with the step's error before anything is destroyed, so
		// Nomad is checked in the state the failed apply left.
		ErrorCheck: func(err error) error {
			if err == nil || !want.MatchString(err.Error()) {
				return fmt.Errorf("apply error = %v, want one matching %s", err, want)
			}
			sawError = true
			return acctest.WithJob(t, name, func(_ *api.Job, allocs []*api.AllocationListStub) error {
				for _, a := range allocs {
					if a.ClientStatus == api.AllocClientStatusFailed {
						return nil
					}
				}
				return fmt.Errorf("no failed allocation in Nomad: %d allocations", len(allocs))
			})(nil)
		},
		Steps: []resource.TestStep{{
			// No restarts or reschedules, so the failure is final at once.
			Config: jobTypeConfig(name, "batch", "/bin/sh", `["-c", "echo broken >&2; exit 1"]`,
				`policies = { restart = { attempts = 0 }, reschedule = { attempts = 0, unlimited = false } }`),
		}},
	})
	if !sawError {
		t.Error("the apply of a failing batch job succeeded")
	}
}

// TestAccInstanceJobType_system: a system job runs one allocation on each
// ready node of its node pool, replicas reads null, a node that joins the
// pool later gets one from Nomad itself, and the plan stays empty.
func TestAccInstanceJobType_system(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	if acctest.MainAgent == nil {
		t.Skip("needs a Nomad server started by the tests or make (extra client agents join it)")
	}
	name := jobTypeName(t)
	pool := "berth-acc-sys-" + acctest.RandomHex(4)
	nodes := map[string]bool{}
	for i := range 2 {
		a, err := acctest.StartClient(devagent.Options{Name: fmt.Sprintf("%s-%d", pool, i), NodePool: pool})
		if err != nil {
			t.Fatal(err)
		}
		nodes[a.NodeID] = true
	}
	cfg := jobTypeConfig(name, "system", "/bin/sleep", `["3600"]`, fmt.Sprintf("node_pool = %q", pool))
	acctest.TestJobSteps(t, name, []resource.TestStep{
		{
			Config: cfg,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(acctest.InstanceAddr, plancheck.ResourceActionCreate),
				plancheck.ExpectKnownValue(acctest.InstanceAddr, tfjsonpath.New("replicas"), knownvalue.Null()),
			}},
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(acctest.InstanceAddr, tfjsonpath.New("replicas"), knownvalue.Null()),
				statecheck.ExpectKnownValue(acctest.InstanceAddr, tfjsonpath.New("type"), knownvalue.StringExact("system")),
			},
			Check: expectOnePerNode(t, name, nodes),
		},
		// Import reads the same: type, and replicas null.
		importVerified("default/" + name),
		{
			// A node joins the pool: Nomad places the job there itself.
			PreConfig: func() {
				a, err := acctest.StartClient(devagent.Options{Name: pool + "-late", NodePool: pool})
				if err != nil {
					t.Fatal(err)
				}
				nodes[a.NodeID] = true
				waitRunningOn(t, name, a.NodeID)
			},
			Config:   cfg,
			PlanOnly: true,
		},
		{
			Config: cfg,
			Check:  expectOnePerNode(t, name, nodes),
		},
	})
}

// expectOnePerNode checks in Nomad that the job runs exactly one
// allocation on each of nodes and none elsewhere.
func expectOnePerNode(t *testing.T, name string, nodes map[string]bool) resource.TestCheckFunc {
	return acctest.WithJob(t, name, func(job *api.Job, allocs []*api.AllocationListStub) error {
		if deref(job.Type) != "system" {
			return fmt.Errorf("job type in Nomad = %q, want system", deref(job.Type))
		}
		per := map[string]int{}
		for _, a := range allocs {
			if a.ClientStatus == api.AllocClientStatusRunning && a.DesiredStatus == api.AllocDesiredStatusRun {
				per[a.NodeID]++
			}
		}
		for id := range nodes {
			if per[id] != 1 {
				return fmt.Errorf("node %s runs %d allocations, want 1 (%v)", id, per[id], per)
			}
		}
		if len(per) != len(nodes) {
			return fmt.Errorf("allocations run on %d nodes, want %d (%v)", len(per), len(nodes), per)
		}
		return nil
	})
}

// waitRunningOn waits (blocking queries, bounded) until the job runs an
// allocation on node.
func waitRunningOn(t *testing.T, name, node string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	var index uint64
	for {
		q := (&api.QueryOptions{WaitIndex: index, WaitTime: 30 * time.Second}).WithContext(ctx)
		allocs, meta, err := acctest.Nomad(t).Jobs().Allocations(name, false, q)
		if err != nil {
			t.Fatalf("waiting for job %q on node %s: %v", name, node, err)
		}
		index = meta.LastIndex
		for _, a := range allocs {
			if a.NodeID == node && a.ClientStatus == api.AllocClientStatusRunning {
				return
			}
		}
	}
}
