package server

import (
	"context"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/nomad/api"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	tfresource "github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
	"github.com/berthhq/terraform-provider-berth/internal/provider/instance"
	"github.com/berthhq/terraform-provider-berth/internal/provider/job"
	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
)

// Every attribute of berth_instance with a schema default is read by the
// unchanged-plan check, at every depth.
func TestUnchangedPlans_everyDefaultRead(t *testing.T) {
	ctx := context.Background()
	var walk func(prefix string, attrs map[string]schema.Attribute) int
	walk = func(prefix string, attrs map[string]schema.Attribute) int {
		n := 0
		for name, a := range attrs {
			if f := reflect.ValueOf(a).FieldByName("Default"); f.IsValid() && !f.IsNil() {
				n++
				if d, err := attributeDefault(ctx, a); err != nil || d == nil {
					t.Errorf("%s%s: default not read (%v)", prefix, name, err)
				}
			}
			n += walk(prefix+name+".", shared.NestedAttributes(a))
		}
		return n
	}
	if n := walk("", instance.Schema(ctx).Attributes); n < 10 {
		t.Fatalf("found %d defaults; the schema has more, so the walk is broken", n)
	}
	tree, err := schemaTreeOf(ctx, instance.Schema(ctx).Attributes)
	if err != nil {
		t.Fatal(err)
	}
	if tree["purge_on_destroy"].value == nil || tree["update"].value == nil || tree["update"].attrs["max_parallel"].value == nil ||
		!tree["services"].elements || !tree["services"].defaultsBeneath || tree["services"].attrs["role"].value == nil ||
		tree["datacenters"].value == nil || tree["name"].hasDefaults() {
		t.Fatalf("schema tree misses known defaults or invents one: %+v", tree)
	}
	if !tree["job_version"].computed || !tree["services"].attrs["secret_env_wo"].writeOnly || tree["name"].filled() {
		t.Fatalf("schema tree misreads computed or write-only attributes: %+v", tree)
	}
}

// The shortcut answers an unchanged plan with the prior state, which is
// only what the framework plans if no plan modifier of berth_instance or
// berth_job changes a value that equals its state. Each kind used is listed here
// with why; a new kind fails this test until the shortcut accounts for it
// (unchanged_plan_shortcut.go) and it is added.
func TestUnchangedPlans_everyPlanModifierAccountedFor(t *testing.T) {
	accounted := map[string]string{
		"stringplanmodifier.useStateForUnknownModifier": "only replaces an unknown plan value (an unchanged plan has none) with a prior state (a new one has none)",
		"boolplanmodifier.useStateForUnknownModifier":   "only replaces an unknown plan value with a prior state",
		"int64planmodifier.useStateForUnknownModifier":  "only replaces an unknown plan value with a prior state",
		"stringplanmodifier.requiresReplaceIfModifier": "RequiresReplace, RequiresReplaceIf and RequiresReplaceIfConfigured: " +
			"they return at once when the plan value equals the state value, or when there is no prior state",
	}
	found := map[string][]string{}
	var walk func(prefix string, attrs map[string]schema.Attribute)
	walk = func(prefix string, attrs map[string]schema.Attribute) {
		for name, a := range attrs {
			if f := reflect.ValueOf(a).FieldByName("PlanModifiers"); f.IsValid() {
				for i := range f.Len() {
					kind := strings.TrimPrefix(fmt.Sprintf("%T", f.Index(i).Interface()), "*")
					found[kind] = append(found[kind], prefix+name)
				}
			}
			walk(prefix+name+".", shared.NestedAttributes(a))
		}
	}
	for _, r := range []resource.Resource{instance.NewInstanceResource(), job.NewJobResource()} {
		var s resource.SchemaResponse
		r.Schema(context.Background(), resource.SchemaRequest{}, &s)
		prefix := typeNameOf(r) + "."
		walk(prefix, s.Schema.Attributes)
		if !slices.ContainsFunc(slices.Concat(slices.Collect(maps.Values(found))...), func(at string) bool { return strings.HasPrefix(at, prefix) }) {
			t.Fatalf("found no plan modifiers in %s; it has several, so the walk is broken", typeNameOf(r))
		}
	}
	for kind, at := range found {
		if accounted[kind] == "" {
			t.Errorf("plan modifier %s (on %v) is not accounted for by the unchanged-plan shortcut", kind, at)
		}
	}
}

