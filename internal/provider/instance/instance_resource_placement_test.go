package instance

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
	"github.com/berthhq/terraform-provider-berth/internal/devagent"
)

// placeNodes are three client agents alone in their own node pool, told
// apart by node meta: berth_rack r1, r2, r3 and berth_disk ssd, ssd, hdd.
// Only the placement tests use them; they start on first use.
type placeNodes struct {
	nodes [3]*devagent.Agent
	pool  string
}

var (
	placeNodesOnce sync.Once
	placeNodesVal  *placeNodes
	placeNodesErr  error
)

func placementFleet(t *testing.T) *placeNodes {
	t.Helper()
	if acctest.MainAgent == nil {
		t.Skip("needs a Nomad server started by the tests or make (extra client agents join it); NOMAD_ADDR points at an existing cluster")
	}
	placeNodesOnce.Do(func() {
		sfx := acctest.RandomHex(4)
		n := &placeNodes{pool: "berth-acc-place-" + sfx}
		disks := []string{"ssd", "ssd", "hdd"}
		for i := range n.nodes {
			o := devagent.Options{
				Name: fmt.Sprintf("berth-acc-place-r%d-%s", i+1, sfx), NodePool: n.pool,
				Meta: map[string]string{"berth_rack": fmt.Sprintf("r%d", i+1), "berth_disk": disks[i]},
			}
			if n.nodes[i], placeNodesErr = acctest.StartClient(o); placeNodesErr != nil {
				return
			}
		}
		placeNodesVal = n
	})
	if placeNodesVal == nil {
		t.Fatalf("client agents for the placement tests failed to start: %v", placeNodesErr)
	}
	return placeNodesVal
}

// expectOnlyChanged is a plan check: the resource's plan changes exactly
// the given attributes among those it knows before apply (computed values
// that become unknown are left out), and check sees their before and
// after values.
type expectOnlyChanged struct {
	addr  string
	attrs []string
	check func(before, after map[string]any) error
}

func (e expectOnlyChanged) CheckPlan(_ context.Context, req plancheck.CheckPlanRequest, resp *plancheck.CheckPlanResponse) {
	for _, rc := range req.Plan.ResourceChanges {
		if rc.Address != e.addr {
			continue
		}
		before, _ := rc.Change.Before.(map[string]any)
		after, _ := rc.Change.After.(map[string]any)
		unknown, _ := rc.Change.AfterUnknown.(map[string]any)
		var changed []string
		for k := range acctest.Union(before, after) {
			if u, _ := unknown[k].(bool); u {
				continue
			}
			if !reflect.DeepEqual(before[k], after[k]) {
				changed = append(changed, k)
			}
		}
		sort.Strings(changed)
		if !slices.Equal(changed, e.attrs) {
			resp.Error = fmt.Errorf("%s: the plan changes %v, want exactly %v", e.addr, changed, e.attrs)
			return
		}
		if e.check != nil {
			resp.Error = e.check(before, after)
		}
		return
	}
	resp.Error = fmt.Errorf("%s is not in the plan", e.addr)
}

