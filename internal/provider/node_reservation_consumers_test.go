package provider

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/berthhq/terraform-provider-berth/internal/capacity"
	"github.com/berthhq/terraform-provider-berth/internal/devagent"
	"github.com/berthhq/terraform-provider-berth/internal/hold"
	"github.com/berthhq/terraform-provider-berth/internal/lease"
	"github.com/berthhq/terraform-provider-berth/internal/ledger"
	"github.com/berthhq/terraform-provider-berth/internal/nomadclient"
)

// consumerNodes are client agents for the tests of work placed into node
// reservations, apart from the shared fleet, whose node reservation tests
// need exact numbers on their nodes. a and b share a node pool (moves
// between nodes, scheduling); quiet sits alone in another, and only
// TestAccNodeReservation_vanishedConsumers writes its ledger, so that test
// can require the ledger's modify index not to move.
type consumerNodes struct {
	a, b, quiet     *devagent.Agent
	pool, quietPool string
}

var (
	consumerNodesOnce sync.Once
	consumerNodesVal  *consumerNodes
	consumerNodesErr  error
)

func consumerFleet(t *testing.T) *consumerNodes {
	t.Helper()
	if mainAgent == nil {
		t.Skip("needs a Nomad server started by the tests or make (extra client agents join it); NOMAD_ADDR points at an existing cluster")
	}
	consumerNodesOnce.Do(func() {
		sfx := randomHex(4)
		n := &consumerNodes{pool: "berth-acc-use-" + sfx, quietPool: "berth-acc-quiet-" + sfx}
		for _, c := range []struct {
			dst        **devagent.Agent
			name, pool string
		}{
			{&n.a, "berth-acc-use-a-" + sfx, n.pool},
			{&n.b, "berth-acc-use-b-" + sfx, n.pool},
			{&n.quiet, "berth-acc-quiet-" + sfx, n.quietPool},
		} {
			// The minimal chroot keeps the exec driver of lease timers fast.
			o := devagent.Options{Name: c.name, NodePool: c.pool, ChrootEnv: devagent.MinimalChrootEnv()}
			if *c.dst, consumerNodesErr = startClient(o); consumerNodesErr != nil {
				return
			}
		}
		consumerNodesVal = n
	})
	if consumerNodesVal == nil {
		t.Fatalf("client agents for the consumer tests failed to start: %v", consumerNodesErr)
	}
	return consumerNodesVal
}

// reset forgets what the recorder saw, so a step can be checked alone.
func (r *diagRecorder) reset() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.count, r.all, r.warnings = nil, nil, nil
}

// recordingFactories serves the provider through a recordingServer, so a
// test sees each diagnostic's attribute path and the call that returned it.
func recordingFactories(rec *diagRecorder) map[string]func() (tfprotov6.ProviderServer, error) {
	return map[string]func() (tfprotov6.ProviderServer, error){
		"berth": func() (tfprotov6.ProviderServer, error) {
			s, err := newServer("test", true)()
			return &recordingServer{ProviderServer: s, rec: rec}, err
		},
	}
}

// requireRefusedAtApply fails t unless the provider returned exactly one
// error, from the apply, at node_reservation, with this summary, after a
// warning saying so at plan: a budget depends on the cluster, so the plan
// only warns (plan_advice.go).
func requireRefusedAtApply(t *testing.T, rec *diagRecorder, summary string) {
	t.Helper()
	errs := rec.errors()
	if len(errs) != 1 {
		t.Fatalf("the provider returned %d errors, want exactly 1: %+v", len(errs), errs)
	}
	if d := errs[0]; d.rpc != "ApplyResourceChange" || d.path != "node_reservation" || d.summary != summary {
		t.Fatalf("error %+v, want %q at node_reservation from ApplyResourceChange", d, summary)
	}
	if !slices.ContainsFunc(rec.warningList(), func(w recordedDiag) bool {
		return w.rpc == "PlanResourceChange" && w.path == "node_reservation" && w.summary == summary
	}) {
		t.Fatalf("no plan warning %q at node_reservation: %+v", summary, rec.warningList())
	}
}

// usedBy returns what consumer is charged on reservation name of node.
func usedBy(t *testing.T, node, name, consumer string) (capacity.Resources, bool) {
	l, _ := readLedger(t, node)
	c, ok := l.Reservations[name].Consumers[consumer]
	return c, ok
}