// An unchanged instance is answered by the shortcut, and the framework,
// planning it too (verify), agrees. Anything that may change the plan goes
// to the framework, which then plans the change.
func TestUnchangedPlans_answersOnlyUnchanged(t *testing.T) {
	factory := newServer("test", true)
	p := newPlanProbe(t, factory)
	shortcut := p.srv.(*server).unchanged
	str := func(s string) tftypes.Value { return tftypes.NewValue(tftypes.String, s) }

	plan := func(config, state, proposed tftypes.Value, identity bool) *tfprotov6.PlanResourceChangeResponse {
		t.Helper()
		req := p.planRequest(p.dv(config), p.dv(state), p.dv(proposed))
		if !identity {
			req.PriorIdentity = nil
		}
		resp, err := p.srv.PlanResourceChange(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range resp.Diagnostics {
			t.Errorf("diagnostic: %s: %s", d.Summary, d.Detail)
		}
		return resp
	}
	planned := func(resp *tfprotov6.PlanResourceChangeResponse, names ...string) tftypes.Value {
		t.Helper()
		v, err := resp.PlannedState.Unmarshal(p.typ)
		if err != nil {
			t.Fatal(err)
		}
		return valueAt(t, v, names...)
	}

	// With an identity (Terraform >= 1.12) and without one (1.11).
	for _, identity := range []bool{true, false} {
		before := shortcut.taken.Load()
		resp := plan(p.config, p.state, p.state, identity)
		if got := shortcut.taken.Load() - before; got != 1 {
			t.Fatalf("unchanged instance (identity %v): shortcut taken %d times, want 1", identity, got)
		}
		if !planned(resp).Equal(p.state) {
			t.Fatalf("unchanged instance (identity %v): plan is not the prior state", identity)
		}
	}

	cases := []struct {
		name     string
		path     []string
		drifted  tftypes.Value
		want     tftypes.Value
		proposed bool // propose the configured value instead of the prior state
	}{
		{name: "top-level default", path: []string{"purge_on_destroy"}, drifted: tftypes.NewValue(tftypes.Bool, false),
			want: tftypes.NewValue(tftypes.Bool, true)},
		{name: "nested object default", path: []string{"update", "auto_revert"}, drifted: tftypes.NewValue(tftypes.Bool, true),
			want: tftypes.NewValue(tftypes.Bool, false)},
		{name: "default inside a map element", path: []string{"services", "app", "role"}, drifted: str("sidecar"),
			want: str("main")},
		{name: "list default", path: []string{"datacenters"},
			drifted: tftypes.NewValue(tftypes.List{ElementType: tftypes.String}, []tftypes.Value{str("dc9")}),
			want:    tftypes.NewValue(tftypes.List{ElementType: tftypes.String}, []tftypes.Value{str("*")})},
		{name: "proposed differs", path: []string{"services", "app", "cpu"}, drifted: tftypes.NewValue(tftypes.Number, 30),
			want: tftypes.NewValue(tftypes.Number, 20), proposed: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			state := withValueAt(t, p.state, tc.drifted, tc.path...)
			proposed := state
			if tc.proposed {
				proposed = p.state
			}
			before := shortcut.taken.Load()
			resp := plan(p.config, state, proposed, true)
			if got := shortcut.taken.Load() - before; got != 0 {
				t.Fatalf("shortcut taken %d times, want 0", got)
			}
			if got := planned(resp, tc.path...); !got.Equal(tc.want) {
				t.Fatalf("framework planned %s, want %s", got, tc.want)
			}
		})
	}
}

// valueAt is the value at the attribute (or map key) path names in v.
func valueAt(t *testing.T, v tftypes.Value, names ...string) tftypes.Value {
	t.Helper()
	for _, n := range names {
		var m map[string]tftypes.Value
		if err := v.As(&m); err != nil {
			t.Fatalf("%s: %v", n, err)
		}
		v = m[n]
	}
	return v
}

// withValueAt is v with the value at the attribute (or map key) path names
// replaced by val.
func withValueAt(t *testing.T, v, val tftypes.Value, names ...string) tftypes.Value {
	t.Helper()
	if len(names) == 0 {
		return val
	}
	var m map[string]tftypes.Value
	if err := v.As(&m); err != nil {
		t.Fatalf("%s: %v", names[0], err)
	}
	out := make(map[string]tftypes.Value, len(m))
	for k, e := range m {
		out[k] = e
	}
	out[names[0]] = withValueAt(t, m[names[0]], val, names[1:]...)
	return tftypes.NewValue(v.Type(), out)
}

// Verification fails a plan the shortcut answers differently from the
// framework: here a check that forgot every default answers an instance
// whose defaulted purge_on_destroy drifted.
func TestUnchangedPlans_verifyCatchesDisagreement(t *testing.T) {
	p := newPlanProbe(t, newServer("test", true))
	srv := p.srv.(*server)
	forgetful := *srv.unchanged.byType[instanceTypeName()]
	forgetful.tree = nil
	srv.unchanged = &unchangedPlans{byType: map[string]*plannedType{forgetful.typeName: &forgetful}, verify: true}
	state := withValueAt(t, p.state, tftypes.NewValue(tftypes.Bool, false), "purge_on_destroy")
	resp, err := srv.PlanResourceChange(context.Background(), p.planRequest(p.dv(p.config), p.dv(state), p.dv(state)))
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Diagnostics) != 1 || resp.Diagnostics[0].Severity != tfprotov6.DiagnosticSeverityError ||
		!strings.Contains(resp.Diagnostics[0].Detail, "purge_on_destroy") {
		t.Fatalf("want one error naming purge_on_destroy, got %+v", resp.Diagnostics)
	}
}

