package shared

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timetypes/timetypes"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/berthhq/terraform-provider-berth/internal/workflow"
)

// AnyUnknown reports whether any of vs is, or contains, an unknown value
// (at plan time), e.g. a map whose one element comes from a resource not
// created yet.
func AnyUnknown(vs ...attr.Value) bool {
	for _, v := range vs {
		if v.IsUnknown() {
			return true
		}
		tv, err := v.ToTerraformValue(context.Background())
		if err != nil || !tv.IsFullyKnown() {
			return true
		}
	}
	return false
}

func StringOrNull(s string) types.String {
	if s == "" {
		return types.StringNull()
	}
	return types.StringValue(s)
}

func ListOf(ctx context.Context, l []string, diags *diag.Diagnostics) types.List {
	v, d := types.ListValueFrom(ctx, types.StringType, l)
	diags.Append(d...)
	return v
}

func ListOrNull(ctx context.Context, l []string, diags *diag.Diagnostics) types.List {
	if len(l) == 0 {
		return types.ListNull(types.StringType)
	}
	return ListOf(ctx, l, diags)
}

func MapOrNull(ctx context.Context, m map[string]string, diags *diag.Diagnostics) types.Map {
	if len(m) == 0 {
		return types.MapNull(types.StringType)
	}
	v, d := types.MapValueFrom(ctx, types.StringType, m)
	diags.Append(d...)
	return v
}

// DurationValue renders d the way people write it ("1m", "1h30m", not
// "1m0s"), so imported values read like configuration.
func DurationValue(d time.Duration) timetypes.GoDuration {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return timetypes.NewGoDurationValueFromStringMust(s)
}

// ConfigNull reports whether a root attribute is null in configuration
// (unset), as opposed to unknown because it depends on something not yet
// created.
func ConfigNull(ctx context.Context, cfg tfsdk.Config, name string, diags *diag.Diagnostics) bool {
	var v attr.Value
	diags.Append(cfg.GetAttribute(ctx, path.Root(name), &v)...)
	return v != nil && v.IsNull()
}

// CleanupContext is for the calls that must still happen after the
// operation's own deadline passed (recording what exists, releasing a
// charge): the caller's values and logger, a short deadline of its own.
func CleanupContext(ctx context.Context) context.Context { return workflow.CleanupContext(ctx) }

// KeepEmptyMap returns prior when it is an empty (not null) map and next
// is null: Nomad does not distinguish "{}" from unset, and a user who
// wrote "{}" must not see a diff.
func KeepEmptyMap(prior, next types.Map) types.Map {
	if next.IsNull() && !prior.IsNull() && !prior.IsUnknown() && len(prior.Elements()) == 0 {
		return prior
	}
	return next
}

// KeepEmptyList is keepEmptyMap for lists ("[]" versus unset).
func KeepEmptyList(prior, next types.List) types.List {
	if next.IsNull() && !prior.IsNull() && !prior.IsUnknown() && len(prior.Elements()) == 0 {
		return prior
	}
	return next
}

// SameModel reports whether two models (structs of attr.Value fields with
// tfsdk tags) hold equal values in every field. A Read that changed
// nothing then leaves the state as Terraform sent it instead of writing
// the whole model back, which at fleet size is a plan's largest cost in
// Read.
func SameModel[M any](a, b *M) bool {
	va, vb := reflect.ValueOf(a).Elem(), reflect.ValueOf(b).Elem()
	for i := range va.NumField() {
		x, ok1 := va.Field(i).Interface().(attr.Value)
		y, ok2 := vb.Field(i).Interface().(attr.Value)
		if !ok1 || !ok2 || !x.Equal(y) {
			return false
		}
	}
	return true
}

// SetPlanRoot sets top-level attributes of plan in one rebuild of its root
// object. SetAttribute walks and rebuilds the whole plan, checking every
// value against its type, once per call: for berth_instance's type that
// is about a millisecond each on every create.
func SetPlanRoot(plan *tfsdk.Plan, values map[string]tftypes.Value) diag.Diagnostics {
	var diags diag.Diagnostics
	if len(values) == 0 {
		return diags
	}
	obj, ok := plan.Raw.Type().(tftypes.Object)
	var attrs map[string]tftypes.Value
	if !ok || !plan.Raw.IsKnown() || plan.Raw.IsNull() || plan.Raw.As(&attrs) != nil {
		diags.AddError("berth bug: plan is not a known object", fmt.Sprintf("Could not set %d attributes in the plan.", len(values)))
		return diags
	}
	out := make(map[string]tftypes.Value, len(attrs))
	for k, v := range attrs {
		out[k] = v
	}
	for k, v := range values {
		if t, ok := obj.AttributeTypes[k]; !ok || !v.Type().Equal(t) {
			diags.AddError("berth bug: plan attribute of the wrong type", fmt.Sprintf("Attribute %q cannot hold %s.", k, v.Type()))
			return diags
		}
		out[k] = v
	}
	plan.Raw = tftypes.NewValue(obj, out)
	return diags
}
