package node

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
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
	"github.com/berthhq/terraform-provider-berth/internal/devagent"
	"github.com/berthhq/terraform-provider-berth/internal/ledger"
	"github.com/berthhq/terraform-provider-berth/internal/nomadclient"
)

// TestAccNodeReservation_lifecycle runs on two nodes no other test uses:
// named reservations with an exact fit accepted and one MHz more refused,
// resize in place, import, out-of-band ledger deletion, then scheduling
// with binpack and spread.
func TestAccNodeReservation_lifecycle(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	f := acctest.SharedFleet(t)
	// Its numbers are exact: no other reservation may sit on these nodes.
	acctest.UseNodeAlone(t, f.ResvA, f.ResvB)
	c := acctest.Nomad(t)
	a, b := acctest.APINode(t, c, f.ResvA.NodeID), acctest.APINode(t, c, f.ResvB.NodeID)
	acpu, amem, _ := acctest.AllocatableOf(a)
	_, bmem, _ := acctest.AllocatableOf(b)
	if amem != bmem {
		t.Fatalf("test nodes differ in memory (%d, %d); the scheduling steps assume equal nodes", amem, bmem)
	}
	named := func(bigCPU int64, extra string) string {
		return fmt.Sprintf(`
resource "berth_node_reservation" "big" {
  name        = "big"
  node_id     = %[1]q
  cpu         = %[2]d
  memory      = 1024
  disk        = 100
  annotations = { owner = "acc" }
}
resource "berth_node_reservation" "exact" {
  name    = "exact"
  node_id = %[1]q
  cpu     = 1000
}
%[3]s`, a.ID, bigCPU, extra)
	}
	oneMore := fmt.Sprintf(`
resource "berth_node_reservation" "one_more" {
  name    = "one-more"
  node_id = %q
  cpu     = 1
}`, a.ID)
	scheduled := fmt.Sprintf(`
resource "berth_node_reservation" "packed" {
  name      = "packed"
  memory    = 2048
  placement = { node_pool = %[1]q, strategy = "binpack" }
}
resource "berth_node_reservation" "spread" {
  name      = "spread"
  memory    = 2048
  placement = { node_pool = %[1]q, strategy = "spread" }
  depends_on = [berth_node_reservation.packed]
}`, f.ResvPool)

	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy: func(*terraform.State) error {
			for _, id := range []string{a.ID, b.ID} {
				l, _ := acctest.ReadLedger(t, id)
				for _, name := range []string{"big", "exact", "packed", "spread"} {
					if _, ok := l.Reservations[name]; ok {
						return fmt.Errorf("ledger of %s still holds %q after destroy", id, name)
					}
				}
			}
			return nil
		},
		Steps: []resource.TestStep{
			{
				Config: named(acpu-1000, ""),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("berth_node_reservation.big", tfjsonpath.New("id"), knownvalue.StringExact(a.ID+"/big")),
					statecheck.ExpectKnownValue("berth_node_reservation.big", tfjsonpath.New("node_status"), knownvalue.StringExact("ready")),
					statecheck.ExpectKnownValue("berth_node_reservation.big", tfjsonpath.New("node_name"), knownvalue.StringExact(a.Name)),
				},
				Check: acctest.CheckLedger(t, a.ID, func(l ledger.Ledger) error {
					big, exact := l.Reservations["big"], l.Reservations["exact"]
					if big.Request.CPU != acpu-1000 || big.Request.MemoryMB != 1024 || big.Annotations["owner"] != "acc" || exact.Request.CPU != 1000 {
						return fmt.Errorf("ledger in Nomad: %+v", l.Reservations)
					}
					if got := l.Reserved().CPU; got != acpu {
						return fmt.Errorf("reserved cpu %d, want exactly the allocatable %d", got, acpu)
					}
					return nil
				}),
			},
			{
				// The node is full: one MHz more fails at plan time.
				Config: named(acpu-1000, oneMore),
				ExpectError: regexp.MustCompile(strings.ReplaceAll(regexp.QuoteMeta(fmt.Sprintf(
					`node %q (%s) has not enough cpu: allocatable %d MHz, reserved %d, allocated 0, requested 1`,
					a.Name, a.ID[:8], acpu, acpu)), " ", `\s+`)),
			},
			{
				// Resize in place.
				Config: named(acpu-2000, ""),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("berth_node_reservation.big", plancheck.ResourceActionUpdate),
					plancheck.ExpectResourceAction("berth_node_reservation.exact", plancheck.ResourceActionNoop),
				}},
				Check: acctest.CheckLedger(t, a.ID, func(l ledger.Ledger) error {
					if got := l.Reservations["big"].Request.CPU; got != acpu-2000 {
						return fmt.Errorf("big cpu in the ledger = %d, want %d", got, acpu-2000)
					}
					return nil
				}),
			},
			{
				ResourceName:      "berth_node_reservation.big",
				ImportState:       true,
				ImportStateId:     a.ID[:8] + "/big",
				ImportStateVerify: true,
			},
			{
				// Removed from the ledger behind Terraform's back: recreated.
				PreConfig: func() {
					l, index := acctest.ReadLedger(t, a.ID)
					l.Release("exact")
					items, err := l.Encode()
					if err != nil {
						t.Fatal(err)
					}
					if _, _, err := c.Variables().CheckedUpdate(&api.Variable{Path: nomadclient.LedgerPath(a.ID), Items: items, ModifyIndex: index}, nil); err != nil {
						t.Fatal(err)
					}
				},
				Config: named(acpu-2000, ""),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("berth_node_reservation.exact", plancheck.ResourceActionCreate),
				}},
			},
			{
				// Nothing in the pool can take it: the error says why, per node.
				Config: named(acpu-2000, fmt.Sprintf(`
resource "berth_node_reservation" "huge" {
  name      = "huge"
  cpu       = 100000000
  placement = { node_pool = %q }
}`, f.ResvPool)),
				ExpectError: regexp.MustCompile(`(?s)no node can take the reservation: 2 nodes: 2 not enough cpu`),
			},
			{
				// Scheduled: binpack fills the busier node A, spread takes B.
				Config: named(acpu-2000, scheduled),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("berth_node_reservation.packed", tfjsonpath.New("node_id"), knownvalue.StringExact(a.ID)),
					statecheck.ExpectKnownValue("berth_node_reservation.spread", tfjsonpath.New("node_id"), knownvalue.StringExact(b.ID)),
				},
				Check: acctest.CheckLedger(t, b.ID, func(l ledger.Ledger) error {
					if l.Reservations["spread"].Request.MemoryMB != 2048 {
						return fmt.Errorf("ledger of B: %+v", l.Reservations)
					}
					return nil
				}),
			},
		},
	})
}

