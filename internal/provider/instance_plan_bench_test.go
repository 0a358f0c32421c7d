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
// plugin's time (see README, Performance), and it grows with the number of
// attributes in the schema, so a schema change shows here first:
//
//	go test ./internal/provider -run '^$' -bench InstanceRefreshPlan -benchmem
func BenchmarkInstanceRefreshPlan(b *testing.B) {
	ctx := context.Background()
	srv, err := providerserver.NewProtocol6WithError(New("bench")())()
	if err != nil {
		b.Fatal(err)
	}
	schemas, err := srv.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err != nil || schemas.ResourceSchemas["berth_instance"] == nil {
		b.Fatalf("schema: %v %v", err, schemas.Diagnostics)
	}
	// A configured provider, so the resource's own plan checks run; they
	// must not need Nomad for an unchanged instance (nothing listens here).
	pt := schemas.Provider.ValueType().(tftypes.Object)
	pcfg, err := tfprotov6.NewDynamicValue(pt, objectWith(pt, map[string]tftypes.Value{
		"address": tftypes.NewValue(tftypes.String, "http://127.0.0.1:9"),
	}))
	if err != nil {
		b.Fatal(err)
	}
	if resp, err := srv.ConfigureProvider(ctx, &tfprotov6.ConfigureProviderRequest{Config: &pcfg}); err != nil || len(resp.Diagnostics) > 0 {
		b.Fatalf("configure: %v %v", err, resp.Diagnostics)
	}
	typ := schemas.ResourceSchemas["berth_instance"].ValueType().(tftypes.Object)
	config, state := benchInstanceValues(typ)
	dv := func(v tftypes.Value) *tfprotov6.DynamicValue {
		d, err := tfprotov6.NewDynamicValue(typ, v)
		if err != nil {
			b.Fatal(err)
		}
		return &d
	}
	configDV, stateDV := dv(config), dv(state)
	stateJSON, err := json.Marshal(plainValue(state))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		up, err := srv.UpgradeResourceState(ctx, &tfprotov6.UpgradeResourceStateRequest{
			TypeName: "berth_instance", RawState: &tfprotov6.RawState{JSON: stateJSON},
		})
		if err != nil || len(up.Diagnostics) > 0 {
			b.Fatalf("upgrade: %v %v", err, up.Diagnostics)
		}
		val, err := srv.ValidateResourceConfig(ctx, &tfprotov6.ValidateResourceConfigRequest{TypeName: "berth_instance", Config: configDV})
		if err != nil || len(val.Diagnostics) > 0 {
			b.Fatalf("validate: %v %v", err, val.Diagnostics)
		}
		plan, err := srv.PlanResourceChange(ctx, &tfprotov6.PlanResourceChangeRequest{
			TypeName: "berth_instance", Config: configDV, PriorState: stateDV, ProposedNewState: stateDV,
		})
		if err != nil || len(plan.Diagnostics) > 0 {
			b.Fatalf("plan: %v %v", err, plan.Diagnostics)
		}
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
	allocList := typ.AttributeTypes["allocations"].(tftypes.List)
	allocType := allocList.ElementType.(tftypes.Object)

	svcConfig := map[string]tftypes.Value{"driver": str("raw_exec"), "command": str("/bin/sleep"), "args": strList("3600"), "cpu": num(20), "memory": num(16)}
	svcState := map[string]tftypes.Value{"role": str("main")}
	for k, v := range svcConfig {
		svcState[k] = v
	}
	upd := map[string]tftypes.Value{"max_parallel": num(1), "min_healthy_time": str("1s")}
	updState := map[string]tftypes.Value{"healthy_deadline": str("5m0s"), "progress_deadline": str("10m0s"), "auto_revert": boolean(false), "canary": num(0)}
	for k, v := range upd {
		updState[k] = v
	}
	top := map[string]tftypes.Value{"name": str("bench-1"), "wait_for_healthy": boolean(false)}
	topState := map[string]tftypes.Value{
		"id": str("default/bench-1"), "namespace": str("default"), "datacenters": strList("*"), "node_pool": str("default"),
		"replicas": num(1), "running": boolean(true), "network_mode": str("host"), "purge_on_destroy": boolean(true),
		"job_version": num(0), "job_modify_index": num(42), "status": str("running"), "deployment_id": str(""), "deployment_status": str(""),
		"allocations": tftypes.NewValue(allocList, []tftypes.Value{objectWith(allocType, map[string]tftypes.Value{
			"id": str("0b7e5b54-7d7e-4c43-9d3e-6a8c1b3f2a10"), "node_id": str("5d3c1b2a-0f9e-4d8c-b7a6-958473625140"),
			"client_status": str("running"), "healthy": boolean(true),
		})}),
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
