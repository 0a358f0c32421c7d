package node

import (
	"context"
	"fmt"
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
	"github.com/berthhq/terraform-provider-berth/internal/hold"
	"github.com/berthhq/terraform-provider-berth/internal/nomadclient"
)

// holdTestConfig is a node reservation on node and, with appCPU > 0, an
// instance placed into it.
func holdTestConfig(provider, node, pool, name string, res [3]int, appCPU, appMemory int) string {
	cfg := provider + fmt.Sprintf(`
resource "berth_node_reservation" "r" {
  name    = %[2]q
  node_id = %[1]q
  cpu     = %[3]d
  memory  = %[4]d
  disk    = %[5]d
}
`, node, name, res[0], res[1], res[2])
	if appCPU == 0 {
		return cfg
	}
	poolLine := ""
	if pool != "" {
		poolLine = fmt.Sprintf("node_pool = %q", pool)
	}
	return cfg + fmt.Sprintf(`
resource "berth_instance" "app" {
  name             = "%[1]s-app"
  %[2]s
  node_reservation = berth_node_reservation.r.id
  update           = { min_healthy_time = "1s", healthy_deadline = "1m", progress_deadline = "2m" }
  services = {
    app = { driver = "raw_exec", command = "/bin/sleep", args = ["3600"], cpu = %[3]d, memory = %[4]d }
  }
}
`, name, poolLine, appCPU, appMemory)
}

// checkHoldJob asserts in Nomad that the hold job of reservation name on
// node holds cpu/memory/disk, or (all zero) that there is none.
func checkHoldJob(t *testing.T, c *api.Client, node, name string, cpu, mem, disk int) resource.TestCheckFunc {
	return func(*terraform.State) error {
		id := hold.JobID(node, name)
		job, _, err := c.Jobs().Info(id, nil)
		exists := err == nil && !*job.Stop
		if cpu == 0 && mem == 0 && disk == 0 {
			// No hold job, or one that runs no allocation.
			if got, _, _ := hold.Of(job); exists && !got.IsZero() {
				return fmt.Errorf("hold job %s holds %v, want nothing", id, got)
			}
			if exists {
				allocs, _, err := c.Jobs().Allocations(id, false, nil)
				if err != nil {
					return err
				}
				if n := acctest.RunningAllocs(allocs); n > 0 {
					return fmt.Errorf("hold job %s runs %d allocations, want none", id, n)
				}
			}
			return nil
		}
		if !exists {
			return fmt.Errorf("hold job %s: %v, want one holding %d/%d/%d", id, err, cpu, mem, disk)
		}
		got, _, _ := hold.Of(job)
		if got.CPU != int64(cpu) || got.MemoryMB != int64(mem) || got.DiskMB != int64(disk) {
			return fmt.Errorf("hold job %s holds %v, want %d MHz / %d MiB / %d MiB disk", id, got, cpu, mem, disk)
		}
		if job.TaskGroups[0].Update != nil && job.TaskGroups[0].Update.MaxParallel != nil && *job.TaskGroups[0].Update.MaxParallel > 0 {
			return fmt.Errorf("hold job %s has an update block: a resize would start a deployment", id)
		}
		return nil
	}
}

func expectHold(cpu, mem, disk int64, inSync bool) statecheck.StateCheck {
	return statecheck.ExpectKnownValue("berth_node_reservation.r", tfjsonpath.New("hold"), knownvalue.ObjectPartial(map[string]knownvalue.Check{
		"cpu": knownvalue.Int64Exact(cpu), "memory": knownvalue.Int64Exact(mem), "disk": knownvalue.Int64Exact(disk),
		"in_sync": knownvalue.Bool(inSync),
	}))
}

