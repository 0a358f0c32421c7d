package server

import (
	"context"
	"fmt"
	"math/big"
	"strings"
	"sync"
	"testing"

	"github.com/hashicorp/nomad/api"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	tfresource "github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
	"github.com/berthhq/terraform-provider-berth/internal/provider/job"
)

// benchJobValues are the configuration and state of an unchanged berth_job
// "bench-1" that a refresh found no drift in.
func benchJobValues(typ tftypes.Object) (config, state tftypes.Value) {
	str := func(s string) tftypes.Value { return tftypes.NewValue(tftypes.String, s) }
	num := func(n int64) tftypes.Value { return tftypes.NewValue(tftypes.Number, big.NewFloat(float64(n))) }
	// JSON: the plans below need no cluster to parse it.
	spec := str(`{"Job": {"ID": "bench-1", "Name": "bench-1", "TaskGroups": [{"Name": "web",
  "Tasks": [{"Name": "app", "Driver": "raw_exec", "Config": {"command": "/bin/sleep"}}]}]}}`)
	config = acctest.ObjectWith(typ, map[string]tftypes.Value{"jobspec": spec})
	state = acctest.ObjectWith(typ, map[string]tftypes.Value{
		"jobspec": spec, "format": str("json"), "id": str("default/bench-1"), "name": str("bench-1"),
		"namespace": str("default"), "type": str("service"),
		"wait_for_healthy": tftypes.NewValue(tftypes.Bool, true), "purge_on_destroy": tftypes.NewValue(tftypes.Bool, true),
		"job_modify_index": num(42), "job_version": num(0), "deployment_id": str(""),
		"drift":          tftypes.NewValue(typ.AttributeTypes["drift"], []tftypes.Value{}),
		"scheduler_plan": tftypes.NewValue(typ.AttributeTypes["scheduler_plan"], map[string]tftypes.Value{"web": str("1 create")}),
	})
	return config, state
}