// TestAccNodeReservation_instanceInside: an instance placed into a
// reservation is pinned to its node and charged; exceeding the budget
// fails; the node data source counts the work once.
func TestAccNodeReservation_instanceInside(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	f := acctest.SharedFleet(t)
	acctest.UseNodeAlone(t, f.ResvB)
	node := f.ResvB.NodeID
	app := "berth-acc-resv-app-" + acctest.RandomHex(3)
	cfg := func(replicas int) string {
		return fmt.Sprintf(`
resource "berth_node_reservation" "app" {
  name    = "app-%[4]s"
  node_id = %[1]q
  cpu     = 500
  memory  = 512
  disk    = 1000
}
resource "berth_instance" "app" {
  name             = %[2]q
  node_pool        = %[3]q
  node_reservation = berth_node_reservation.app.id
  replicas         = %[5]d
  update           = { min_healthy_time = "1s", healthy_deadline = "30s", progress_deadline = "1m" }
  services = {
    app = { driver = "raw_exec", command = "/bin/sleep", args = ["3600"], cpu = 100, memory = 64 }
  }
}
resource "berth_volume" "v" {
  name             = "%[2]s-vol"
  node_reservation = berth_node_reservation.app.id
  capacity_max     = "100MiB"
}
data "berth_node" "n" {
  id         = %[1]q
  depends_on = [berth_instance.app, berth_volume.v]
}`, node, app, f.ResvPool, app[len(app)-6:], replicas)
	}
	resName := "app-" + app[len(app)-6:]
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy:             acctest.CheckInstanceDestroyed(t, app),
		Steps: []resource.TestStep{
			{
				Config: cfg(2),
				Check: resource.ComposeAggregateTestCheckFunc(
					acctest.WithJob(t, app, func(job *api.Job, allocs []*api.AllocationListStub) error {
						if len(job.Constraints) == 0 || job.Constraints[0].RTarget != node {
							return fmt.Errorf("job is not pinned to %s: %+v", node, job.Constraints)
						}
						for _, a := range allocs {
							if a.ClientStatus == "running" && a.NodeID != node {
								return fmt.Errorf("allocation %s runs on %s", a.ID, a.NodeID)
							}
						}
						return nil
					}),
					acctest.CheckLedger(t, node, func(l ledger.Ledger) error {
						used := l.Reservations[resName].Consumers[nomadclient.InstanceConsumer("default", app)]
						vol := l.Reservations[resName].Consumers[nomadclient.VolumeConsumer("default", app+"-vol")]
						if used.CPU != 200 || used.MemoryMB != 128 || used.DiskMB != 600 || vol.DiskMB != 100 {
							b, _ := json.Marshal(l.Reservations[resName])
							return fmt.Errorf("charge in the ledger: %s", b)
						}
						return nil
					}),
					resource.TestCheckResourceAttr("data.berth_node.n", "allocated.cpu", "0"),
					resource.TestCheckTypeSetElemNestedAttrs("data.berth_node.n", "reservations.*", map[string]string{
						"name": resName, "cpu": "500", "used.cpu": "200", "used.disk": "700",
					}),
					resource.TestCheckResourceAttr("berth_volume.v", "node_id", node),
				),
			},
			{
				Config:      cfg(10),
				ExpectError: regexp.MustCompile(`(?s)reservation "` + resName + `" has not enough cpu left for\s+instance:default/` + app + `: budget 500 MHz`),
			},
		},
	})
}