// TestAccNodeReservationHold_keepsOutsideJobsOut: a reservation of most of
// a node's memory keeps a job registered straight through Nomad's API
// (not through berth) off the node; an instance placed into the
// reservation runs there while the outside job still cannot; when the
// instance goes, the hold grows back to the whole unused budget; and once
// the reservation is destroyed, the outside job is placed.
func TestAccNodeReservationHold_keepsOutsideJobsOut(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	f := acctest.SharedFleet(t)
	acctest.UseNodeAlone(t, f.HoldA)
	node, c := f.HoldA.NodeID, acctest.Nomad(t)
	name := "hold-out-" + acctest.RandomHex(3)
	res := [3]int{600, 800, 1000} // of 1000 MHz, 1024 MiB, 2048 MiB
	var outside string
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy: func(*terraform.State) error {
			if err := checkHoldJob(t, c, node, name, 0, 0, 0)(nil); err != nil {
				return err
			}
			acctest.WaitPlaced(t, "", outside, node) // the room is free again
			return nil
		},
		Steps: []resource.TestStep{
			{
				Config: holdTestConfig("", node, "", name, res, 0, 0),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("berth_node_reservation.r", plancheck.ResourceActionCreate),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					expectHold(600, 800, 1000, true),
					statecheck.ExpectKnownValue("berth_node_reservation.r", tfjsonpath.New("hold").AtMapKey("job_id"),
						knownvalue.StringExact(hold.JobID(node, name))),
				},
				Check: resource.ComposeTestCheckFunc(
					checkHoldJob(t, c, node, name, 600, 800, 1000),
					func(*terraform.State) error {
						// 600 MiB fits the node's 1024, but not the 224 the
						// reservation leaves, nor the 524 free for a moment
						// while the hold hands 300 MiB to the instance.
						outside = acctest.RegisterOutsideJob(t, "", node, 100, 600)
						m := acctest.WaitNotPlaced(t, "", outside)
						if m.DimensionExhausted["memory"] == 0 {
							return fmt.Errorf("the outside job was refused, but not for memory: %+v", m.DimensionExhausted)
						}
						return nil
					},
				),
			},
			{
				Config: holdTestConfig("", node, f.HoldPoolA, name, res, 200, 300),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("berth_instance.app", plancheck.ResourceActionCreate),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("berth_instance.app", tfjsonpath.New("deployment_status"), knownvalue.StringExact("successful")),
				},
				Check: resource.ComposeTestCheckFunc(
					// The instance's 200/300 and its 300 MiB of ephemeral
					// disk moved from the hold to the instance.
					checkHoldJob(t, c, node, name, 400, 500, 700),
					acctest.WithJob(t, name+"-app", func(_ *api.Job, allocs []*api.AllocationListStub) error {
						for _, a := range allocs {
							if a.ClientStatus == "running" && a.NodeID == node {
								return nil
							}
						}
						return fmt.Errorf("the instance has no running allocation on %s", node)
					}),
					func(*terraform.State) error { acctest.WaitNotPlaced(t, "", outside); return nil },
				),
			},
			{
				// Refresh reads the hold the instance's apply resized; the
				// node data sources count the hold and the instance once,
				// inside reserved.
				Config: holdTestConfig("", node, f.HoldPoolA, name, res, 200, 300) + fmt.Sprintf(`
data "berth_node" "n" {
  id = %[1]q
}
data "berth_nodes" "fits" {
  node_pool = %[2]q
  min_free  = { cpu = 400, memory = 224 }
}
data "berth_nodes" "full" {
  node_pool = %[2]q
  min_free  = { memory = 225 }
}`, node, f.HoldPoolA),
				ConfigStateChecks: []statecheck.StateCheck{expectHold(400, 500, 700, true)},
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr("data.berth_node.n", "allocated.cpu", "0"),
					resource.TestCheckResourceAttr("data.berth_node.n", "allocated.memory", "0"),
					resource.TestCheckResourceAttr("data.berth_node.n", "allocated.disk", "0"),
					resource.TestCheckResourceAttr("data.berth_node.n", "reserved.memory", "800"),
					resource.TestCheckResourceAttr("data.berth_node.n", "free.cpu", "400"),
					resource.TestCheckResourceAttr("data.berth_node.n", "free.memory", "224"),
					resource.TestCheckResourceAttr("data.berth_node.n", "free.disk", "1048"),
					resource.TestCheckResourceAttr("data.berth_nodes.fits", "nodes.#", "1"),
					resource.TestCheckResourceAttr("data.berth_nodes.full", "nodes.#", "0"),
				),
			},
			{
				Config: holdTestConfig("", node, "", name, res, 0, 0),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("berth_instance.app", plancheck.ResourceActionDestroy),
					plancheck.ExpectResourceAction("berth_node_reservation.r", plancheck.ResourceActionNoop),
				}},
				Check: resource.ComposeTestCheckFunc(
					checkHoldJob(t, c, node, name, 600, 800, 1000),
					checkHoldRunning(t, c, node, name),
					func(*terraform.State) error { acctest.WaitNotPlaced(t, "", outside); return nil },
				),
			},
		},
	})
}

// checkHoldRunning asserts that the hold job's current version has a
// running allocation: the scheduler counts it.
func checkHoldRunning(t *testing.T, c *api.Client, node, name string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		acctest.WaitPlaced(t, "", hold.JobID(node, name), node)
		job, _, err := c.Jobs().Info(hold.JobID(node, name), nil)
		if err != nil {
			return err
		}
		allocs, _, err := c.Jobs().Allocations(*job.ID, false, nil)
		if err != nil {
			return err
		}
		for _, a := range allocs {
			if a.JobVersion == *job.Version && a.DesiredStatus == "run" && a.ClientStatus == "running" {
				return nil
			}
		}
		return fmt.Errorf("hold job %s has no running allocation of version %d", *job.ID, *job.Version)
	}
}

