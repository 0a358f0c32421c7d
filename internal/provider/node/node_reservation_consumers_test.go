package node

import (
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
	"github.com/berthhq/terraform-provider-berth/internal/capacity"
	"github.com/berthhq/terraform-provider-berth/internal/hold"
	"github.com/berthhq/terraform-provider-berth/internal/instance"
	"github.com/berthhq/terraform-provider-berth/internal/lease"
	"github.com/berthhq/terraform-provider-berth/internal/ledger"
	"github.com/berthhq/terraform-provider-berth/internal/nomadclient"
)

func checkNoCharge(t *testing.T, node, name, consumer string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		if got, ok := acctest.UsedBy(t, node, name, consumer); ok {
			return fmt.Errorf("%s is still charged %+v on %q", consumer, got, name)
		}
		return nil
	}
}

// consumerInstance is a berth_instance "app" in node pool pool, placed into
// the node reservation the HCL expression into names.
func consumerInstance(name, pool, into string, replicas int) string {
	return fmt.Sprintf(`
resource "berth_instance" "app" {
  name             = %q
  node_pool        = %q
  node_reservation = %s
  replicas         = %d
  update           = { min_healthy_time = "1s", healthy_deadline = "1m", progress_deadline = "2m" }
  services = {
    app = { driver = "raw_exec", command = "/bin/sleep", args = ["3600"], cpu = 100, memory = 64 }
  }
}
`, name, pool, into, replicas)
}

// instanceCharge is what consumerInstance charges: services × replicas,
// plus Nomad's default ephemeral disk per allocation.
func instanceCharge(replicas int64) capacity.Resources {
	return capacity.Resources{CPU: 100 * replicas, MemoryMB: 64 * replicas, DiskMB: instance.DefaultEphemeralDiskMB * replicas}
}

// TestAccNodeReservation_vanishedConsumers: an instance and a volume placed
// into a reservation are deleted behind Terraform's back. terraform plan
// leaves the ledger untouched (its modify index does not move, the charges
// are still there); the reservation's next resize drops both charges.
func TestAccNodeReservation_vanishedConsumers(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	n := acctest.ConsumerFleet(t)
	node := n.Quiet.NodeID
	app := "berth-acc-vanish-" + acctest.RandomHex(3)
	resName := "vanish-" + app[len(app)-6:]
	vol := app + "-vol"
	reservation := func(cpu int) string {
		return fmt.Sprintf(`
resource "berth_node_reservation" "r" {
  name    = %q
  node_id = %q
  cpu     = %d
  memory  = 256
  disk    = 1000
}
`, resName, node, cpu)
	}
	consumers := consumerInstance(app, n.QuietPool, "berth_node_reservation.r.id", 1) + fmt.Sprintf(`
resource "berth_volume" "v" {
  name             = %q
  node_reservation = berth_node_reservation.r.id
  capacity_max     = "50MiB"
}
`, vol)
	c := acctest.Nomad(t)
	holdJob := hold.JobID(node, resName)
	holdIndex := func() uint64 {
		job, _, err := c.Jobs().Info(holdJob, nil)
		if err != nil {
			t.Fatalf("reading hold job %s: %v", holdJob, err)
		}
		return *job.JobModifyIndex
	}
	var index, holdBefore uint64
	instKey, volKey := nomadclient.InstanceConsumer("default", app), nomadclient.VolumeConsumer("default", vol)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy: func(*terraform.State) error {
			if l, _ := acctest.ReadLedger(t, node); len(l.Reservations) != 0 {
				return fmt.Errorf("ledger of %s still holds %+v after destroy", node, l.Reservations)
			}
			return nil
		},
		Steps: []resource.TestStep{
			{
				Config: reservation(300) + consumers,
				Check: resource.ComposeAggregateTestCheckFunc(
					acctest.CheckCharge(t, node, resName, instKey, instanceCharge(1)),
					acctest.CheckCharge(t, node, resName, volKey, capacity.Resources{DiskMB: 50}),
				),
			},
			{
				// Both consumers vanish; a plan (with its refresh) writes nothing.
				PreConfig: func() {
					_, index = acctest.ReadLedger(t, node)
					holdBefore = holdIndex()
					if _, _, err := c.Jobs().Deregister(app, true, nil); err != nil {
						t.Fatal(err)
					}
					vols, _, err := c.HostVolumes().List(nil, nil)
					if err != nil {
						t.Fatal(err)
					}
					for _, v := range vols {
						if v.Name == vol {
							if _, _, err := c.HostVolumes().Delete(&api.HostVolumeDeleteRequest{ID: v.ID}, nil); err != nil {
								t.Fatal(err)
							}
						}
					}
					acctest.WaitFor(t, "the volume to be gone", time.Minute, func() (bool, error) {
						vols, _, err := c.HostVolumes().List(nil, nil)
						for _, v := range vols {
							if v.Name == vol {
								return false, fmt.Errorf("volume %s is %s", v.ID, v.State)
							}
						}
						return err == nil, err
					})
				},
				Config:             reservation(300) + consumers,
				PlanOnly:           true,
				ExpectNonEmptyPlan: true,
			},
			{
				// The reservation's resize drops the vanished consumers' charges.
				PreConfig: func() {
					l, now := acctest.ReadLedger(t, node)
					if now != index {
						t.Fatalf("the ledger of %s moved from modify index %d to %d during terraform plan", node, index, now)
					}
					if len(l.Reservations[resName].Consumers) != 2 {
						t.Fatalf("charges changed during terraform plan: %+v", l.Reservations[resName])
					}
					if now := holdIndex(); now != holdBefore {
						t.Fatalf("hold job %s moved from modify index %d to %d during terraform plan", holdJob, holdBefore, now)
					}
				},
				Config: reservation(200),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("berth_node_reservation.r", plancheck.ResourceActionUpdate),
				}},
				Check: resource.ComposeAggregateTestCheckFunc(
					acctest.CheckLedger(t, node, func(l ledger.Ledger) error {
						r := l.Reservations[resName]
						if r.Request.CPU != 200 || len(r.Consumers) != 0 {
							return fmt.Errorf("reservation in Nomad after the resize: %+v, want cpu 200 and no charges", r)
						}
						return nil
					}),
					resource.TestCheckResourceAttr("berth_node_reservation.r", "used.cpu", "0"),
				),
			},
		},
	})
}