func checkCharge(t *testing.T, node, name, consumer string, want capacity.Resources) resource.TestCheckFunc {
	return func(*terraform.State) error {
		got, ok := usedBy(t, node, name, consumer)
		if !ok || got != want {
			l, _ := readLedger(t, node)
			return fmt.Errorf("%s is charged %+v (charged: %v) on %q, want %+v; reservation in Nomad: %+v", consumer, got, ok, name, want, l.Reservations[name])
		}
		return nil
	}
}

func checkNoCharge(t *testing.T, node, name, consumer string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		if got, ok := usedBy(t, node, name, consumer); ok {
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
	return capacity.Resources{CPU: 100 * replicas, MemoryMB: 64 * replicas, DiskMB: defaultEphemeralDiskMB * replicas}
}

// TestAccNodeReservation_vanishedConsumers: an instance and a volume placed
// into a reservation are deleted behind Terraform's back. terraform plan
// leaves the ledger untouched (its modify index does not move, the charges
// are still there); the reservation's next resize drops both charges.
func TestAccNodeReservation_vanishedConsumers(t *testing.T) {
	t.Parallel()
	testAccPreCheck(t)
	n := consumerFleet(t)
	node := n.quiet.NodeID
	app := "berth-acc-vanish-" + randomHex(3)
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
	consumers := consumerInstance(app, n.quietPool, "berth_node_reservation.r.id", 1) + fmt.Sprintf(`
resource "berth_volume" "v" {
  name             = %q
  node_reservation = berth_node_reservation.r.id
  capacity_max     = "50MiB"
}
`, vol)
	c := testNomad(t)
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
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy: func(*terraform.State) error {
			if l, _ := readLedger(t, node); len(l.Reservations) != 0 {
				return fmt.Errorf("ledger of %s still holds %+v after destroy", node, l.Reservations)
			}
			return nil
		},
		Steps: []resource.TestStep{
			{
				Config: reservation(300) + consumers,
				Check: resource.ComposeAggregateTestCheckFunc(
					checkCharge(t, node, resName, instKey, instanceCharge(1)),
					checkCharge(t, node, resName, volKey, capacity.Resources{DiskMB: 50}),
				),
			},
			{
				// Both consumers vanish; a plan (with its refresh) writes nothing.
				PreConfig: func() {
					_, index = readLedger(t, node)
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
					waitFor(t, "the volume to be gone", time.Minute, func() (bool, error) {
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
					l, now := readLedger(t, node)
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
					checkLedger(t, node, func(l ledger.Ledger) error {
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
	testAccPreCheck(t)
	n := consumerFleet(t)
	node := n.a.NodeID
	app := "berth-acc-budget-" + randomHex(3)
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
	rec := &diagRecorder{}
	unchanged := func() {
		t.Helper()
		requireRefusedAtApply(t, rec, "Not enough left in the node reservation")
		job, _, err := testNomad(t).Jobs().Info(app, nil)
		if err != nil || *job.TaskGroups[0].Count != 1 {
			t.Fatalf("job %s after a refused apply: %v", app, err)
		}
		l, _ := readLedger(t, node)
		if r := l.Reservations[resName]; r.Consumers[instKey] != instanceCharge(1) || r.Request.CPU != 400 {
			t.Fatalf("reservation after a refused apply: %+v", r)
		}
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: recordingFactories(rec),
		CheckDestroy:             checkInstanceDestroyed(t, app),
		Steps: []resource.TestStep{
			{
				Config: reservation(400, 1000) + consumerInstance(app, n.pool, "berth_node_reservation.r.id", 1) + base,
				Check: resource.ComposeAggregateTestCheckFunc(
					checkCharge(t, node, resName, instKey, instanceCharge(1)),
					checkCharge(t, node, resName, leaseKey, leaseCharge),
				),
			},
			{
				// 4 replicas: 400 MHz, but the lease already uses 70 of 400.
				PreConfig:   rec.reset,
				Config:      reservation(400, 1000) + consumerInstance(app, n.pool, "berth_node_reservation.r.id", 4) + base,
				ExpectError: budgetErr("cpu", instKey, 400, 70, 400),
			},
			{
				// Growing the reservation in the same plan makes room.
				PreConfig: unchanged,
				Config:    reservation(700, 1500) + consumerInstance(app, n.pool, "berth_node_reservation.r.id", 4) + base,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("berth_node_reservation.r", plancheck.ResourceActionUpdate),
					plancheck.ExpectResourceAction("berth_instance.app", plancheck.ResourceActionUpdate),
				}},
				Check: checkCharge(t, node, resName, instKey, instanceCharge(4)),
			},
			{
				// A volume: 1024 MiB, but 1350 of 1500 are used.
				PreConfig: rec.reset,
				Config: reservation(700, 1500) + consumerInstance(app, n.pool, "berth_node_reservation.r.id", 4) + base + fmt.Sprintf(`
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
					requireRefusedAtApply(t, rec, "Not enough left in the node reservation")
					rec.reset()
				},
				Config: reservation(700, 1500) + consumerInstance(app, n.pool, "berth_node_reservation.r.id", 4) + base +
					leaseOf("l2", app+"-lease2", 220),
				ExpectError: budgetErr("cpu", nomadclient.LeaseConsumer("default", app+"-lease2"), 700, 470, 220+lease.TimerCPU),
			},
			{
				PreConfig: func() { requireRefusedAtApply(t, rec, "Not enough left in the node reservation") },
				Config:    reservation(700, 1500) + consumerInstance(app, n.pool, "berth_node_reservation.r.id", 4) + base,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					expectNoChanges{},
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
	testAccPreCheck(t)
	n := consumerFleet(t)
	name := "berth-acc-strategy-" + randomHex(3)
	cfg := func(strategy string) string {
		return fmt.Sprintf(`
resource "berth_node_reservation" "r" {
  name      = %q
  memory    = 64
  placement = { node_pool = %q, strategy = %q }
}
`, name, n.pool, strategy)
	}
	var node string
	var before ledger.Reservation
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: cfg("binpack"),
				Check: func(s *terraform.State) error {
					node = s.RootModule().Resources["berth_node_reservation.r"].Primary.Attributes["node_id"]
					l, _ := readLedger(t, node)
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
					l, _ := readLedger(t, node)
					if after := l.Reservations[name]; after.Request != before.Request || !after.CreatedAt.Equal(before.CreatedAt) {
						return fmt.Errorf("ledger item changed: %+v, was %+v", after, before)
					}
					return nil
				},
			},
			{
				Config: cfg("spread"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					expectNoChanges{},
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
	testAccPreCheck(t)
	n := consumerFleet(t)
	app := "berth-acc-move-" + randomHex(3)
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
`, sfx, n.a.NodeID, n.b.NodeID)
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
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             checkInstanceDestroyed(t, app),
		Steps: []resource.TestStep{
			{
				Config: reservations + consumerInstance(app, n.pool, "berth_node_reservation.one.id", 1),
				Check: resource.ComposeAggregateTestCheckFunc(
					withJob(t, app, func(job *api.Job, allocs []*api.AllocationListStub) error {
						createIndex, version = *job.CreateIndex, *job.Version
						return onlyOn(n.a.NodeID)(job, allocs)
					}),
					checkCharge(t, n.a.NodeID, "one-"+sfx, key, instanceCharge(1)),
				),
			},
			{
				Config: reservations + consumerInstance(app, n.pool, "berth_node_reservation.two.id", 1),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("berth_instance.app", plancheck.ResourceActionUpdate),
					plancheck.ExpectResourceAction("berth_node_reservation.one", plancheck.ResourceActionNoop),
					plancheck.ExpectResourceAction("berth_node_reservation.two", plancheck.ResourceActionNoop),
				}},
				Check: resource.ComposeAggregateTestCheckFunc(
					withJob(t, app, func(job *api.Job, allocs []*api.AllocationListStub) error {
						if *job.CreateIndex != createIndex || *job.Version <= version {
							return fmt.Errorf("job create index %d (was %d), version %d (was %d): want the same job, a newer version",
								*job.CreateIndex, createIndex, *job.Version, version)
						}
						return onlyOn(n.b.NodeID)(job, allocs)
					}),
					checkNoCharge(t, n.a.NodeID, "one-"+sfx, key),
					checkCharge(t, n.b.NodeID, "two-"+sfx, key, instanceCharge(1)),
				),
			},
		},
	})
}
