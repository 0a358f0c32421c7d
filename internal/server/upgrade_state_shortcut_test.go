package server

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	berth "github.com/berthhq/terraform-provider-berth/internal/provider"
)

// resourceSchemas is every resource berth serves, by type name.
func resourceSchemas(t *testing.T) map[string]resource.SchemaResponse {
	t.Helper()
	ctx := context.Background()
	p := berth.New("test")()
	var pm provider.MetadataResponse
	p.Metadata(ctx, provider.MetadataRequest{}, &pm)
	out := map[string]resource.SchemaResponse{}
	for _, build := range p.Resources(ctx) {
		r := build()
		var m resource.MetadataResponse
		r.Metadata(ctx, resource.MetadataRequest{ProviderTypeName: pm.TypeName}, &m)
		var s resource.SchemaResponse
		r.Schema(ctx, resource.SchemaRequest{}, &s)
		out[m.TypeName] = s
	}
	return out
}

// stateJSON is a state of type typ as Terraform stores it: every string
// attribute set, the rest null, plus an attribute the schema does not
// have (an attribute removed since), which the upgrade drops.
func stateJSON(t *testing.T, typ tftypes.Type) []byte {
	t.Helper()
	obj, ok := typ.(tftypes.Object)
	if !ok {
		t.Fatalf("state type %s is not an object", typ)
	}
	state := map[string]any{"attribute_removed_since": "x"}
	for name, at := range obj.AttributeTypes {
		if at.Is(tftypes.String) {
			state[name] = "v-" + name
		}
	}
	b, err := json.Marshal(state)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func upgrade(t *testing.T, srv *server, typeName string, version int64, raw []byte) *tfprotov6.UpgradeResourceStateResponse {
	t.Helper()
	resp, err := srv.UpgradeResourceState(context.Background(), &tfprotov6.UpgradeResourceStateRequest{
		TypeName: typeName, Version: version, RawState: &tfprotov6.RawState{JSON: raw},
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range resp.Diagnostics {
		t.Errorf("%s: %s: %s", typeName, d.Summary, d.Detail)
	}
	return resp
}

func newVerifyingTestServer(t *testing.T) *server {
	t.Helper()
	ps, err := newServer("test", true)()
	if err != nil {
		t.Fatal(err)
	}
	return ps.(*server)
}

// Every resource's state at its schema's version is upgraded by the
// shortcut, to what the framework upgrades it to (verify mode compares
// the two and fails on a difference).
func TestUpgradeStates_everyResourceAgreesWithFramework(t *testing.T) {
	srv := newVerifyingTestServer(t)
	schemas := resourceSchemas(t)
	for name, s := range schemas {
		typ := s.Schema.Type().TerraformType(context.Background())
		resp := upgrade(t, srv, name, s.Schema.Version, stateJSON(t, typ))
		got, err := resp.UpgradedState.Unmarshal(typ)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var attrs map[string]tftypes.Value
		if err := got.As(&attrs); err != nil {
			t.Fatal(err)
		}
		if v := attrs["name"]; v.IsKnown() && !v.IsNull() && !v.Equal(tftypes.NewValue(tftypes.String, "v-name")) {
			t.Errorf("%s: name reads %s", name, v)
		}
	}
	if got := srv.upgrades.taken.Load(); got != int64(len(schemas)) {
		t.Fatalf("shortcut taken %d times for %d resources", got, len(schemas))
	}
}

// Another version, a flatmap state, an unknown type and BERTH_SHORTCUTS=off
// go to the framework.
func TestUpgradeStates_leavesTheRestToTheFramework(t *testing.T) {
	s := resourceSchemas(t)["berth_job"]
	raw := stateJSON(t, s.Schema.Type().TerraformType(context.Background()))
	srv := newVerifyingTestServer(t)
	for _, req := range []*tfprotov6.UpgradeResourceStateRequest{
		{TypeName: "berth_job", Version: s.Schema.Version + 1, RawState: &tfprotov6.RawState{JSON: raw}},
		{TypeName: "berth_job", Version: s.Schema.Version, RawState: &tfprotov6.RawState{Flatmap: map[string]string{"id": "x"}}},
		{TypeName: "berth_nothing", Version: 0, RawState: &tfprotov6.RawState{JSON: raw}},
	} {
		if srv.upgrades.answer(context.Background(), req) != nil {
			t.Errorf("shortcut answered %s version %d", req.TypeName, req.Version)
		}
	}
	t.Setenv(shortcutsEnv, "off")
	off := newVerifyingTestServer(t)
	upgrade(t, off, "berth_job", s.Schema.Version, raw)
	if off.upgrades.taken.Load() != 0 {
		t.Fatal("BERTH_SHORTCUTS=off: the shortcut answered")
	}
}

// Verify mode turns a shortcut that disagrees with the framework into an
// error.
func TestUpgradeStates_verifyCatchesADifference(t *testing.T) {
	typ := tftypes.Object{AttributeTypes: map[string]tftypes.Type{"name": tftypes.String}}
	value := func(s string) *tfprotov6.DynamicValue {
		dv, err := tfprotov6.NewDynamicValue(typ, tftypes.NewValue(typ, map[string]tftypes.Value{"name": tftypes.NewValue(tftypes.String, s)}))
		if err != nil {
			t.Fatal(err)
		}
		return &dv
	}
	same := verifiedUpgrade(typ, &tfprotov6.UpgradeResourceStateResponse{UpgradedState: value("a")},
		&tfprotov6.UpgradeResourceStateResponse{UpgradedState: value("a")})
	if len(same.Diagnostics) != 0 {
		t.Fatalf("equal answers: %v", same.Diagnostics)
	}
	differ := verifiedUpgrade(typ, &tfprotov6.UpgradeResourceStateResponse{UpgradedState: value("a")},
		&tfprotov6.UpgradeResourceStateResponse{UpgradedState: value("b")})
	if len(differ.Diagnostics) != 1 || differ.Diagnostics[0].Severity != tfprotov6.DiagnosticSeverityError {
		t.Fatalf("differing answers: %v", differ.Diagnostics)
	}
}

// benchInstanceState is a berth_instance's state as `make bench` leaves it.
const benchInstanceState = `{"datacenters": ["*"], "deployment_id": "", "deployment_status": "", "group": null, "id": "default/bench-berth-nowait-0", "job_modify_index": 2987, "job_version": 0, "meta": null, "name": "bench-berth-nowait-0", "namespace": "default", "network_mode": "host", "node_pool": "default", "node_reservation": null, "placement": null, "policies": null, "promote_trigger": null, "purge_on_destroy": true, "replicas": 1, "restart_triggers": null, "running": true, "services": {"main": {"args": ["3600"], "artifacts": null, "check": null, "command": "/bin/sleep", "config": null, "cpu": 20, "driver": "raw_exec", "env": null, "image": null, "kill_signal": null, "memory": 16, "memory_max": null, "mounts": null, "policies": null, "ports": null, "registrations": null, "role": "main", "secret_env_wo": null, "secret_env_wo_version": null, "templates": null}}, "timeouts": null, "type": null, "update": {"auto_promote": null, "auto_revert": false, "canary": 0, "health_check": null, "healthy_deadline": "5m", "max_parallel": 1, "min_healthy_time": "1s", "progress_deadline": "10m", "stagger": null}, "volumes": null, "wait_for_healthy": false}`

// The upgrade of one bench berth_instance state, by the framework and by
// the shortcut.
func BenchmarkUpgradeInstanceState(b *testing.B) {
	ps, err := newServer("test", false)()
	if err != nil {
		b.Fatal(err)
	}
	srv := ps.(*server)
	req := &tfprotov6.UpgradeResourceStateRequest{TypeName: "berth_instance", RawState: &tfprotov6.RawState{JSON: []byte(benchInstanceState)}}
	ctx := context.Background()
	b.Run("framework", func(b *testing.B) {
		for b.Loop() {
			if resp, err := srv.frameworkServer.UpgradeResourceState(ctx, req); err != nil || len(resp.Diagnostics) > 0 {
				b.Fatal(err, resp.Diagnostics)
			}
		}
	})
	b.Run("shortcut", func(b *testing.B) {
		for b.Loop() {
			if srv.upgrades.answer(ctx, req) == nil {
				b.Fatal("not answered")
			}
		}
	})
}