// TestAccNodeReservation_budgetRefused: work that does not fit in what its
// reservation has left is a warning at plan and one error at apply, at
// node_reservation, naming the budget and the request, and nothing
// changes in Nomad; growing the reservation in the same plan counts. A
// lease is charged its workload and its timer task.
func TestAccNodeReservation_budgetRefused(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	n := acctest.ConsumerFleet(t)
	node := n.A.NodeID
	app := "berth-acc-budget-" + acctest.RandomHex(3)
	resName := "budget-" + app[len(app)-6:]
	reservation := func(cpu, disk int) string {
		return fmt.Sprintf(`
resource "berth_node_reservation" "r" {
  name    = %q
  node_id = %q
  cpu     = %d
  memory  = 400
  disk    = %d
}
`, resName, node, cpu, disk)
	}
	leaseOf := func(res, name string, cpu int) string {
		return fmt.Sprintf(`
resource "berth_reservation" %q {
  name             = %q
  duration         = "1h"
  node_reservation = berth_node_reservation.r.id
  workload = { driver = "raw_exec", command = "/bin/sleep", args = ["3600"], cpu = %d, memory = 32, disk = 150 }
}
`, res, name, cpu)
	}
	base := leaseOf("l", app+"-lease", 50)
	leaseCharge := capacity.Resources{CPU: 50 + lease.TimerCPU, MemoryMB: 32 + lease.TimerMemoryMB, DiskMB: 150}
	instKey, leaseKey := nomadclient.InstanceConsumer("default", app), nomadclient.LeaseConsumer("default", app+"-lease")
	budgetErr := func(dim, consumer string, budget, used, requested int64) *regexp.Regexp {
		unit := "MHz"
		if dim != "cpu" {
			unit = "MiB"
		}
		return regexp.MustCompile(strings.ReplaceAll(regexp.QuoteMeta(fmt.Sprintf(
			`reservation %q has not enough %s left for %s: budget %d %s, already used %d, requested %d`,
			resName, dim, consumer, budget, unit, used, requested)), " ", `\s+`))
	}
	rec := &acctest.DiagRecorder{}
	unchanged := func() {
		t.Helper()
		acctest.RequireRefusedAtApply(t, rec, "Not enough left in the node reservation")
		job, _, err := acctest.Nomad(t).Jobs().Info(app, nil)
		if err != nil || *job.TaskGroups[0].Count != 1 {
			t.Fatalf("job %s after a refused apply: %v", app, err)
		}
		l, _ := acctest.ReadLedger(t, node)
		if r := l.Reservations[resName]; r.Consumers[instKey] != instanceCharge(1) || r.Request.CPU != 400 {
			t.Fatalf("reservation after a refused apply: %+v", r)
		}
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.RecordingFactories(rec),
		CheckDestroy:             acctest.CheckInstanceDestroyed(t, app),
		Steps: []resource.TestStep{
			{
				Config: reservation(400, 1000) + consumerInstance(app, n.Pool, "berth_node_reservation.r.id", 1) + base,
				Check: resource.ComposeAggregateTestCheckFunc(
					acctest.CheckCharge(t, node, resName, instKey, instanceCharge(1)),
					acctest.CheckCharge(t, node, resName, leaseKey, leaseCharge),
				),
			},
			{
				// 4 replicas: 400 MHz, but the lease already uses 70 of 400.
				PreConfig:   rec.Reset,
				Config:      reservation(400, 1000) + consumerInstance(app, n.Pool, "berth_node_reservation.r.id", 4) + base,
				ExpectError: budgetErr("cpu", instKey, 400, 70, 400),
			},
			{
				// Growing the reservation in the same plan makes room.
				PreConfig: unchanged,
				Config:    reservation(700, 1500) + consumerInstance(app, n.Pool, "berth_node_reservation.r.id", 4) + base,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("berth_node_reservation.r", plancheck.ResourceActionUpdate),
					plancheck.ExpectResourceAction("berth_instance.app", plancheck.ResourceActionUpdate),
				}},
				Check: acctest.CheckCharge(t, node, resName, instKey, instanceCharge(4)),
			},
			{
				// A volume: 1024 MiB, but 1350 of 1500 are used.
				PreConfig: rec.Reset,
				Config: reservation(700, 1500) + consumerInstance(app, n.Pool, "berth_node_reservation.r.id", 4) + base + fmt.Sprintf(`
resource "berth_volume" "v" {
  name             = "%s-vol"
  node_reservation = berth_node_reservation.r.id
  capacity_max     = "1GiB"
}`, app),
				ExpectError: budgetErr("disk", nomadclient.VolumeConsumer("default", app+"-vol"), 1500, 1350, 1024),
			},
			{
				// A second lease: its workload's 220 MHz fit in the 230 left,
				// but not with the timer task.
				PreConfig: func() {
					acctest.RequireRefusedAtApply(t, rec, "Not enough left in the node reservation")
					rec.Reset()
				},
				Config: reservation(700, 1500) + consumerInstance(app, n.Pool, "berth_node_reservation.r.id", 4) + base +
					leaseOf("l2", app+"-lease2", 220),
				ExpectError: budgetErr("cpu", nomadclient.LeaseConsumer("default", app+"-lease2"), 700, 470, 220+lease.TimerCPU),
			},
			{
				PreConfig: func() { acctest.RequireRefusedAtApply(t, rec, "Not enough left in the node reservation") },
				Config:    reservation(700, 1500) + consumerInstance(app, n.Pool, "berth_node_reservation.r.id", 4) + base,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					acctest.ExpectNoChanges{},
				}},
			},
		},
	})
}

