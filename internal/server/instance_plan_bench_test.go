package server

import (
	"context"
	"encoding/json"
	"math/big"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
	berth "github.com/berthhq/terraform-provider-berth/internal/provider"
	"github.com/berthhq/terraform-provider-berth/internal/provider/job"
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
//	go test ./internal/server -run '^$' -bench InstanceRefreshPlan -benchmem
func BenchmarkInstanceRefreshPlan(b *testing.B) {
	b.Run("unchanged", func(b *testing.B) { benchRefreshPlan(b, newPlanProbe(b, NewServer("bench"))) })
	b.Run("framework", func(b *testing.B) {
		benchRefreshPlan(b, newPlanProbe(b, providerserver.NewProtocol6WithError(berth.New("bench")())))
	})
}

// BenchmarkJobRefreshPlan is BenchmarkInstanceRefreshPlan for an unchanged
// berth_job (benchJobValues).
func BenchmarkJobRefreshPlan(b *testing.B) {
	probe := func(factory func() (tfprotov6.ProviderServer, error)) *planProbe {
		return newProbeOf(b, factory, "http://127.0.0.1:9", typeNameOf(job.NewJobResource()), benchJobValues)
	}
	b.Run("unchanged", func(b *testing.B) { benchRefreshPlan(b, probe(NewServer("bench"))) })
	b.Run("framework", func(b *testing.B) {
		benchRefreshPlan(b, probe(providerserver.NewProtocol6WithError(berth.New("bench")())))
	})
}

func benchRefreshPlan(b *testing.B, p *planProbe) {
	ctx := context.Background()
	stateJSON, err := json.Marshal(plainValue(p.state))
	if err != nil {
		b.Fatal(err)
	}
	configDV, stateDV := p.dv(p.config), p.dv(p.state)
	b.ReportAllocs()
	for b.Loop() {
		up, err := p.srv.UpgradeResourceState(ctx, &tfprotov6.UpgradeResourceStateRequest{
			TypeName: p.typeName, RawState: &tfprotov6.RawState{JSON: stateJSON},
		})
		if err != nil || len(up.Diagnostics) > 0 {
			b.Fatalf("upgrade: %v %v", err, up.Diagnostics)
		}
		val, err := p.srv.ValidateResourceConfig(ctx, &tfprotov6.ValidateResourceConfigRequest{TypeName: p.typeName, Config: configDV})
		if err != nil || len(val.Diagnostics) > 0 {
			b.Fatalf("validate: %v %v", err, val.Diagnostics)
		}
		plan, err := p.srv.PlanResourceChange(ctx, p.planRequest(configDV, stateDV, stateDV))
		if err != nil || len(plan.Diagnostics) > 0 {
			b.Fatalf("plan: %v %v", err, plan.Diagnostics)
		}
	}
}

// planProbe is a configured provider server with a resource's
// configuration, state and identity, for planning without Nomad.
type planProbe struct {
	tb            testing.TB
	srv           tfprotov6.ProviderServer
	typeName      string
	typ           tftypes.Object
	config, state tftypes.Value
	identity      *tfprotov6.ResourceIdentityData
}

// newPlanProbe probes the bench instance (acctest.BenchInstanceValues).
func newPlanProbe(tb testing.TB, factory func() (tfprotov6.ProviderServer, error)) *planProbe {
	return newPlanProbeAt(tb, factory, "http://127.0.0.1:9")
}

// newPlanProbeAt is newPlanProbe with the provider pointed at address.
func newPlanProbeAt(tb testing.TB, factory func() (tfprotov6.ProviderServer, error), address string) *planProbe {
	return newProbeOf(tb, factory, address, instanceTypeName(), acctest.BenchInstanceValues)
}

// newProbeOf probes resource type typeName, whose configuration and state
// values builds, identified as job "bench-1" in the default namespace.
func newProbeOf(tb testing.TB, factory func() (tfprotov6.ProviderServer, error), address, typeName string,
	values func(tftypes.Object) (config, state tftypes.Value)) *planProbe {
	ctx := context.Background()
	srv, err := factory()
	if err != nil {
		tb.Fatal(err)
	}
	schemas, err := srv.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err != nil || schemas.ResourceSchemas[typeName] == nil {
		tb.Fatalf("schema: %v %v", err, schemas.Diagnostics)
	}
	// A configured provider, so the resource's own plan checks run; they
	// must not need Nomad for an unchanged resource (nothing listens here).
	pt := schemas.Provider.ValueType().(tftypes.Object)
	pcfg, err := tfprotov6.NewDynamicValue(pt, acctest.ObjectWith(pt, map[string]tftypes.Value{
		"address": tftypes.NewValue(tftypes.String, address),
	}))
	if err != nil {
		tb.Fatal(err)
	}
	if resp, err := srv.ConfigureProvider(ctx, &tfprotov6.ConfigureProviderRequest{Config: &pcfg}); err != nil || len(resp.Diagnostics) > 0 {
		tb.Fatalf("configure: %v %v", err, resp.Diagnostics)
	}
	ids, err := srv.GetResourceIdentitySchemas(ctx, &tfprotov6.GetResourceIdentitySchemasRequest{})
	if err != nil || ids.IdentitySchemas[typeName] == nil {
		tb.Fatalf("identity schema: %v", err)
	}
	p := &planProbe{tb: tb, srv: srv, typeName: typeName, typ: schemas.ResourceSchemas[typeName].ValueType().(tftypes.Object)}
	p.config, p.state = values(p.typ)
	it := ids.IdentitySchemas[typeName].ValueType()
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
		TypeName: p.typeName, Config: config, PriorState: prior, ProposedNewState: proposed, PriorIdentity: p.identity,
	}
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