func jsonString(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// placedOn maps each node of the fleet that runs a live allocation of the
// job to how many it runs; allocations elsewhere count under "elsewhere".
func (n *placeNodes) placedOn(allocs []*api.AllocationListStub) map[string]int {
	out := map[string]int{}
	for _, a := range acctest.LiveAllocs(allocs) {
		where := "elsewhere"
		for i, node := range n.nodes {
			if a.NodeID == node.NodeID {
				where = fmt.Sprintf("r%d", i+1)
			}
		}
		out[where]++
	}
	return out
}

// TestAccInstancePlacement_landsWhereItSays: two constraints (ssd disks
// only, distinct hosts), an affinity and a spread put two allocations on
// the two ssd nodes, one each, as Nomad records at group level. A
// constraint edited through Nomad's HTTP API shows in the next plan as a
// change of placement.constraints alone, and the apply puts it back.
func TestAccInstancePlacement_landsWhereItSays(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	fleet := placementFleet(t)
	name := acctest.InstanceName(t)
	cfg := fmt.Sprintf(`
resource "berth_instance" "t" {
  name      = %q
  node_pool = %q
  replicas  = 2
  update    = { min_healthy_time = "1s", healthy_deadline = "1m", progress_deadline = "2m" }
  placement = {
    constraints = [
      { attribute = "$${meta.berth_disk}", value = "ssd" },
      { operator = "distinct_hosts", value = "true" },
    ]
    affinities = [{ attribute = "$${meta.berth_rack}", value = "r1", weight = 40 }]
    spreads = [{
      attribute = "$${meta.berth_rack}"
      targets   = [{ value = "r1", percent = 50 }, { value = "r2", percent = 50 }]
    }]
  }
  services = {
    app = { driver = "raw_exec", command = "/bin/sleep", args = ["3600"], cpu = 50, memory = 32 }
  }
}`, name, fleet.pool)

	placed := acctest.WithJob(t, name, func(job *api.Job, allocs []*api.AllocationListStub) error {
		if got := fleet.placedOn(allocs); !reflect.DeepEqual(got, map[string]int{"r1": 1, "r2": 1}) {
			return fmt.Errorf("allocations by node: %v, want one on r1 and one on r2", got)
		}
		if acctest.RunningAllocs(allocs) != 2 {
			return fmt.Errorf("%d running allocations, want 2", acctest.RunningAllocs(allocs))
		}
		if len(job.Constraints) != 0 || len(job.Affinities) != 0 || len(job.Spreads) != 0 {
			return fmt.Errorf("job-level placement %s %s %s, want none", jsonString(job.Constraints), jsonString(job.Affinities), jsonString(job.Spreads))
		}
		g := job.TaskGroups[0]
		if *g.Name != "app" {
			return fmt.Errorf("group is named %q", *g.Name)
		}
		wantC := []*api.Constraint{{LTarget: "${meta.berth_disk}", Operand: "=", RTarget: "ssd"}, {Operand: "distinct_hosts", RTarget: "true"}}
		for _, c := range wantC {
			if !slices.ContainsFunc(g.Constraints, func(h *api.Constraint) bool { return *h == *c }) {
				return fmt.Errorf("group constraints %s lack %s", jsonString(g.Constraints), jsonString(c))
			}
		}
		if len(g.Affinities) != 1 || *g.Affinities[0].Weight != 40 || g.Affinities[0].RTarget != "r1" {
			return fmt.Errorf("group affinities %s", jsonString(g.Affinities))
		}
		if len(g.Spreads) != 1 || *g.Spreads[0].Weight != 50 || len(g.Spreads[0].SpreadTarget) != 2 {
			return fmt.Errorf("group spreads %s", jsonString(g.Spreads))
		}
		return nil
	})
	// The scheduler scored the affinity: the r1 node got a positive
	// node-affinity score when the first allocation was placed.
	affinityScored := acctest.WithJob(t, name, func(_ *api.Job, allocs []*api.AllocationListStub) error {
		c := acctest.Nomad(t)
		for _, stub := range acctest.LiveAllocs(allocs) {
			a, _, err := c.Allocations().Info(stub.ID, nil)
			if err != nil {
				return err
			}
			if a.Metrics == nil {
				continue
			}
			for _, s := range a.Metrics.ScoreMetaData {
				if s.NodeID == fleet.nodes[0].NodeID && s.Scores["node-affinity"] > 0 {
					return nil
				}
			}
		}
		return fmt.Errorf("no allocation records a positive node-affinity score for the r1 node")
	})
	edited := func(j *api.Job) {
		for _, c := range j.TaskGroups[0].Constraints {
			if c.LTarget == "${meta.berth_disk}" {
				c.Operand, c.RTarget = "regexp", "^ssd$"
			}
		}
	}
	acctest.TestJobSteps(t, name, checkedByNomad(t, []resource.TestStep{
		{Config: cfg, Check: resource.ComposeAggregateTestCheckFunc(placed, affinityScored)},
		{
			PreConfig: acctest.MutateJob(t, name, edited),
			Config:    cfg,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(acctest.InstanceAddr, plancheck.ResourceActionUpdate),
				expectOnlyChanged{addr: acctest.InstanceAddr, attrs: []string{"placement"}, check: func(before, after map[string]any) error {
					bp, _ := before["placement"].(map[string]any)
					ap, _ := after["placement"].(map[string]any)
					if !reflect.DeepEqual(bp["affinities"], ap["affinities"]) || !reflect.DeepEqual(bp["spreads"], ap["spreads"]) {
						return fmt.Errorf("placement changes beyond constraints: %s -> %s", jsonString(bp), jsonString(ap))
					}
					b, a := jsonString(bp["constraints"]), jsonString(ap["constraints"])
					if !strings.Contains(b, `"operator":"regexp"`) || !strings.Contains(b, `"value":"^ssd$"`) || strings.Contains(a, "regexp") {
						return fmt.Errorf("constraints change %s -> %s, want Nomad's regexp edit put back", b, a)
					}
					return nil
				}},
			}},
			Check: placed,
		},
	}...))
}