// Against a real agent and the real CLI: the create plans of a new
// instance, and the refresh and the plan of an unchanged instance, are
// answered by the shortcuts (and verified against
// the framework), and drift in a field the configuration leaves to its
// default (max_parallel, changed in Nomad) moves the job's modify index, so
// the refresh reads in full and the plan goes back to the default.
func TestAccInstance_unchangedPlanShortcut(t *testing.T) {
	acctest.PreCheck(t)
	name := acctest.InstanceName(t)
	cfg := acctest.InstanceConfig{Name: name}.String()
	factory, taken := countingServers()
	var plansBefore, readsBefore int64
	tfresource.ParallelTest(t, tfresource.TestCase{
		ProtoV6ProviderFactories: factory,
		CheckDestroy:             acctest.CheckInstanceDestroyed(t, name),
		Steps: []tfresource.TestStep{
			{
				Config: cfg,
				Check: func(*terraform.State) error {
					// Planned twice (plan and apply walks), both by the
					// create-plan shortcut, verified against the framework.
					if _, _, creates := taken(); creates < 2 {
						return fmt.Errorf("the create plans of the new instance took the create-plan shortcut %d times, want 2", creates)
					}
					return nil
				},
			},
			{
				PreConfig: func() { plansBefore, readsBefore, _ = taken() },
				Config:    cfg,
				ConfigPlanChecks: tfresource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectEmptyPlan(),
				}},
				Check: func(*terraform.State) error {
					plans, reads, _ := taken()
					if plans == plansBefore {
						return fmt.Errorf("the plan of the unchanged instance did not take the shortcut")
					}
					if reads == readsBefore {
						return fmt.Errorf("the refresh of the unchanged instance did not take the read shortcut")
					}
					return nil
				},
			},
			{
				// Were the refresh answered from the old state, this plan
				// would be empty.
				PreConfig: acctest.MutateJob(t, name, func(j *api.Job) { j.TaskGroups[0].Update.MaxParallel = acctest.Ptr(2) }),
				Config:    cfg,
				ConfigPlanChecks: tfresource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(acctest.InstanceAddr, plancheck.ResourceActionUpdate),
					plancheck.ExpectKnownValue(acctest.InstanceAddr, tfjsonpath.New("update").AtMapKey("max_parallel"), knownvalue.Int64Exact(1)),
				}},
				Check: acctest.WithJob(t, name, func(job *api.Job, _ []*api.AllocationListStub) error {
					if got := *job.TaskGroups[0].Update.MaxParallel; got != 1 {
						return fmt.Errorf("max_parallel in Nomad is %d after the apply, want the default 1", got)
					}
					return nil
				}),
			},
		},
	})
}

// What the shortcut skips of ModifyPlan changes no unchanged plan, for
// every job type (planJobType takes a batch job's update and a system
// job's replicas out of the plan): with verification on, the framework
// plans each case as well, and any difference is an error diagnostic. A
// ModifyPlan step added later that changes an unchanged plan fails here.
// A batch job's null update is not the schema's default, so the shortcut
// steps aside for it and the framework's plan (through planJobType) must
// still be the prior state.
func TestUnchangedPlans_modifyPlanChangesNoUnchangedPlan(t *testing.T) {
	p := newPlanProbe(t, newServer("test", true))
	shortcut := p.srv.(*server).unchanged
	typ := func(s string) tftypes.Value { return tftypes.NewValue(tftypes.String, s) }
	null := func(name string) tftypes.Value { return tftypes.NewValue(valueAt(t, p.state, name).Type(), nil) }
	for name, tc := range map[string]struct {
		set   map[string]tftypes.Value
		taken int64
	}{
		"service": {map[string]tftypes.Value{"type": typ("service")}, 1},
		"batch":   {map[string]tftypes.Value{"type": typ("batch"), "update": null("update")}, 0},
		"system":  {map[string]tftypes.Value{"type": typ("system"), "replicas": null("replicas")}, 1},
	} {
		t.Run(name, func(t *testing.T) {
			config, state := p.config, p.state
			for attr, v := range tc.set {
				config, state = withValueAt(t, config, v, attr), withValueAt(t, state, v, attr)
			}
			before := shortcut.taken.Load()
			resp, err := p.srv.PlanResourceChange(context.Background(), p.planRequest(p.dv(config), p.dv(state), p.dv(state)))
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range resp.Diagnostics {
				t.Errorf("diagnostic: %s: %s", d.Summary, d.Detail)
			}
			if got := shortcut.taken.Load() - before; got != tc.taken {
				t.Errorf("shortcut taken %d times, want %d", got, tc.taken)
			}
			if planned, err := resp.PlannedState.Unmarshal(p.typ); err != nil || !planned.Equal(state) {
				t.Errorf("planned state is not the prior state (%v)", err)
			}
		})
	}
}
