package instance

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/berthhq/terraform-provider-berth/internal/instance"
)

// A set policy's fields that the configuration leaves out are unknown in the
// plan ("known after apply") and filled in by Nomad. After a write they are
// read back from the job (settlePolicies); when the job cannot be read they
// become null (nullUnknownPolicies), and a later refresh reads them.

// settlePolicies replaces the unknown values inside m's policies (the
// instance's and the services') with what Nomad holds, live being the
// job as SpecFromJob read it (in full, before AbsorbDefaults).
func settlePolicies(ctx context.Context, m *instanceModel, live instance.Spec) diag.Diagnostics {
	var diags diag.Diagnostics
	m.Policies = resolvedAs(ctx, m.Policies, writeAttr[types.Object](ctx, "policies", live.Policies, &diags), &diags)
	m.Services = resolvedAs(ctx, m.Services, writeAttr[types.Map](ctx, "services", live.Services, &diags), &diags)
	return diags
}

// nullUnknownPolicies replaces the unknown values inside m's policies with
// null, when Nomad could not be read after a write.
func nullUnknownPolicies(ctx context.Context, m *instanceModel, diags *diag.Diagnostics) {
	m.Policies = resolvedAs(ctx, m.Policies, nil, diags)
	m.Services = resolvedAs(ctx, m.Services, nil, diags)
}

// resolvedAs is resolveUnknowns for a value of type T, which keeps its type.
func resolvedAs[T attr.Value](ctx context.Context, v T, from attr.Value, diags *diag.Diagnostics) T {
	r, ok := resolveUnknowns(ctx, v, from).(T)
	if !ok {
		diags.AddError("Provider bug", fmt.Sprintf("Resolving unknown values turned a %T into a %T.", v, resolveUnknowns(ctx, v, from)))
		return v
	}
	return r
}

// resolveUnknowns returns v with every unknown value inside it (objects and
// maps are walked) replaced by the value at the same place in from, or by
// null where from has none. Known values are kept.
func resolveUnknowns(ctx context.Context, v, from attr.Value) attr.Value {
	if v == nil {
		return v
	}
	if from != nil && (from.IsNull() || from.IsUnknown()) {
		from = nil
	}
	if v.IsUnknown() {
		if from != nil {
			return from
		}
		return nullOf(ctx, v.Type(ctx))
	}
	if v.IsNull() {
		return v
	}
	switch v := v.(type) {
	case types.Object:
		var src map[string]attr.Value
		if f, ok := from.(types.Object); ok {
			src = f.Attributes()
		}
		out := make(map[string]attr.Value, len(v.Attributes()))
		for k, a := range v.Attributes() {
			out[k] = resolveUnknowns(ctx, a, src[k])
		}
		if obj, d := types.ObjectValue(v.AttributeTypes(ctx), out); !d.HasError() {
			return obj
		}
	case types.Map:
		var src map[string]attr.Value
		if f, ok := from.(types.Map); ok {
			src = f.Elements()
		}
		out := make(map[string]attr.Value, len(v.Elements()))
		for k, e := range v.Elements() {
			out[k] = resolveUnknowns(ctx, e, src[k])
		}
		if m, d := types.MapValue(v.ElementType(ctx), out); !d.HasError() {
			return m
		}
	}
	return v
}

// nullOf is the null value of type t.
func nullOf(ctx context.Context, t attr.Type) attr.Value {
	// Only a type that cannot hold null fails here; every schema type can.
	v, _ := t.ValueFromTerraform(ctx, tftypes.NewValue(t.TerraformType(ctx), nil))
	return v
}
