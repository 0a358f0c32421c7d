package node

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/hashicorp/nomad/api"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
	"github.com/berthhq/terraform-provider-berth/internal/devagent"
	"github.com/berthhq/terraform-provider-berth/internal/hold"
)

// drainNodes starts two client agents in a node pool of their own, for a
// test that drains, cordons and tags nodes (which no other test may see).
// Each such test gets its own pair, so they run side by side instead of
// waiting for each other's nodes.
func drainNodes(t *testing.T) ([2]*devagent.Agent, string) {
	t.Helper()
	sfx := acctest.RandomHex(3)
	pool := "berth-acc-drain-" + sfx
	if _, err := acctest.Nomad(t).NodePools().Register(&api.NodePool{Name: pool}, nil); err != nil {
		t.Fatalf("registering node pool %s: %v", pool, err)
	}
	var pair [2]*devagent.Agent
	for i := range pair {
		a, err := acctest.StartClient(devagent.Options{Name: fmt.Sprintf("berth-acc-drain-%s-%d", sfx, i), NodePool: pool})
		if err != nil {
			t.Fatalf("starting the drain test nodes: %v", err)
		}
		pair[i] = a
	}
	return pair, pool
}

// nodeOf reads a node through Nomad's API.
func nodeOf(t *testing.T, id string) *api.Node {
	t.Helper()
	n, _, err := acctest.Nomad(t).Nodes().Info(id, nil)
	if err != nil {
		t.Fatalf("reading node %s: %v", id, err)
	}
	return n
}

// allocNodes lists the nodes a job's running allocations are on.
func allocNodes(allocs []*api.AllocationListStub) []string {
	var out []string
	for _, a := range allocs {
		if a.ClientStatus == api.AllocClientStatusRunning && a.DesiredStatus == api.AllocDesiredStatusRun {
			out = append(out, a.NodeID)
		}
	}
	return out
}

// TestAccNodeSettings_drainAndMeta: node A gets a metadata key (in
// /v1/node/:id, and an instance constrained on ${meta.<key>} is placed on
// A); a change of that key through the API shows in the next plan and the
// apply puts it back, leaving a key berth does not own alone. A drain
// moves a service's allocation from A to B before the apply returns, and
// removing it makes A eligible again. A drain whose deadline passes with
// an allocation that can run nowhere else fails the apply naming it.
// Destroy restores A's and B's eligibility and removes only berth's key.
func TestAccNodeSettings_drainAndMeta(t *testing.T) {
	acctest.PreCheck(t)
	// Parallel before taking the nodes: a test paused in t.Parallel while
	// holding them would block every sequential test waiting for them.
	t.Parallel()
	nodes, pool := drainNodes(t)
	a, b := nodes[0].NodeID, nodes[1].NodeID
	sfx := acctest.RandomHex(3)
	key, value := "berth_acc_role_"+sfx, "a-"+sfx
	web, pinned := "berth-acc-ns-web-"+sfx, "berth-acc-ns-pin-"+sfx
	nomad := acctest.Nomad(t)
	instance := func(label, name, placement string) string {
		return fmt.Sprintf(`
resource "berth_instance" %q {
  name      = %q
  node_pool = %q
  %s
  services = {
    app = { driver = "raw_exec", command = "/bin/sleep", args = ["3600"], cpu = 20, memory = 16 }
  }
  depends_on = [berth_node_settings.a, berth_node_settings.b]
}
`, label, name, pool, placement)
	}
	pinnedInstance := instance("pinned", pinned, fmt.Sprintf(`placement = { constraints = [{ attribute = "$${meta.%s}", value = %q }] }`, key, value))
	config := func(aExtra, bEligible string, withPinned bool) string {
		c := fmt.Sprintf(`
resource "berth_node_settings" "b" {
  node_id  = %q
  eligible = %s
}
resource "berth_node_settings" "a" {
  node_id = %q
  meta    = { %s = %q }
  %s
  depends_on = [berth_node_settings.b]
}
`, b, bEligible, a, key, value, aExtra) + instance("web", web, "")
		if withPinned {
			c += pinnedInstance
		}
		return c
	}
	onNode := func(job, node string) resource.TestCheckFunc {
		return acctest.WithJob(t, job, func(_ *api.Job, allocs []*api.AllocationListStub) error {
			if got := allocNodes(allocs); len(got) != 1 || got[0] != node {
				return fmt.Errorf("job %s runs on %v, want only node %s", job, got, node)
			}
			return nil
		})
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: config("", "false", true),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("berth_node_settings.a", tfjsonpath.New("node_pool"), knownvalue.StringExact(pool)),
					statecheck.ExpectKnownValue("berth_node_settings.a", tfjsonpath.New("eligible"), knownvalue.Bool(true)),
				},
				Check: resource.ComposeAggregateTestCheckFunc(
					func(*terraform.State) error {
						if got := nodeOf(t, a).Meta[key]; got != value {
							return fmt.Errorf("node %s has meta %s = %q in Nomad, want %q", a, key, got, value)
						}
						if n := nodeOf(t, b); n.SchedulingEligibility != api.NodeSchedulingIneligible {
							return fmt.Errorf("node %s is %s, want ineligible", b, n.SchedulingEligibility)
						}
						return nil
					},
					onNode(web, a), onNode(pinned, a),
				),
			},
			{
				// The key changed through the API; another key set beside it.
				PreConfig: func() {
					changed, other := "x", "kept"
					if _, err := nomad.Nodes().Meta().Apply(&api.NodeMetaApplyRequest{NodeID: a,
						Meta: map[string]*string{key: &changed, key + "_other": &other}}, nil); err != nil {
						t.Fatal(err)
					}
				},
				Config: config("", "false", true),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("berth_node_settings.a", plancheck.ResourceActionUpdate),
					plancheck.ExpectResourceAction("berth_node_settings.b", plancheck.ResourceActionNoop),
				}},
				Check: func(*terraform.State) error {
					if got := nodeOf(t, a).Meta[key]; got != value {
						return fmt.Errorf("meta %s = %q in Nomad after the apply, want %q put back", key, got, value)
					}
					return nil
				},
			},
			{
				// B takes work again; A drains: web moves to B before the
				// apply returns.
				Config: config(`drain = { deadline = "5m" }`, "true", false),
				Check: resource.ComposeAggregateTestCheckFunc(
					onNode(web, b),
					func(*terraform.State) error {
						if n := nodeOf(t, a); n.SchedulingEligibility != api.NodeSchedulingIneligible || n.DrainStrategy != nil {
							return fmt.Errorf("node %s: %s, drain %v; want a finished drain, ineligible", a, n.SchedulingEligibility, n.DrainStrategy)
						}
						return nil
					},
				),
			},
			{
				Config: config("", "true", false),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("berth_node_settings.a", tfjsonpath.New("eligible"), knownvalue.Bool(true)),
				},
				Check: func(*terraform.State) error {
					if n := nodeOf(t, a); n.SchedulingEligibility != api.NodeSchedulingEligible {
						return fmt.Errorf("node %s is %s after the drain was removed, want eligible", a, n.SchedulingEligibility)
					}
					return nil
				},
			},
			{
				// pinned can run only on A: placed there, then drained.
				Config: config("", "true", true),
				Check:  onNode(pinned, a),
			},
			{
				Config:      config(`drain = { deadline = "2s" }`, "true", true),
				ExpectError: regexp.MustCompile(`(?s)Drain stopped allocations that could not move.*` + regexp.QuoteMeta(pinned)),
			},
		},
		CheckDestroy: func(*terraform.State) error {
			na, nb := nodeOf(t, a), nodeOf(t, b)
			if na.SchedulingEligibility != api.NodeSchedulingEligible || nb.SchedulingEligibility != api.NodeSchedulingEligible {
				return fmt.Errorf("after destroy: node %s %s, node %s %s; want both eligible as berth found them",
					a, na.SchedulingEligibility, b, nb.SchedulingEligibility)
			}
			meta, err := nomad.Nodes().Meta().Read(a, nil)
			if err != nil {
				return err
			}
			if _, has := meta.Meta[key]; has || meta.Meta[key+"_other"] != "kept" {
				return fmt.Errorf("after destroy node %s has meta %v; want %s removed and %s_other kept", a, meta.Meta, key, key)
			}
			return nil
		},
	})
}