// TestAccInstancePlacement_importJobLevel imports a hand-written job whose
// single group is not named "app" and whose constraint and spread are at
// job level: the plan is empty. The next change registers the placement
// at group level, and a renamed group replaces the allocations.
func TestAccInstancePlacement_importJobLevel(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	fleet := placementFleet(t)
	name := acctest.InstanceName(t)
	job := &api.Job{
		ID: acctest.Ptr(name), Name: acctest.Ptr(name), Type: acctest.Ptr("service"), Datacenters: []string{"*"}, NodePool: acctest.Ptr(fleet.pool),
		Constraints: []*api.Constraint{{LTarget: "${meta.berth_disk}", Operand: "=", RTarget: "ssd"}},
		Spreads:     []*api.Spread{{Attribute: "${meta.berth_rack}"}},
		TaskGroups: []*api.TaskGroup{{
			Name: acctest.Ptr("web"), Count: acctest.Ptr(1),
			Affinities: []*api.Affinity{{LTarget: "${meta.berth_rack}", Operand: "=", RTarget: "r2", Weight: acctest.Ptr(int8(30))}},
			Update: &api.UpdateStrategy{MaxParallel: acctest.Ptr(1), MinHealthyTime: acctest.Ptr(time.Second),
				HealthyDeadline: acctest.Ptr(time.Minute), ProgressDeadline: acctest.Ptr(2 * time.Minute)},
			Tasks: []*api.Task{{
				Name: "app", Driver: "raw_exec",
				Config:    map[string]any{"command": "/bin/sleep", "args": []string{"3600"}},
				Resources: &api.Resources{CPU: acctest.Ptr(50), MemoryMB: acctest.Ptr(32)},
			}},
		}},
	}
	if _, _, err := acctest.Nomad(t).Jobs().Register(job, nil); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { acctest.PurgeOutsideJob(t, "", name) })
	cfg := func(group, env string) string {
		return fmt.Sprintf(`
resource "berth_instance" "t" {
  name        = %q
  node_pool   = %q
  group       = %q
  replicas    = 1
  update      = { min_healthy_time = "1s", healthy_deadline = "1m", progress_deadline = "2m" }
  placement = {
    constraints = [{ attribute = "$${meta.berth_disk}", value = "ssd" }]
    affinities  = [{ attribute = "$${meta.berth_rack}", value = "r2", weight = 30 }]
    spreads     = [{ attribute = "$${meta.berth_rack}" }]
  }
  services = {
    app = { driver = "raw_exec", command = "/bin/sleep", args = ["3600"], cpu = 50, memory = 32%s }
  }
}`, name, fleet.pool, group, env)
	}
	movedToGroup := func(group string) resource.TestCheckFunc {
		return acctest.WithJob(t, name, func(job *api.Job, allocs []*api.AllocationListStub) error {
			if len(job.Constraints) != 0 || len(job.Spreads) != 0 {
				return fmt.Errorf("job-level placement left: %s %s", jsonString(job.Constraints), jsonString(job.Spreads))
			}
			g := job.TaskGroups[0]
			if *g.Name != group || len(g.Spreads) != 1 || len(g.Affinities) != 1 ||
				!slices.ContainsFunc(g.Constraints, func(c *api.Constraint) bool { return c.LTarget == "${meta.berth_disk}" }) {
				return fmt.Errorf("group %q: constraints %s, affinities %s, spreads %s", *g.Name,
					jsonString(g.Constraints), jsonString(g.Affinities), jsonString(g.Spreads))
			}
			for _, a := range acctest.LiveAllocs(allocs) {
				if a.TaskGroup != group || a.ClientStatus != api.AllocClientStatusRunning {
					return fmt.Errorf("allocation %s of group %q is %s", a.ID, a.TaskGroup, a.ClientStatus)
				}
			}
			if got := fleet.placedOn(allocs); got["r3"] != 0 || got["elsewhere"] != 0 || acctest.RunningAllocs(allocs) != 1 {
				return fmt.Errorf("allocations by node: %v, want one on an ssd node", got)
			}
			return nil
		})
	}
	acctest.TestJobSteps(t, name, slices.Concat(adoptSteps(cfg("web", ""), name, nil), []resource.TestStep{
		{Config: cfg("web", `, env = { V = "2" }`), Check: movedToGroup("web")},
		{
			Config: cfg("api", `, env = { V = "2" }`),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				expectOnlyChanged{addr: acctest.InstanceAddr, attrs: []string{"group"}},
			}},
			Check: movedToGroup("api"),
		},
	}))
}