// TestAccNodeReservationHold_exactFit: a reservation of all of a node's
// cpu and memory, fully charged to one instance, leaves nothing to hold:
// the hold job is removed and does not block the instance, which runs.
// A leftover below Nomad's smallest task (4 MiB memory) is not held either
// and is reported in `unheld`.
func TestAccNodeReservationHold_exactFit(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	f := acctest.SharedFleet(t)
	acctest.UseNodeAlone(t, f.HoldB)
	node, c := f.HoldB.NodeID, acctest.Nomad(t)
	name := "hold-fit-" + acctest.RandomHex(3)
	res := [3]int{acctest.HoldCPU, acctest.HoldMemoryMB, 1000}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy:             checkHoldJob(t, c, node, name, 0, 0, 0),
		Steps: []resource.TestStep{
			{
				Config: holdTestConfig("", node, "", name, res, 0, 0),
				Check:  checkHoldJob(t, c, node, name, acctest.HoldCPU, acctest.HoldMemoryMB, 1000),
			},
			{
				Config: holdTestConfig("", node, f.HoldPoolB, name, res, acctest.HoldCPU, acctest.HoldMemoryMB),
				Check: resource.ComposeTestCheckFunc(
					checkHoldJob(t, c, node, name, 0, 0, 0),
					acctest.WithJob(t, name+"-app", func(_ *api.Job, allocs []*api.AllocationListStub) error {
						if n := acctest.RunningAllocs(allocs); n != 1 {
							return fmt.Errorf("%d running allocations, want 1", n)
						}
						return nil
					}),
				),
			},
			{
				Config: holdTestConfig("", node, f.HoldPoolB, name, res, acctest.HoldCPU-5, acctest.HoldMemoryMB-4),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("berth_instance.app", tfjsonpath.New("deployment_status"), knownvalue.StringExact("successful")),
				},
				Check: checkHoldJob(t, c, node, name, 0, 0, 0),
			},
			{
				// The next refresh shows the sliver nothing holds.
				Config: holdTestConfig("", node, f.HoldPoolB, name, res, acctest.HoldCPU-5, acctest.HoldMemoryMB-4),
				ConfigStateChecks: []statecheck.StateCheck{
					expectHold(0, 0, 0, true),
					statecheck.ExpectKnownValue("berth_node_reservation.r", tfjsonpath.New("unheld"), knownvalue.ObjectExact(map[string]knownvalue.Check{
						"cpu": knownvalue.Int64Exact(5), "memory": knownvalue.Int64Exact(4), "disk": knownvalue.Int64Exact(700),
					})),
				},
			},
		},
	})
}

// TestAccNodeReservationHold_agentRestartAndPlanWritesNothing: holds live
// in Nomad's state, so after the agent restarts they are still there and
// a plan is empty; and a plan, even one that finds a consumer purged
// behind Terraform's back, writes neither the ledger nor the hold.
func TestAccNodeReservationHold_agentRestartAndPlanWritesNothing(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	agent, c := acctest.StartPrivateAgent(t, "berth-hold-restart")
	node, name := agent.NodeID, "hold-rs-"+acctest.RandomHex(3)
	provider := fmt.Sprintf("provider \"berth\" {\n  address = %q\n}\n", agent.Addr)
	cfg := holdTestConfig(provider, node, "", name, [3]int{500, 256, 600}, 100, 64)
	var ledgerIndex, holdIndex uint64
	indexes := func() (uint64, uint64) {
		v, _, err := c.Variables().Read(nomadclient.LedgerPath(node), nil)
		if err != nil {
			t.Fatalf("reading the ledger: %v", err)
		}
		job, _, err := c.Jobs().Info(hold.JobID(node, name), nil)
		if err != nil {
			t.Fatalf("reading the hold job: %v", err)
		}
		return v.ModifyIndex, *job.JobModifyIndex
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: cfg,
				// 500-100 MHz, 256-64 MiB, 600-300 MiB disk.
				Check: checkHoldJob(t, c, node, name, 400, 192, 300),
			},
			{
				PreConfig: func() {
					ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
					defer cancel()
					ledgerIndex, holdIndex = indexes()
					if err := agent.Kill(); err != nil {
						t.Fatal(err)
					}
					if err := agent.Restart(ctx); err != nil {
						t.Fatal(err)
					}
				},
				Config:   cfg,
				PlanOnly: true, // an empty plan after the restart
			},
			{
				PreConfig: func() {
					if l, h := indexes(); l != ledgerIndex || h != holdIndex {
						t.Fatalf("after the restart and a plan: ledger index %d (was %d), hold job index %d (was %d)", l, ledgerIndex, h, holdIndex)
					}
					if _, _, err := c.Jobs().Deregister(name+"-app", true, nil); err != nil {
						t.Fatal(err)
					}
				},
				Config:             cfg,
				PlanOnly:           true,
				ExpectNonEmptyPlan: true, // the purged instance is to be created again
			},
			{
				PreConfig: func() {
					if l, h := indexes(); l != ledgerIndex || h != holdIndex {
						t.Fatalf("a plan wrote: ledger index %d (was %d), hold job index %d (was %d)", l, ledgerIndex, h, holdIndex)
					}
				},
				Config: cfg,
				Check:  checkHoldJob(t, c, node, name, 400, 192, 300),
			},
		},
	})
}