// TestAccNodeSettings_drainStopsReservationHold: an apply whose timeout
// ends before the drain does fails at drain, naming what is still on the
// node (two replicas pinned to it: Nomad migrates one at a time and waits
// for its replacement, which can never be placed, so the second stays
// until the deadline, an hour away). When the drain is removed, the node
// is eligible and the reservation's hold runs there again. The hold job is
// pinned to its node too: a forced drain, started once the hold runs,
// stops it, and the apply names it as stranded.
func TestAccNodeSettings_drainStopsReservationHold(t *testing.T) {
	acctest.PreCheck(t)
	t.Parallel()
	nodes, pool := drainNodes(t)
	node := nodes[1].NodeID
	name := "berth-acc-ns-res-" + acctest.RandomHex(3)
	pinned := name + "-pin"
	config := func(drain string) string {
		return fmt.Sprintf(`
resource "berth_node_reservation" "r" {
  name    = %[1]q
  node_id = %[2]q
  cpu     = 100
  memory  = 64
  disk    = 100
}
resource "berth_instance" "pinned" {
  name      = %[3]q
  node_pool = %[4]q
  replicas  = 2
  placement = { constraints = [{ attribute = "$${node.unique.id}", value = %[2]q }] }
  services = {
    app = { driver = "raw_exec", command = "/bin/sleep", args = ["3600"], cpu = 20, memory = 16 }
  }
}
resource "berth_node_settings" "n" {
  node_id    = %[2]q
  %[5]s
  depends_on = [berth_node_reservation.r, berth_instance.pinned]
}
`, name, node, pinned, pool, drain)
	}
	holdJob := hold.JobID(node, name)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: config(`drain = { deadline = "1h" }
  timeouts = { create = "15s" }`),
				ExpectError: regexp.MustCompile(`(?s)Drain did not end in time.*still on the node:.*` + regexp.QuoteMeta(pinned)),
			},
			{
				// Drain removed: the node is eligible again and the hold
				// runs there again (Nomad places its blocked replacement).
				Config: config(""),
				Check: func(*terraform.State) error {
					acctest.WaitPlaced(t, "", holdJob, node)
					if n := nodeOf(t, node); n.SchedulingEligibility != api.NodeSchedulingEligible {
						return fmt.Errorf("node %s is %s after the drain was removed, want eligible", node, n.SchedulingEligibility)
					}
					return nil
				},
			},
			{
				// With the hold running, a forced drain stops it.
				Config:      config(`drain = { force = true }`),
				ExpectError: regexp.MustCompile(`(?s)Drain stopped allocations that could not move.*` + regexp.QuoteMeta(holdJob)),
			},
		},
	})
}
