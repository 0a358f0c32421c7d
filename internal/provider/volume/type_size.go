package volume

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/attr/xattr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/berthhq/terraform-provider-berth/internal/units"
)

// sizeDoc ends the MarkdownDescription of every size attribute, so the
// docs list the accepted spellings from one place.
const sizeDoc = units.Doc + " Sizes compare by value: `1024MiB` after `1GiB`, or `20G` after `20GB`, is no change."

// sizeType is a string attribute holding a byte size with a unit
// ("10GiB"). Sizes are compared by value, so "1024MiB" after "1GiB" is no
// change.
type sizeType struct{ basetypes.StringType }

var (
	_ basetypes.StringTypable                    = sizeType{}
	_ basetypes.StringValuableWithSemanticEquals = sizeValue{}
	_ xattr.ValidateableAttribute                = sizeValue{}
)

func (t sizeType) Equal(o attr.Type) bool { _, ok := o.(sizeType); return ok }
func (t sizeType) String() string         { return "sizeType" }
func (t sizeType) ValueType(context.Context) attr.Value {
	return sizeValue{}
}

func (t sizeType) ValueFromString(_ context.Context, in basetypes.StringValue) (basetypes.StringValuable, diag.Diagnostics) {
	return sizeValue{StringValue: in}, nil
}

func (t sizeType) ValueFromTerraform(ctx context.Context, in tftypes.Value) (attr.Value, error) {
	v, err := t.StringType.ValueFromTerraform(ctx, in)
	if err != nil {
		return nil, err
	}
	s, ok := v.(basetypes.StringValue)
	if !ok {
		return nil, fmt.Errorf("unexpected value type %T", v)
	}
	return sizeValue{StringValue: s}, nil
}

// sizeValue is a value of sizeType.
type sizeValue struct{ basetypes.StringValue }

func newSizeValue(bytes int64) sizeValue {
	return sizeValue{StringValue: basetypes.NewStringValue(units.FormatBytes(bytes))}
}

func (v sizeValue) Type(context.Context) attr.Type { return sizeType{} }

func (v sizeValue) Equal(o attr.Value) bool {
	ov, ok := o.(sizeValue)
	return ok && v.StringValue.Equal(ov.StringValue)
}

// Bytes parses the value; null and unknown read as 0.
func (v sizeValue) Bytes() int64 {
	if v.IsNull() || v.IsUnknown() {
		return 0
	}
	n, _ := units.ParseBytes(v.ValueString())
	return n
}

// validSize reports whether v is known, set and parses as a size.
func validSize(v sizeValue) bool {
	if v.IsNull() || v.IsUnknown() {
		return false
	}
	_, err := units.ParseBytes(v.ValueString())
	return err == nil
}

func (v sizeValue) StringSemanticEquals(_ context.Context, nv basetypes.StringValuable) (bool, diag.Diagnostics) {
	other, ok := nv.(sizeValue)
	if !ok {
		return false, nil
	}
	a, errA := units.ParseBytes(v.ValueString())
	b, errB := units.ParseBytes(other.ValueString())
	return errA == nil && errB == nil && a == b, nil
}

func (v sizeValue) ValidateAttribute(_ context.Context, req xattr.ValidateAttributeRequest, resp *xattr.ValidateAttributeResponse) {
	if v.IsNull() || v.IsUnknown() {
		return
	}
	if _, err := units.ParseBytes(v.ValueString()); err != nil {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid size", err.Error()+`. Write a number and a unit, e.g. "10GiB", "500MB" or "20G" (see the attribute's documentation for every spelling).`)
	}
}

// keepEqualSize is a plan modifier for size attributes: when the
// configuration names the same number of bytes as state in other words
// ("1024MiB" after "1GiB"), the plan keeps state's value, so there is no
// diff. (The framework applies semantic equality only to values a
// provider returns, not to planned values.)
type keepEqualSize struct{}

func (keepEqualSize) Description(context.Context) string {
	return "sizes equal in bytes are no change"
}

func (m keepEqualSize) MarkdownDescription(ctx context.Context) string { return m.Description(ctx) }

func (keepEqualSize) PlanModifyString(_ context.Context, req planmodifier.StringRequest, resp *planmodifier.StringResponse) {
	if req.StateValue.IsNull() || req.StateValue.IsUnknown() || req.PlanValue.IsNull() || req.PlanValue.IsUnknown() {
		return
	}
	a, errA := units.ParseBytes(req.StateValue.ValueString())
	b, errB := units.ParseBytes(req.PlanValue.ValueString())
	if errA == nil && errB == nil && a == b {
		resp.PlanValue = req.StateValue
	}
}
