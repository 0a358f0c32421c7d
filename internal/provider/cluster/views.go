package cluster

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"

	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
)

// viewBase is what every read-only view shares: the provider's data.
type viewBase struct{ data *shared.ProviderData }

func (d *viewBase) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	d.data = shared.ProviderDataFrom(req.ProviderData, &resp.Diagnostics)
}

func computedString(desc string) schema.StringAttribute {
	return schema.StringAttribute{Computed: true, MarkdownDescription: desc}
}

func computedInt(desc string) schema.Int64Attribute {
	return schema.Int64Attribute{Computed: true, MarkdownDescription: desc}
}

func computedBool(desc string) schema.BoolAttribute {
	return schema.BoolAttribute{Computed: true, MarkdownDescription: desc}
}

func optionalString(desc string) schema.StringAttribute {
	return schema.StringAttribute{Optional: true, MarkdownDescription: desc}
}

// namespaceInput is the namespace argument of the views that read one.
func namespaceInput() schema.StringAttribute {
	return optionalString("Namespace to read; `*` for every namespace the token can read. Defaults to the provider's namespace.")
}
