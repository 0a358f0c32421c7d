package instance

import (
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// withFixedObjectTypes gives every nested object in attrs its object type
// once, as its CustomType (the type the framework would build, so values
// and behavior are unchanged). Without it, terraform-plugin-framework
// rebuilds the type of a nested object, and of everything under it, on
// every path lookup: once per value per walk, a large share of each plan of
// berth_instance (see BenchmarkInstanceRefreshPlan). Attributes that
// already have a custom type (timeouts) are left alone.
func withFixedObjectTypes(attrs map[string]schema.Attribute) map[string]schema.Attribute {
	for name, a := range attrs {
		switch a := a.(type) {
		case schema.SingleNestedAttribute:
			if a.CustomType == nil {
				a.Attributes = withFixedObjectTypes(a.Attributes)
				a.CustomType = objectTypeOf(a.Attributes)
			}
			attrs[name] = a
		case schema.MapNestedAttribute:
			a.NestedObject = fixedNestedObject(a.NestedObject)
			attrs[name] = a
		case schema.ListNestedAttribute:
			a.NestedObject = fixedNestedObject(a.NestedObject)
			attrs[name] = a
		case schema.SetNestedAttribute:
			a.NestedObject = fixedNestedObject(a.NestedObject)
			attrs[name] = a
		}
	}
	return attrs
}

func fixedNestedObject(o schema.NestedAttributeObject) schema.NestedAttributeObject {
	if o.CustomType != nil {
		return o
	}
	o.Attributes = withFixedObjectTypes(o.Attributes)
	o.CustomType = objectTypeOf(o.Attributes)
	return o
}

func objectTypeOf(attrs map[string]schema.Attribute) types.ObjectType {
	t := make(map[string]attr.Type, len(attrs))
	for name, a := range attrs {
		t[name] = a.GetType()
	}
	return types.ObjectType{AttrTypes: t}
}
