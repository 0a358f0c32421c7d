package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"reflect"
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
//   - time.Duration is a Go duration string ("10s"); map[string]any is a
//     JSON object string (driver config).

var (
	durationType  = reflect.TypeOf(time.Duration(0))
	jsonObjectTyp = reflect.TypeOf(map[string]any(nil))
)

// nestedAttributes returns the attributes of a nested attribute's object,
// nil for a plain attribute.
func nestedAttributes(a schema.Attribute) map[string]schema.Attribute {
	switch a := a.(type) {
	case schema.SingleNestedAttribute:
		return a.Attributes
	case schema.MapNestedAttribute:
		return a.NestedObject.Attributes
	case schema.ListNestedAttribute:
		return a.NestedObject.Attributes
	}
	return nil
}

// elementAttribute is the schema of one element of a collection attribute:
// its nested object, or nil for plain elements. Elements are never null.
func elementAttribute(a schema.Attribute) schema.Attribute {
	if nested := nestedAttributes(a); nested != nil {
		return schema.SingleNestedAttribute{Attributes: nested, Computed: true}
	}
	return nil
}

// schemaDefault is the value the schema gives a if it is left out, or nil.
func schemaDefault(ctx context.Context, a schema.Attribute) attr.Value {
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

// tfToGo stores v, the value of attribute a at path at, into dst.
func tfToGo(ctx context.Context, at path.Path, a schema.Attribute, v attr.Value, dst reflect.Value, diags *diag.Diagnostics) error {
	if v.IsUnknown() {
		if t := dst.Type(); t.Kind() == reflect.Pointer && t.Elem().Kind() != reflect.Struct {
			dst.SetZero()
			return nil
		}
		return errUnknown
	}
	if v.IsNull() {
		if v = schemaDefault(ctx, a); v == nil || v.IsNull() {
			dst.SetZero()
			return nil
		}
	}
	switch t := dst.Type(); {
	case t == durationType:
		s, d := v.(basetypes.StringValuable).ToStringValue(ctx)
		diags.Append(d...)
		if parsed, err := time.ParseDuration(s.ValueString()); err == nil {
			dst.SetInt(int64(parsed))
		} else {
			// The attribute's type validated it already; this is a bug.
			diags.AddAttributeError(at, "Invalid duration", err.Error())
		}
	case t == jsonObjectTyp:
		s, d := v.(basetypes.StringValuable).ToStringValue(ctx)
		diags.Append(d...)
		var obj map[string]any
		if err := json.Unmarshal([]byte(s.ValueString()), &obj); err == nil {
			dst.Set(reflect.ValueOf(obj))
		} else {
			diags.AddAttributeError(at, "Invalid driver config",
				"config must be a JSON object, for example jsonencode({ ports = [\"http\"] }): "+err.Error())
		}
	case t.Kind() == reflect.String:
		s, d := v.(basetypes.StringValuable).ToStringValue(ctx)
		diags.Append(d...)
		dst.SetString(s.ValueString())
	case t.Kind() == reflect.Int:
		n, d := v.(basetypes.Int64Valuable).ToInt64Value(ctx)
		diags.Append(d...)
		dst.SetInt(n.ValueInt64())
	case t.Kind() == reflect.Bool:
		b, d := v.(basetypes.BoolValuable).ToBoolValue(ctx)
		diags.Append(d...)
		dst.SetBool(b.ValueBool())
	case t.Kind() == reflect.Slice:
		l, d := v.(basetypes.ListValuable).ToListValue(ctx)
		diags.Append(d...)
		elems := l.Elements()
		out := reflect.MakeSlice(t, len(elems), len(elems))
		for i, e := range elems {
			if err := tfToGo(ctx, at.AtListIndex(i), elementAttribute(a), e, out.Index(i), diags); err != nil {
				return err
			}
		}
		dst.Set(out)
	case t.Kind() == reflect.Map:
		m, d := v.(basetypes.MapValuable).ToMapValue(ctx)
		diags.Append(d...)
		out := reflect.MakeMapWithSize(t, len(m.Elements()))
		for k, e := range m.Elements() {
			ev := reflect.New(t.Elem()).Elem()
			if err := tfToGo(ctx, at.AtMapKey(k), elementAttribute(a), e, ev, diags); err != nil {
				return err
			}
			out.SetMapIndex(reflect.ValueOf(k).Convert(t.Key()), ev)
		}
		dst.Set(out)
	case t.Kind() == reflect.Pointer:
		p := reflect.New(t.Elem())
		if err := tfToGo(ctx, at, a, v, p.Elem(), diags); err != nil {
			return err
		}
		dst.Set(p)
	case t.Kind() == reflect.Struct:
		o, d := v.(basetypes.ObjectValuable).ToObjectValue(ctx)
		diags.Append(d...)
		values, attrs := o.Attributes(), nestedAttributes(a)
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
			if err := tfToGo(ctx, at.AtName(name), fa, values[name], dst.Field(i), diags); err != nil {
				return err
			}
		}
	default:
		diags.AddAttributeError(at, "Provider bug", fmt.Sprintf("cannot read a Terraform value into %s.", t))
	}
	return nil
}

// goToTF converts src into a value of attribute a.
func goToTF(ctx context.Context, a schema.Attribute, src reflect.Value) (attr.Value, diag.Diagnostics) {
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
		return tftypes.NewValue(tt, durationValue(time.Duration(src.Int())).ValueString()), nil
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
		lt, ok := tt.(tftypes.List)
		if !ok {
			return null, fmt.Errorf("%s is not a list", tt)
		}
		elems := make([]tftypes.Value, 0, src.Len())
		for i := range src.Len() {
			e, err := goToTerraform(ctx, elementAttribute(a), lt.ElementType, src.Index(i))
			if err != nil {
				return null, err
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
			e, err := goToTerraform(ctx, elementAttribute(a), mt.ElementType, it.Value())
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
		attrs := nestedAttributes(a)
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