// TestAccNodeReservation_nodeGone: a node that leaves the cluster keeps
// its reservation, shown as node_status = "gone", and nothing is
// silently replaced.
func TestAccNodeReservation_nodeGone(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	acctest.SharedFleet(t) // needs a test-started server
	agent, err := acctest.StartClient(devagentOptions("berth-acc-gone-" + acctest.RandomHex(3)))
	if err != nil {
		t.Fatal(err)
	}
	cfg := fmt.Sprintf(`
resource "berth_node_reservation" "r" {
  name    = "held"
  node_id = %q
  memory  = 256
}`, agent.NodeID)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: cfg,
				Check:  resource.TestCheckResourceAttr("berth_node_reservation.r", "node_status", "ready"),
			},
			{
				PreConfig: func() {
					ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
					defer cancel()
					if err := agent.Stop(ctx); err != nil {
						t.Fatal(err)
					}
					if _, _, err := acctest.Nomad(t).Nodes().Purge(agent.NodeID, nil); err != nil {
						t.Fatal(err)
					}
				},
				Config: cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					acctest.ExpectNoChanges{},
				}},
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr("berth_node_reservation.r", "node_status", "gone"),
					acctest.CheckLedger(t, agent.NodeID, func(l ledger.Ledger) error {
						if _, ok := l.Reservations["held"]; !ok {
							return fmt.Errorf("the reservation left the ledger")
						}
						return nil
					}),
				),
			},
		},
	})
}

func devagentOptions(name string) devagent.Options { return devagent.Options{Name: name} }

// TestAccNodeReservation_nameTakenOnNode: a second configuration (here a
// second resource, planned after the first exists) wants the same
// reservation name on the same node with another size. It is refused at
// apply with the import hint, and the first's ledger item is untouched.
func TestAccNodeReservation_nameTakenOnNode(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	node := acctest.MainNode(t, acctest.Nomad(t))
	name := "berth-acc-dup-" + acctest.RandomHex(3)
	one := fmt.Sprintf(`
resource "berth_node_reservation" "one" {
  name    = %[2]q
  node_id = %[1]q
  cpu     = 11
  annotations = { owner = "one" }
}
`, node.ID, name)
	two := fmt.Sprintf(`
resource "berth_node_reservation" "two" {
  name    = %[2]q
  node_id = %[1]q
  cpu     = 12
}
`, node.ID, name)
	var first ledger.Reservation
	sameAsFirst := acctest.CheckLedger(t, node.ID, func(l ledger.Ledger) error {
		if r, ok := l.Reservations[name]; !ok || !reflect.DeepEqual(r, first) {
			return fmt.Errorf("ledger holds %+v for %q (present: %v), want the first resource's item untouched: %+v", r, name, ok, first)
		}
		return nil
	})
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy: func(*terraform.State) error {
			l, _ := acctest.ReadLedger(t, node.ID)
			if _, ok := l.Reservations[name]; ok {
				return fmt.Errorf("reservation %q still in the ledger of %s", name, node.ID)
			}
			return nil
		},
		Steps: []resource.TestStep{
			{
				Config: one,
				Check: acctest.CheckLedger(t, node.ID, func(l ledger.Ledger) error {
					var ok bool
					if first, ok = l.Reservations[name]; !ok || first.Request.CPU != 11 {
						return fmt.Errorf("ledger holds %+v for %q", first, name)
					}
					return nil
				}),
			},
			{
				Config: one + two,
				ExpectError: regexp.MustCompile(strings.ReplaceAll(regexp.QuoteMeta(fmt.Sprintf(
					`already has a reservation named %q (holding cpu 11 MHz, memory 0 MiB, disk 0 MiB), which this configuration did not create. `+
						`Choose another name, or import it: terraform import <address> %s/%s`, name, node.ID, name)), " ", `\s+`)),
			},
			{
				// Even an identical twin is another configuration's: refused.
				Config:      one + strings.ReplaceAll(strings.ReplaceAll(one, `"one"`, `"three"`), `owner = "three"`, `owner = "one"`),
				ExpectError: regexp.MustCompile(`already has a reservation named\s+"` + name + `"`),
			},
			{
				// The refused creates changed nothing of the first.
				Config: one,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					acctest.ExpectNoChanges{},
				}},
				Check: sameAsFirst,
			},
		},
	})
}
