package namespace

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
)

// NewNamespacesDataSource builds the berth_namespaces data source.
func NewNamespacesDataSource() datasource.DataSource {
	return shared.NewDataSource("namespaces", namespacesDataSourceSchema, readNamespaces)
}

type namespacesModel struct {
	NamePrefix types.String `tfsdk:"name_prefix"`
	Names      types.List   `tfsdk:"names"`
	Namespaces types.List   `tfsdk:"namespaces"`
}

// namespaceSummaryTypes is one element of namespaces.
var namespaceSummaryTypes = map[string]attr.Type{"name": types.StringType, "description": types.StringType}

func namespacesDataSourceSchema() schema.Schema {
	return schema.Schema{
		MarkdownDescription: "The Nomad namespaces the provider's token can see, with their descriptions, sorted by name.",
		Attributes: map[string]schema.Attribute{
			"name_prefix": schema.StringAttribute{Optional: true, MarkdownDescription: "Only namespaces whose name starts with this."},
			"names": schema.ListAttribute{Computed: true, ElementType: types.StringType,
				MarkdownDescription: "The namespaces' names."},
			"namespaces": schema.ListNestedAttribute{Computed: true, MarkdownDescription: "The namespaces.",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"name":        schema.StringAttribute{Computed: true, MarkdownDescription: "Namespace name."},
					"description": schema.StringAttribute{Computed: true, MarkdownDescription: "Description (empty when none)."},
				}}},
		},
	}
}

func readNamespaces(ctx context.Context, data *shared.ProviderData, m *namespacesModel, diags *diag.Diagnostics) {
	all, err := data.Nomad.ListNamespaces(ctx, m.NamePrefix.ValueString())
	if err != nil {
		shared.AddNomadError(diags, "Could not list namespaces", err)
		return
	}
	names := make([]string, 0, len(all))
	summaries := make([]attr.Value, 0, len(all))
	for _, ns := range all {
		names = append(names, ns.Name)
		o, d := types.ObjectValue(namespaceSummaryTypes, map[string]attr.Value{
			"name": types.StringValue(ns.Name), "description": types.StringValue(ns.Description)})
		diags.Append(d...)
		summaries = append(summaries, o)
	}
	m.Names = shared.ListOf(ctx, names, diags)
	list, d := types.ListValue(types.ObjectType{AttrTypes: namespaceSummaryTypes}, summaries)
	diags.Append(d...)
	m.Namespaces = list
}
