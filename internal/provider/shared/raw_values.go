package shared

import (
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// Plan-time checks that look at a few fields of berth_instance read them
// from the raw Terraform value. Converting the whole object (or all of
// services) into framework values first costs time in proportion to the
// schema, on every instance of every plan (see DESIGN, "Where a plan's time
// goes").

// RawAttr follows object attribute names from v. It returns a null value
// of no type when a step is missing, null, unknown or not an object, so
// callers test the result with IsNull / IsKnown as usual.
func RawAttr(v tftypes.Value, names ...string) tftypes.Value {
	for _, name := range names {
		attrs, ok := RawElements(v)
		if !ok {
			return tftypes.Value{}
		}
		if v, ok = attrs[name]; !ok {
			return tftypes.Value{}
		}
	}
	return v
}

// RawElements returns the elements of a known, non-null map or the
// attributes of a known, non-null object.
func RawElements(v tftypes.Value) (map[string]tftypes.Value, bool) {
	if v.Type() == nil || !v.IsKnown() || v.IsNull() {
		return nil, false
	}
	var out map[string]tftypes.Value
	if !v.Type().Is(tftypes.Map{}) && !v.Type().Is(tftypes.Object{}) || v.As(&out) != nil {
		return nil, false
	}
	return out, true
}

// RawString returns a known, non-null string.
func RawString(v tftypes.Value) (string, bool) {
	var s string
	if v.Type() == nil || !v.Type().Is(tftypes.String) || !v.IsKnown() || v.IsNull() || v.As(&s) != nil {
		return "", false
	}
	return s, true
}

// RawFullyKnown reports whether the named attributes of v hold no unknown
// value anywhere inside (anyUnknown for the raw value, without converting).
func RawFullyKnown(v tftypes.Value, names ...string) bool {
	for _, name := range names {
		if !RawAttr(v, name).IsFullyKnown() {
			return false
		}
	}
	return true
}
