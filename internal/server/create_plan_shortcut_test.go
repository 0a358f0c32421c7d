package server

import (
	"context"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
)

// fakeDriverCluster answers the node list the plan's driver check reads
// with one node offering raw_exec, so a create plan runs its checks
// without a Nomad agent (nothing else is asked for while planning).
func fakeDriverCluster(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(acctest.AnswerVersion(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/nodes" {
			t.Errorf("unexpected request while planning: %s %s", r.Method, r.URL.Path)
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`[{"ID":"n1","Status":"ready","Drivers":{"raw_exec":{"Detected":true,"Healthy":true}}}]`))
	})))
	t.Cleanup(srv.Close)
	return srv.URL
}

// createPlan plans config as Terraform plans a new instance: no prior
// state, the configuration proposed.
func (p *planProbe) createPlan(t *testing.T, config tftypes.Value) *tfprotov6.PlanResourceChangeResponse {
	t.Helper()
	null := tftypes.NewValue(p.typ, nil)
	req := p.planRequest(p.dv(config), p.dv(null), p.dv(config))
	req.PriorIdentity = nil
	resp, err := p.srv.PlanResourceChange(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// New instances of every shape berth's own checks treat apart are planned
// by the shortcut, and the framework, planning each too (verify), agrees:
// defaults at every depth (a whole default update object, the services'
// and volumes' defaults), computed attributes unknown, write-only values
// null, unknown values kept, sets of objects the plan does not fill, and
// what ModifyPlan sets (namespace and id, a batch job's update, a system
// job's replicas).
func TestCreatePlans_answersNewInstances(t *testing.T) {
	p := newPlanProbeAt(t, newServer("test", true), fakeDriverCluster(t))
	shortcut := p.srv.(*server).creates
	str := func(s string) tftypes.Value { return tftypes.NewValue(tftypes.String, s) }
	typeOf := func(names ...string) tftypes.Type { return valueAt(t, p.config, names...).Type() }
	unknown := func(names ...string) tftypes.Value { return tftypes.NewValue(typeOf(names...), tftypes.UnknownValue) }
	svc := func(names ...string) []string { return append([]string{"services", "app"}, names...) }

	placement := typeOf("placement").(tftypes.Object)
	constraints := placement.AttributeTypes["constraints"].(tftypes.Set)
	volumes := typeOf("volumes").(tftypes.Map)
	cases := map[string]map[string]tftypes.Value{
		"bench":     {},
		"namespace": {"namespace": str("ops")},
		"no update": {"update": tftypes.NewValue(typeOf("update"), nil)},
		"batch":     {"type": str("batch"), "update": tftypes.NewValue(typeOf("update"), nil)},
		"system":    {"type": str("system")},
		"unknown replicas and update": {
			"replicas": tftypes.NewValue(tftypes.Number, tftypes.UnknownValue), "update": unknown("update"),
		},
		"unknown name": {"name": unknown("name")},
		"constraints": {"placement": acctest.ObjectWith(placement, map[string]tftypes.Value{"constraints": tftypes.NewValue(constraints, []tftypes.Value{
			acctest.ObjectWith(constraints.ElementType.(tftypes.Object), map[string]tftypes.Value{"attribute": str("${node.class}"), "value": str("fast")}),
		})})},
		"volumes": {"volumes": tftypes.NewValue(volumes, map[string]tftypes.Value{
			"data": acctest.ObjectWith(volumes.ElementType.(tftypes.Object), map[string]tftypes.Value{"volume": str("data")}),
		})},
	}
	for name, set := range cases {
		t.Run(name, func(t *testing.T) {
			config := p.config
			for attr, v := range set {
				config = withValueAt(t, config, v, attr)
			}
			before := shortcut.taken.Load()
			resp := p.createPlan(t, config)
			for _, d := range resp.Diagnostics {
				t.Errorf("diagnostic: %s: %s", d.Summary, d.Detail)
			}
			if got := shortcut.taken.Load() - before; got != 1 {
				t.Fatalf("shortcut taken %d times, want 1", got)
			}
		})
	}

	// Values the plan must fill, checked in the answer itself (verify has
	// compared it with the framework's).
	config := withValueAt(t, p.config, tftypes.NewValue(typeOf(svc("secret_env_wo")...), map[string]tftypes.Value{"TOKEN": str("s3cret")}), svc("secret_env_wo")...)
	config = withValueAt(t, config, tftypes.NewValue(typeOf("update"), nil), "update")
	resp := p.createPlan(t, config)
	planned, err := resp.PlannedState.Unmarshal(p.typ)
	if err != nil {
		t.Fatal(err)
	}
	if v := valueAt(t, planned, svc("secret_env_wo")...); !v.IsNull() {
		t.Errorf("write-only secret_env_wo is %v in the plan, want null", v)
	}
	if v := valueAt(t, planned, "job_version"); v.IsKnown() {
		t.Errorf("computed job_version is %v in a new plan, want unknown", v)
	}
	if v := valueAt(t, planned, svc("role")...); !v.Equal(str("main")) {
		t.Errorf("services.app.role is %v, want its default main", v)
	}
	if v := valueAt(t, planned, "update", "max_parallel"); !v.Equal(tftypes.NewValue(tftypes.Number, big.NewFloat(1))) {
		t.Errorf("update.max_parallel is %v, want the default object's 1", v)
	}
	if v := valueAt(t, planned, "id"); !v.Equal(str("default/bench-1")) {
		t.Errorf("id is %v, want default/bench-1 (ModifyPlan)", v)
	}
}

// What berth's ModifyPlan reports (here a driver no node has) is left to
// the framework, which reports it as it always has: the shortcut steps
// aside and exactly the framework's diagnostic reaches Terraform.
func TestCreatePlans_modifyPlanDiagnosticsFromTheFramework(t *testing.T) {
	p := newPlanProbeAt(t, newServer("test", true), fakeDriverCluster(t))
	shortcut := p.srv.(*server).creates
	config := withValueAt(t, p.config, tftypes.NewValue(tftypes.String, "podman"), "services", "app", "driver")
	resp := p.createPlan(t, config)
	if got := shortcut.taken.Load(); got != 0 {
		t.Errorf("shortcut taken %d times for a plan with a diagnostic, want 0", got)
	}
	if len(resp.Diagnostics) != 1 || !strings.Contains(resp.Diagnostics[0].Summary, "Unknown task driver") {
		t.Fatalf("want the framework's one driver diagnostic, got %+v", resp.Diagnostics)
	}
}

// Verification fails a create plan the shortcut answers differently from
// the framework: here a schema tree that forgot every default.
func TestCreatePlans_verifyCatchesDisagreement(t *testing.T) {
	p := newPlanProbeAt(t, newServer("test", true), fakeDriverCluster(t))
	srv := p.srv.(*server)
	forgetful, err := newCreatePlans(srv.creates.data, true)
	if err != nil {
		t.Fatal(err)
	}
	forgetful.tree = map[string]*schemaTree{}
	for name, n := range srv.creates.tree {
		c := *n
		c.value = nil
		forgetful.tree[name] = &c
	}
	srv.creates = forgetful
	resp := p.createPlan(t, p.config)
	if len(resp.Diagnostics) != 1 || resp.Diagnostics[0].Severity != tfprotov6.DiagnosticSeverityError ||
		!strings.Contains(resp.Diagnostics[0].Summary, "create-plan") || !strings.Contains(resp.Diagnostics[0].Detail, "purge_on_destroy") {
		t.Fatalf("want one error naming purge_on_destroy, got %+v", resp.Diagnostics)
	}
}