// TestAccNodeReservation_strategyChangeIsNoChange: once a scheduled
// reservation's node is chosen, a new placement strategy changes nothing
// in Nomad: an update in place, same node, same ledger item.
func TestAccNodeReservation_strategyChangeIsNoChange(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	n := acctest.ConsumerFleet(t)
	name := "berth-acc-strategy-" + acctest.RandomHex(3)
	cfg := func(strategy string) string {
		return fmt.Sprintf(`
resource "berth_node_reservation" "r" {
  name      = %q
  memory    = 64
  placement = { node_pool = %q, strategy = %q }
}
`, name, n.Pool, strategy)
	}
	var node string
	var before ledger.Reservation
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: cfg("binpack"),
				Check: func(s *terraform.State) error {
					node = s.RootModule().Resources["berth_node_reservation.r"].Primary.Attributes["node_id"]
					l, _ := acctest.ReadLedger(t, node)
					var ok bool
					if before, ok = l.Reservations[name]; !ok {
						return fmt.Errorf("no reservation %q in the ledger of %s", name, node)
					}
					return nil
				},
			},
			{
				Config: cfg("spread"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("berth_node_reservation.r", plancheck.ResourceActionUpdate),
					plancheck.ExpectKnownValue("berth_node_reservation.r", tfjsonpath.New("node_name"), knownvalue.NotNull()),
					plancheck.ExpectKnownValue("berth_node_reservation.r", tfjsonpath.New("used"), knownvalue.NotNull()),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("berth_node_reservation.r", tfjsonpath.New("placement").AtMapKey("strategy"), knownvalue.StringExact("spread")),
				},
				Check: func(s *terraform.State) error {
					if got := s.RootModule().Resources["berth_node_reservation.r"].Primary.Attributes["node_id"]; got != node {
						return fmt.Errorf("node_id %s, was %s", got, node)
					}
					l, _ := acctest.ReadLedger(t, node)
					if after := l.Reservations[name]; after.Request != before.Request || !after.CreatedAt.Equal(before.CreatedAt) {
						return fmt.Errorf("ledger item changed: %+v, was %+v", after, before)
					}
					return nil
				},
			},
			{
				Config: cfg("spread"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					acctest.ExpectNoChanges{},
				}},
			},
		},
	})
}