// An unchanged job is answered by the shortcut, and the framework, planning
// it too (verify), agrees. Drift the refresh found, a defaulted field
// changed in Nomad and a changed jobspec go to the framework, which plans
// the change.
func TestUnchangedPlans_job(t *testing.T) {
	p := newProbeOf(t, newServer("test", true), "http://127.0.0.1:9", typeNameOf(job.NewJobResource()), benchJobValues)
	shortcut := p.srv.(*server).unchanged
	plan := func(state, proposed tftypes.Value, identity bool) (*tfprotov6.PlanResourceChangeResponse, int64) {
		t.Helper()
		req := p.planRequest(p.dv(p.config), p.dv(state), p.dv(proposed))
		if !identity {
			req.PriorIdentity = nil
		}
		before := shortcut.taken.Load()
		resp, err := p.srv.PlanResourceChange(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range resp.Diagnostics {
			if d.Severity == tfprotov6.DiagnosticSeverityError {
				t.Errorf("error: %s: %s", d.Summary, d.Detail)
			}
		}
		return resp, shortcut.taken.Load() - before
	}
	planned := func(resp *tfprotov6.PlanResourceChangeResponse, name string) tftypes.Value {
		t.Helper()
		v, err := resp.PlannedState.Unmarshal(p.typ)
		if err != nil {
			t.Fatal(err)
		}
		return valueAt(t, v, name)
	}

	for _, identity := range []bool{true, false} {
		resp, taken := plan(p.state, p.state, identity)
		if taken != 1 || len(resp.Diagnostics) > 0 {
			t.Fatalf("unchanged job (identity %v): shortcut taken %d times, diagnostics %v; want once, none", identity, taken, resp.Diagnostics)
		}
		if v, err := resp.PlannedState.Unmarshal(p.typ); err != nil || !v.Equal(p.state) {
			t.Fatalf("unchanged job (identity %v): plan is not the prior state (%v)", identity, err)
		}
	}

	driftType := p.typ.AttributeTypes["drift"]
	drifted := withValueAt(t, p.state, tftypes.NewValue(driftType, []tftypes.Value{
		tftypes.NewValue(tftypes.String, `group "web" / count: 2 → 1`)}), "drift")
	if resp, taken := plan(drifted, drifted, true); taken != 0 || !planned(resp, "drift").Equal(tftypes.NewValue(driftType, []tftypes.Value{})) ||
		planned(resp, "job_modify_index").IsKnown() {
		t.Fatalf("job with drift: shortcut taken %d times, planned drift %v and modify index %v; want the framework clearing drift for a new registration",
			taken, planned(resp, "drift"), planned(resp, "job_modify_index"))
	}
	nullDrift := withValueAt(t, p.state, tftypes.NewValue(driftType, nil), "drift")
	if _, taken := plan(nullDrift, nullDrift, true); taken != 0 {
		t.Fatalf("job with null drift: shortcut taken %d times, want 0", taken)
	}
	kept := withValueAt(t, p.state, tftypes.NewValue(tftypes.Bool, false), "purge_on_destroy")
	if resp, taken := plan(kept, kept, true); taken != 0 || !planned(resp, "purge_on_destroy").Equal(tftypes.NewValue(tftypes.Bool, true)) {
		t.Fatalf("purge_on_destroy changed in state: shortcut taken %d times, planned %v; want the framework planning the default", taken, planned(resp, "purge_on_destroy"))
	}
	changed := withValueAt(t, p.state, tftypes.NewValue(tftypes.String, `{"Job": {"ID": "bench-1", "TaskGroups": [{"Name": "web", "Count": 2}]}}`), "jobspec")
	if _, taken := plan(p.state, changed, true); taken != 0 {
		t.Fatalf("changed jobspec: shortcut taken %d times, want 0", taken)
	}
}

// countingServers is a berth provider factory (in verify mode) for
// acceptance tests and a count of what the shortcuts of every server it
// built answered.
func countingServers() (map[string]func() (tfprotov6.ProviderServer, error), func() (plans, reads, creates int64)) {
	var mu sync.Mutex
	var servers []*server
	factory := func() (tfprotov6.ProviderServer, error) {
		s, err := newServer("test", true)()
		if err == nil {
			mu.Lock()
			servers = append(servers, s.(*server))
			mu.Unlock()
		}
		return s, err
	}
	taken := func() (plans, reads, creates int64) {
		mu.Lock()
		defer mu.Unlock()
		for _, s := range servers {
			plans += s.unchanged.taken.Load()
			reads += s.reads.taken.Load()
			creates += s.creates.taken.Load()
		}
		return plans, reads, creates
	}
	return map[string]func() (tfprotov6.ProviderServer, error){"berth": factory}, taken
}

// Against a real agent and the real CLI: the plan of an unchanged job is
// answered by the shortcut (and verified against the framework); a field
// changed in Nomad shows as drift at the next refresh, the framework plans
// the update, and the apply puts the jobspec's value back in Nomad.
func TestAccJob_unchangedPlanShortcut(t *testing.T) {
	acctest.PreCheck(t)
	name := "berth-acc-jobshort-" + acctest.RandomHex(3)
	cfg := fmt.Sprintf(`
resource "berth_job" "t" {
  wait_for_healthy = false
  jobspec = <<-EOT
job %q {
  meta { owner = "platform" }
  group "web" {
    task "app" {
      driver = "raw_exec"
      config {
        command = "/bin/sleep"
        args    = ["3600"]
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
`, name)
	factory, taken := countingServers()
	var plansBefore int64
	tfresource.ParallelTest(t, tfresource.TestCase{
		ProtoV6ProviderFactories: factory,
		CheckDestroy: func(*terraform.State) error {
			if _, _, err := acctest.Nomad(t).Jobs().Info(name, nil); err == nil || !strings.Contains(err.Error(), "404") {
				return fmt.Errorf("job %s still in Nomad after destroy (err %v)", name, err)
			}
			return nil
		},
		Steps: []tfresource.TestStep{
			{Config: cfg},
			{
				PreConfig: func() { plansBefore, _, _ = taken() },
				Config:    cfg,
				ConfigPlanChecks: tfresource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectEmptyPlan(),
				}},
				Check: func(*terraform.State) error {
					if plans, _, _ := taken(); plans == plansBefore {
						return fmt.Errorf("the plan of the unchanged job did not take the shortcut")
					}
					return nil
				},
			},
			{
				PreConfig: acctest.MutateJob(t, name, func(j *api.Job) { j.Meta["owner"] = "someone-else" }),
				Config:    cfg,
				ConfigPlanChecks: tfresource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("berth_job.t", plancheck.ResourceActionUpdate),
					plancheck.ExpectKnownValue("berth_job.t", tfjsonpath.New("drift"), knownvalue.ListSizeExact(0)),
				}},
				Check: acctest.WithJob(t, name, func(job *api.Job, _ []*api.AllocationListStub) error {
					if got := job.Meta["owner"]; got != "platform" {
						return fmt.Errorf("meta.owner in Nomad is %q after the apply, want the jobspec's \"platform\"", got)
					}
					return nil
				}),
			},
		},
	})
}
