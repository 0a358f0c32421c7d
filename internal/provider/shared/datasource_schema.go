package shared

import "github.com/hashicorp/terraform-plugin-framework/datasource/schema"

// The computed attribute shapes data sources are made of: what Nomad
// reports, with its description.

// ComputedString is a computed string attribute.
func ComputedString(desc string) schema.StringAttribute {
	return schema.StringAttribute{Computed: true, MarkdownDescription: desc}
}

// ComputedInt is a computed number attribute.
func ComputedInt(desc string) schema.Int64Attribute {
	return schema.Int64Attribute{Computed: true, MarkdownDescription: desc}
}

// ComputedBool is a computed bool attribute.
func ComputedBool(desc string) schema.BoolAttribute {
	return schema.BoolAttribute{Computed: true, MarkdownDescription: desc}
}

// ComputedObjects is a computed list of objects with attrs.
func ComputedObjects(desc string, attrs map[string]schema.Attribute) schema.ListNestedAttribute {
	return schema.ListNestedAttribute{Computed: true, MarkdownDescription: desc,
		NestedObject: schema.NestedAttributeObject{Attributes: attrs}}
}
