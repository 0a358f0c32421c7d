package cluster

// The read-only views' schemas share these attribute shapes.

import "github.com/hashicorp/terraform-plugin-framework/datasource/schema"

func optionalString(desc string) schema.StringAttribute {
	return schema.StringAttribute{Optional: true, MarkdownDescription: desc}
}

// namespaceInput is the namespace argument of the views that read one.
func namespaceInput() schema.StringAttribute {
	return optionalString("Namespace to read; `*` for every namespace the token can read. Defaults to the provider's namespace.")
}
