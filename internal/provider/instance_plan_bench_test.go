package provider

import (
	"context"
	"encoding/json"
	"math/big"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// These benchmarks measure the plugin's CPU for what a refresh plan of one
// unchanged berth_instance costs besides reading Nomad: the state upgrade,
// the config validation and the plan. At fleet size this is most of the
// plugin's time (see README, Performance). "unchanged" is what berth
// serves (the plan answered without the framework's plan pass,
// unchanged_plan_shortcut.go); "framework" is the framework
// planning the same instance, what every changed instance still costs, and
// it grows with the number of attributes in the schema, so a schema change
// shows there first:
//
//	go test ./internal/provider -run '^$' -bench InstanceRefreshPlan -benchmem
func BenchmarkInstanceRefreshPlan(b *testing.B) {
	b.Run("unchanged", func(b *testing.B) { benchRefreshPlan(b, NewServer("bench")) })
	b.Run("framework", func(b *testing.B) { benchRefreshPlan(b, providerserver.NewProtocol6WithError(New("bench")())) })
}

func benchRefreshPlan(b *testing.B, factory func() (tfprotov6.ProviderServer, error)) {
	ctx := context.Background()
	p := newPlanProbe(b, factory)
	stateJSON, err := json.Marshal(plainValue(p.state))
	if err != nil {
		b.Fatal(err)
	}
	configDV, stateDV := p.dv(p.config), p.dv(p.state)
	b.ReportAllocs()
	for b.Loop() {
		up, err := p.srv.UpgradeResourceState(ctx, &tfprotov6.UpgradeResourceStateRequest{
			TypeName: instanceTypeName(), RawState: &tfprotov6.RawState{JSON: stateJSON},
		})
		if err != nil || len(up.Diagnostics) > 0 {
			b.Fatalf("upgrade: %v %v", err, up.Diagnostics)
		}
		val, err := p.srv.ValidateResourceConfig(ctx, &tfprotov6.ValidateResourceConfigRequest{TypeName: instanceTypeName(), Config: configDV})
		if err != nil || len(val.Diagnostics) > 0 {
			b.Fatalf("validate: %v %v", err, val.Diagnostics)
		}
		plan, err := p.srv.PlanResourceChange(ctx, p.planRequest(configDV, stateDV, stateDV))
		if err != nil || len(plan.Diagnostics) > 0 {
			b.Fatalf("plan: %v %v", err, plan.Diagnostics)
		}
	}
}

// planProbe is a configured provider server with the bench instance's
// configuration, state and identity, for planning without Nomad.
type planProbe struct {
	tb            testing.TB
	srv           tfprotov6.ProviderServer
	typ           tftypes.Object
	config, state tftypes.Value
	identity      *tfprotov6.ResourceIdentityData
}

func newPlanProbe(tb testing.TB, factory func() (tfprotov6.ProviderServer, error)) *planProbe {
	return newPlanProbeAt(tb, factory, "http://127.0.0.1:9")
}

// newPlanProbeAt is newPlanProbe with the provider pointed at address.
func newPlanProbeAt(tb testing.TB, factory func() (tfprotov6.ProviderServer, error), address string) *planProbe {
	ctx := context.Background()
	srv, err := factory()
	if err != nil {
		tb.Fatal(err)
	}
	schemas, err := srv.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err != nil || schemas.ResourceSchemas[instanceTypeName()] == nil {
		tb.Fatalf("schema: %v %v", err, schemas.Diagnostics)
	}
	// A configured provider, so the resource's own plan checks run; they
	// must not need Nomad for an unchanged instance (nothing listens here).
	pt := schemas.Provider.ValueType().(tftypes.Object)
	pcfg, err := tfprotov6.NewDynamicValue(pt, objectWith(pt, map[string]tftypes.Value{
		"address": tftypes.NewValue(tftypes.String, address),
	}))
	if err != nil {
		tb.Fatal(err)
	}
	if resp, err := srv.ConfigureProvider(ctx, &tfprotov6.ConfigureProviderRequest{Config: &pcfg}); err != nil || len(resp.Diagnostics) > 0 {
		tb.Fatalf("configure: %v %v", err, resp.Diagnostics)
	}
	ids, err := srv.GetResourceIdentitySchemas(ctx, &tfprotov6.GetResourceIdentitySchemasRequest{})
	if err != nil || ids.IdentitySchemas[instanceTypeName()] == nil {
		tb.Fatalf("identity schema: %v", err)
	}
	p := &planProbe{tb: tb, srv: srv, typ: schemas.ResourceSchemas[instanceTypeName()].ValueType().(tftypes.Object)}
	p.config, p.state = benchInstanceValues(p.typ)
	it := ids.IdentitySchemas[instanceTypeName()].ValueType()
	id, err := tfprotov6.NewDynamicValue(it, tftypes.NewValue(it, map[string]tftypes.Value{
		"namespace": tftypes.NewValue(tftypes.String, "default"), "name": tftypes.NewValue(tftypes.String, "bench-1"),
	}))
	if err != nil {
		tb.Fatal(err)
	}
	p.identity = &tfprotov6.ResourceIdentityData{IdentityData: &id}
	return p
}

func (p *planProbe) dv(v tftypes.Value) *tfprotov6.DynamicValue {
	d, err := tfprotov6.NewDynamicValue(p.typ, v)
	if err != nil {
		p.tb.Fatal(err)
	}
	return &d
}

func (p *planProbe) planRequest(config, prior, proposed *tfprotov6.DynamicValue) *tfprotov6.PlanResourceChangeRequest {
	return &tfprotov6.PlanResourceChangeRequest{
		TypeName: instanceTypeName(), Config: config, PriorState: prior, ProposedNewState: proposed, PriorIdentity: p.identity,
	}
}

// benchInstanceValues returns the configuration and the state of the bench
// job (make bench): one raw_exec service with a command and args, an update
// block, one running allocation.
func benchInstanceValues(typ tftypes.Object) (config, state tftypes.Value) {
	str := func(s string) tftypes.Value { return tftypes.NewValue(tftypes.String, s) }
	num := func(n int64) tftypes.Value { return tftypes.NewValue(tftypes.Number, big.NewFloat(float64(n))) }
	boolean := func(v bool) tftypes.Value { return tftypes.NewValue(tftypes.Bool, v) }
	strList := func(ss ...string) tftypes.Value {
		vs := make([]tftypes.Value, len(ss))
		for i, s := range ss {
			vs[i] = str(s)
		}
		return tftypes.NewValue(tftypes.List{ElementType: tftypes.String}, vs)
	}
	svcMap := typ.AttributeTypes["services"].(tftypes.Map)
	svcType := svcMap.ElementType.(tftypes.Object)
	updType := typ.AttributeTypes["update"].(tftypes.Object)

	svcConfig := map[string]tftypes.Value{"driver": str("raw_exec"), "command": str("/bin/sleep"), "args": strList("3600"), "cpu": num(20), "memory": num(16)}
	svcState := map[string]tftypes.Value{"role": str("main")}
	for k, v := range svcConfig {
		svcState[k] = v
	}
	upd := map[string]tftypes.Value{"max_parallel": num(1), "min_healthy_time": str("1s")}
	updState := map[string]tftypes.Value{"healthy_deadline": str("5m"), "progress_deadline": str("10m"), "auto_revert": boolean(false), "canary": num(0)}
	for k, v := range upd {
		updState[k] = v
	}
	top := map[string]tftypes.Value{"name": str("bench-1"), "wait_for_healthy": boolean(false)}
	topState := map[string]tftypes.Value{
		"id": str("default/bench-1"), "namespace": str("default"), "datacenters": strList("*"), "node_pool": str("default"),
		"replicas": num(1), "running": boolean(true), "network_mode": str("host"), "purge_on_destroy": boolean(true),
		"job_version": num(0), "job_modify_index": num(42), "deployment_id": str(""), "deployment_status": str(""),
	}
	for k, v := range top {
		topState[k] = v
	}
	top["services"] = tftypes.NewValue(svcMap, map[string]tftypes.Value{"app": objectWith(svcType, svcConfig)})
	top["update"] = objectWith(updType, upd)
	topState["services"] = tftypes.NewValue(svcMap, map[string]tftypes.Value{"app": objectWith(svcType, svcState)})
	topState["update"] = objectWith(updType, updState)
	return objectWith(typ, top), objectWith(typ, topState)
}

// objectWith is an object of type t with the given attributes set and every
// other attribute null.
func objectWith(t tftypes.Object, set map[string]tftypes.Value) tftypes.Value {
	vals := make(map[string]tftypes.Value, len(t.AttributeTypes))
	for name, at := range t.AttributeTypes {
		vals[name] = tftypes.NewValue(at, nil)
	}
	for name, v := range set {
		vals[name] = v
	}
	return tftypes.NewValue(t, vals)
}

// plainValue is v as encoding/json writes state: objects and maps as
// maps, lists as slices, null as nil.
func plainValue(v tftypes.Value) any {
	if v.IsNull() {
		return nil
	}
	switch v.Type().(type) {
	case tftypes.Object, tftypes.Map:
		var m map[string]tftypes.Value
		_ = v.As(&m)
		out := make(map[string]any, len(m))
		for k, e := range m {
			out[k] = plainValue(e)
		}
		return out
	case tftypes.List, tftypes.Set:
		var l []tftypes.Value
		_ = v.As(&l)
		out := make([]any, len(l))
		for i, e := range l {
			out[i] = plainValue(e)
		}
		return out
	}
	var x any
	switch {
	case v.Type().Is(tftypes.String):
		var s string
		_ = v.As(&s)
		x = s
	case v.Type().Is(tftypes.Bool):
		var b bool
		_ = v.As(&b)
		x = b
	case v.Type().Is(tftypes.Number):
		var f big.Float
		_ = v.As(&f)
		x, _ = f.Float64()
	}
	return x
}
