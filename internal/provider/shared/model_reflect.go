package shared

import (
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"reflect"
	"slices"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/defaults"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// This file converts between Terraform values and plain Go domain structs
// whose fields carry `tf:"<attribute>"` tags, guided by the resource schema,
// so that a new attribute needs no conversion code of its own:
//   - Terraform to Go: a null attribute takes the schema's default, or stays
//     the zero value; an unknown one into a pointer to a plain value (an
//     optional sub-field Nomad fills in when unset) stays nil, "unset";
//     any other unknown makes the whole conversion errUnknown (plan time).
//   - Go to Terraform: a zero value (empty string, 0, empty list or map, nil
//     pointer) reads as null unless the attribute is computed (it has a
//     default), which is how an unset optional attribute reads back; a
//     non-nil pointer is a set value, so a pointer to 0 reads as 0.
//   - a Go slice is a list or a set (in no particular order; values equal
//     in Terraform are one element);
//   - time.Duration is a Go duration string ("10s"); map[string]any is a
//     JSON object string (driver config).

var (
	durationType  = reflect.TypeOf(time.Duration(0))
	jsonObjectTyp = reflect.TypeOf(map[string]any(nil))
)

// NestedAttributes returns the attributes of a nested attribute's object,
// nil for a plain attribute.
func NestedAttributes(a schema.Attribute) map[string]schema.Attribute {
	switch a := a.(type) {
	case schema.SingleNestedAttribute:
		return a.Attributes
	case schema.MapNestedAttribute:
		return a.NestedObject.Attributes
	case schema.ListNestedAttribute:
		return a.NestedObject.Attributes
	case schema.SetNestedAttribute:
		return a.NestedObject.Attributes
	}
	return nil
}

// AttributeTypes is the object type's attribute types of attrs.
func AttributeTypes(attrs map[string]schema.Attribute) map[string]attr.Type {
	out := make(map[string]attr.Type, len(attrs))
	for name, a := range attrs {
		out[name] = a.GetType()
	}
	return out
}

// ElementAttribute is the schema of one element of a collection attribute:
// its nested object, or nil for plain elements. Elements are never null.
func ElementAttribute(a schema.Attribute) schema.Attribute {
	if nested := NestedAttributes(a); nested != nil {
		return schema.SingleNestedAttribute{Attributes: nested, Computed: true}
	}
	return nil
}

// SchemaDefault is the value the schema gives a if it is left out, or nil.
func SchemaDefault(ctx context.Context, a schema.Attribute) attr.Value {
	switch a := a.(type) {
	case schema.StringAttribute:
		if a.Default != nil {
			var resp defaults.StringResponse
			a.Default.DefaultString(ctx, defaults.StringRequest{}, &resp)
			return resp.PlanValue
		}
	case schema.Int64Attribute:
		if a.Default != nil {
			var resp defaults.Int64Response
			a.Default.DefaultInt64(ctx, defaults.Int64Request{}, &resp)
			return resp.PlanValue
		}
	case schema.BoolAttribute:
		if a.Default != nil {
			var resp defaults.BoolResponse
			a.Default.DefaultBool(ctx, defaults.BoolRequest{}, &resp)
			return resp.PlanValue
		}
	case schema.SingleNestedAttribute:
		if a.Default != nil {
			var resp defaults.ObjectResponse
			a.Default.DefaultObject(ctx, defaults.ObjectRequest{}, &resp)
			return resp.PlanValue
		}
	}
	return nil
}

// TfToGo stores v, the value of attribute a at path at, into dst.
func TfToGo(ctx context.Context, at path.Path, a schema.Attribute, v attr.Value, dst reflect.Value, diags *diag.Diagnostics) error {
	if v.IsUnknown() {
		if t := dst.Type(); t.Kind() == reflect.Pointer && t.Elem().Kind() != reflect.Struct {
			dst.SetZero()
			return nil
		}
		return ErrUnknown
	}
	if v.IsNull() {
		if v = SchemaDefault(ctx, a); v == nil || v.IsNull() {
			dst.SetZero()
			return nil
		}
	}
	switch t := dst.Type(); {
	case t == durationType:
		s, ok := stringOf(ctx, at, v, diags)
		if !ok {
			return nil
		}
		if parsed, err := time.ParseDuration(s); err == nil {
			dst.SetInt(int64(parsed))
		} else {
			// The attribute's type validated it already; this is a bug.
			diags.AddAttributeError(at, "Invalid duration", err.Error())
		}
	case t == jsonObjectTyp:
		s, ok := stringOf(ctx, at, v, diags)
		if !ok {
			return nil
		}
		var obj map[string]any
		if err := json.Unmarshal([]byte(s), &obj); err == nil {
			dst.Set(reflect.ValueOf(obj))
		} else {
			diags.AddAttributeError(at, "Invalid driver config",
				"config must be a JSON object, for example jsonencode({ ports = [\"http\"] }): "+err.Error())
		}
	case t.Kind() == reflect.String:
		if s, ok := stringOf(ctx, at, v, diags); ok {
			dst.SetString(s)
		}
	case t.Kind() == reflect.Int:
		if n, ok := valueAs[basetypes.Int64Valuable](at, v, diags); ok {
			i, d := n.ToInt64Value(ctx)
			diags.Append(d...)
			dst.SetInt(i.ValueInt64())
		}
	case t.Kind() == reflect.Bool:
		if b, ok := valueAs[basetypes.BoolValuable](at, v, diags); ok {
			bv, d := b.ToBoolValue(ctx)
			diags.Append(d...)
			dst.SetBool(bv.ValueBool())
		}
	case t.Kind() == reflect.Slice:
		// A list keeps its order; a set's elements come in no particular
		// order, and each is addressed by its value.
		var elems []attr.Value
		elemPath := at.AtListIndex
		if sv, isSet := v.(basetypes.SetValuable); isSet {
			set, d := sv.ToSetValue(ctx)
			diags.Append(d...)
			elems = set.Elements()
			elemPath = func(i int) path.Path { return at.AtSetValue(elems[i]) }
		} else if lv, ok := valueAs[basetypes.ListValuable](at, v, diags); ok {
			l, d := lv.ToListValue(ctx)
			diags.Append(d...)
			elems = l.Elements()
		} else {
			return nil
		}
		out := reflect.MakeSlice(t, len(elems), len(elems))
		for i, e := range elems {
			if err := TfToGo(ctx, elemPath(i), ElementAttribute(a), e, out.Index(i), diags); err != nil {
				return err
			}
		}
		dst.Set(out)
	case t.Kind() == reflect.Map:
		mv, ok := valueAs[basetypes.MapValuable](at, v, diags)
		if !ok {
			return nil
		}
		m, d := mv.ToMapValue(ctx)
		diags.Append(d...)
		out := reflect.MakeMapWithSize(t, len(m.Elements()))
		for k, e := range m.Elements() {
			ev := reflect.New(t.Elem()).Elem()
			if err := TfToGo(ctx, at.AtMapKey(k), ElementAttribute(a), e, ev, diags); err != nil {
				return err
			}
			out.SetMapIndex(reflect.ValueOf(k).Convert(t.Key()), ev)
		}
		dst.Set(out)
	case t.Kind() == reflect.Pointer:
		p := reflect.New(t.Elem())
		if err := TfToGo(ctx, at, a, v, p.Elem(), diags); err != nil {
			return err
		}
		dst.Set(p)
	case t.Kind() == reflect.Struct:
		ov, ok := valueAs[basetypes.ObjectValuable](at, v, diags)
		if !ok {
			return nil
		}
		o, d := ov.ToObjectValue(ctx)
		diags.Append(d...)
		values, attrs := o.Attributes(), NestedAttributes(a)
		for i := range t.NumField() {
			name := t.Field(i).Tag.Get("tf")
			if name == "" {
				continue
			}
			fa, ok := attrs[name]
			if !ok {
				diags.AddAttributeError(at, "Provider bug", fmt.Sprintf("%s.%s has no attribute %q in the schema.", t, t.Field(i).Name, name))
				return nil
			}
			if err := TfToGo(ctx, at.AtName(name), fa, values[name], dst.Field(i), diags); err != nil {
				return err
			}
		}
	default:
		diags.AddAttributeError(at, "Provider bug", fmt.Sprintf("cannot read a Terraform value into %s.", t))
	}
	return nil
}

// valueAs asserts that v, the value at at, is a V. The schema decides v's
// type and the tag decides the Go field: a field of another kind is a
// provider bug, reported at the attribute's path rather than a panic.
func valueAs[V any](at path.Path, v attr.Value, diags *diag.Diagnostics) (V, bool) {
	x, ok := v.(V)
	if !ok {
		diags.AddAttributeError(at, "Provider bug",
			fmt.Sprintf("The attribute holds a %T, which its Go field cannot take as %s.", v, reflect.TypeFor[V]()))
	}
	return x, ok
}

// stringOf is v's string, false after reporting why there is none.
func stringOf(ctx context.Context, at path.Path, v attr.Value, diags *diag.Diagnostics) (string, bool) {
	sv, ok := valueAs[basetypes.StringValuable](at, v, diags)
	if !ok {
		return "", false
	}
	s, d := sv.ToStringValue(ctx)
	diags.Append(d...)
	return s.ValueString(), !d.HasError()
}

// GoToTF converts src into a value of attribute a.
func GoToTF(ctx context.Context, a schema.Attribute, src reflect.Value) (attr.Value, diag.Diagnostics) {
	var diags diag.Diagnostics
	typ := a.GetType()
	raw, err := goToTerraform(ctx, a, typ.TerraformType(ctx), src)
	if err != nil {
		diags.AddError("Provider bug", "Cannot convert a value to Terraform: "+err.Error())
		return nil, diags
	}
	v, err := typ.ValueFromTerraform(ctx, raw)
	if err != nil {
		diags.AddError("Provider bug", "Cannot convert a value to Terraform: "+err.Error())
	}
	return v, diags
}

func goToTerraform(ctx context.Context, a schema.Attribute, tt tftypes.Type, src reflect.Value) (tftypes.Value, error) {
	null := tftypes.NewValue(tt, nil)
	computed := a == nil || a.IsComputed()
	set := false // a non-nil pointer is a value that was set, even a zero one
	if src.Kind() == reflect.Pointer {
		if src.IsNil() {
			return null, nil
		}
		src, set = src.Elem(), true
	}
	empty := src.IsZero() || (src.Kind() == reflect.Map || src.Kind() == reflect.Slice) && src.Len() == 0
	if empty && !computed && !set {
		return null, nil
	}
	switch t := src.Type(); {
	case t == durationType:
		return tftypes.NewValue(tt, DurationValue(time.Duration(src.Int())).ValueString()), nil
	case t == jsonObjectTyp:
		b, err := json.Marshal(src.Interface())
		if err != nil {
			return null, fmt.Errorf("driver config cannot be encoded as JSON: %w", err)
		}
		return tftypes.NewValue(tt, string(b)), nil
	case t.Kind() == reflect.String:
		return tftypes.NewValue(tt, src.String()), nil
	case t.Kind() == reflect.Int:
		return tftypes.NewValue(tt, new(big.Float).SetInt64(src.Int())), nil
	case t.Kind() == reflect.Bool:
		return tftypes.NewValue(tt, src.Bool()), nil
	case t.Kind() == reflect.Slice:
		var et tftypes.Type
		_, isSet := tt.(tftypes.Set)
		switch ct := tt.(type) {
		case tftypes.List:
			et = ct.ElementType
		case tftypes.Set:
			et = ct.ElementType
		default:
			return null, fmt.Errorf("%s is neither a list nor a set", tt)
		}
		elems := make([]tftypes.Value, 0, src.Len())
		for i := range src.Len() {
			e, err := goToTerraform(ctx, ElementAttribute(a), et, src.Index(i))
			if err != nil {
				return null, err
			}
			// Two Go values may convert to one Terraform value; a set
			// holds it once.
			if isSet && slices.ContainsFunc(elems, e.Equal) {
				continue
			}
			elems = append(elems, e)
		}
		return tftypes.NewValue(tt, elems), nil
	case t.Kind() == reflect.Map:
		mt, ok := tt.(tftypes.Map)
		if !ok {
			return null, fmt.Errorf("%s is not a map", tt)
		}
		elems := make(map[string]tftypes.Value, src.Len())
		for it := src.MapRange(); it.Next(); {
			e, err := goToTerraform(ctx, ElementAttribute(a), mt.ElementType, it.Value())
			if err != nil {
				return null, err
			}
			elems[it.Key().String()] = e
		}
		return tftypes.NewValue(tt, elems), nil
	case t.Kind() == reflect.Struct:
		ot, ok := tt.(tftypes.Object)
		if !ok {
			return null, fmt.Errorf("%s is not an object", tt)
		}
		attrs := NestedAttributes(a)
		values := make(map[string]tftypes.Value, len(ot.AttributeTypes))
		for i := range t.NumField() {
			name := t.Field(i).Tag.Get("tf")
			if name == "" {
				continue
			}
			fa, ok := attrs[name]
			if !ok {
				return null, fmt.Errorf("%s.%s has no attribute %q in the schema", t, t.Field(i).Name, name)
			}
			v, err := goToTerraform(ctx, fa, ot.AttributeTypes[name], src.Field(i))
			if err != nil {
				return null, err
			}
			values[name] = v
		}
		for name := range ot.AttributeTypes {
			if _, ok := values[name]; !ok {
				return null, fmt.Errorf("attribute %q has no field in %s", name, t)
			}
		}
		return tftypes.NewValue(tt, values), nil
	}
	return null, fmt.Errorf("cannot convert %s to Terraform", src.Type())
}

// ErrUnknown marks a spec that could not be built because a value is not
// known yet (plan time); callers skip the checks that need it.
var ErrUnknown = fmt.Errorf("value not known yet")
