package namespace

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
)

var _ datasource.DataSourceWithConfigure = &namespacesDataSource{}

// NewNamespacesDataSource builds the berth_namespaces data source.
func NewNamespacesDataSource() datasource.DataSource {
	return &namespacesDataSource{shared.NewDataSourceBase("namespaces")}
}

type namespacesDataSource struct{ shared.DataSourceBase }

type namespacesModel struct {
	NamePrefix types.String `tfsdk:"name_prefix"`
	Names      types.List   `tfsdk:"names"`
	Namespaces types.List   `tfsdk:"namespaces"`
}

// namespaceSummaryTypes is one element of namespaces.
var namespaceSummaryTypes = map[string]attr.Type{"name": types.StringType, "description": types.StringType}

func (d *namespacesDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
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

func (d *namespacesDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var m namespacesModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	all, err := d.Data.Nomad.ListNamespaces(ctx, m.NamePrefix.ValueString())
	if err != nil {
		shared.AddNomadError(&resp.Diagnostics, "Could not list namespaces", err)
		return
	}
	names := make([]string, 0, len(all))
	summaries := make([]attr.Value, 0, len(all))
	for _, ns := range all {
		names = append(names, ns.Name)
		o, diags := types.ObjectValue(namespaceSummaryTypes, map[string]attr.Value{
			"name": types.StringValue(ns.Name), "description": types.StringValue(ns.Description)})
		resp.Diagnostics.Append(diags...)
		summaries = append(summaries, o)
	}
	m.Names = shared.ListOf(ctx, names, &resp.Diagnostics)
	list, diags := types.ListValue(types.ObjectType{AttrTypes: namespaceSummaryTypes}, summaries)
	resp.Diagnostics.Append(diags...)
	m.Namespaces = list
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}