// TestAccNodeReservation_instanceMoves: moving an instance to a
// reservation on another node updates the job in place (same job, a new
// version, pinned to the new node) and moves its charge.
func TestAccNodeReservation_instanceMoves(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	n := acctest.ConsumerFleet(t)
	app := "berth-acc-move-" + acctest.RandomHex(3)
	sfx := app[len(app)-6:]
	reservations := fmt.Sprintf(`
resource "berth_node_reservation" "one" {
  name    = "one-%[1]s"
  node_id = %[2]q
  cpu     = 300
  memory  = 256
  disk    = 1000
}
resource "berth_node_reservation" "two" {
  name    = "two-%[1]s"
  node_id = %[3]q
  cpu     = 300
  memory  = 256
  disk    = 1000
}
`, sfx, n.A.NodeID, n.B.NodeID)
	key := nomadclient.InstanceConsumer("default", app)
	var createIndex, version uint64
	onlyOn := func(node string) func(*api.Job, []*api.AllocationListStub) error {
		return func(job *api.Job, allocs []*api.AllocationListStub) error {
			if len(job.Constraints) == 0 || job.Constraints[0].RTarget != node {
				return fmt.Errorf("job is not pinned to %s: %+v", node, job.Constraints)
			}
			running := 0
			for _, a := range allocs {
				if a.DesiredStatus == "run" && a.NodeID != node {
					return fmt.Errorf("allocation %s is to run on %s", a.ID, a.NodeID)
				}
				if a.ClientStatus == "running" && a.DesiredStatus == "run" {
					running++
				}
			}
			if running != 1 {
				return fmt.Errorf("%d allocations run on %s, want 1", running, node)
			}
			return nil
		}
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy:             acctest.CheckInstanceDestroyed(t, app),
		Steps: []resource.TestStep{
			{
				Config: reservations + consumerInstance(app, n.Pool, "berth_node_reservation.one.id", 1),
				Check: resource.ComposeAggregateTestCheckFunc(
					acctest.WithJob(t, app, func(job *api.Job, allocs []*api.AllocationListStub) error {
						createIndex, version = *job.CreateIndex, *job.Version
						return onlyOn(n.A.NodeID)(job, allocs)
					}),
					acctest.CheckCharge(t, n.A.NodeID, "one-"+sfx, key, instanceCharge(1)),
				),
			},
			{
				Config: reservations + consumerInstance(app, n.Pool, "berth_node_reservation.two.id", 1),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("berth_instance.app", plancheck.ResourceActionUpdate),
					plancheck.ExpectResourceAction("berth_node_reservation.one", plancheck.ResourceActionNoop),
					plancheck.ExpectResourceAction("berth_node_reservation.two", plancheck.ResourceActionNoop),
				}},
				Check: resource.ComposeAggregateTestCheckFunc(
					acctest.WithJob(t, app, func(job *api.Job, allocs []*api.AllocationListStub) error {
						if *job.CreateIndex != createIndex || *job.Version <= version {
							return fmt.Errorf("job create index %d (was %d), version %d (was %d): want the same job, a newer version",
								*job.CreateIndex, createIndex, *job.Version, version)
						}
						return onlyOn(n.B.NodeID)(job, allocs)
					}),
					checkNoCharge(t, n.A.NodeID, "one-"+sfx, key),
					acctest.CheckCharge(t, n.B.NodeID, "two-"+sfx, key, instanceCharge(1)),
				),
			},
		},
	})
}
