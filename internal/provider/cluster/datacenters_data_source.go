package cluster

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
)

// NewDatacentersDataSource builds the berth_datacenters data source.
func NewDatacentersDataSource() datasource.DataSource {
	return shared.NewDataSource("datacenters", datacentersDataSourceSchema, readDatacenters)
}

type datacentersModel struct {
	Prefix          types.String   `tfsdk:"prefix"`
	IgnoreDownNodes types.Bool     `tfsdk:"ignore_down_nodes"`
	Datacenters     []types.String `tfsdk:"datacenters"`
}

func datacentersDataSourceSchema() schema.Schema {
	return schema.Schema{
		MarkdownDescription: "The datacenters of the region's client nodes. Nomad has no list of datacenters of its own: a " +
			"datacenter exists while a node names it. Needs `node:read` when ACLs are on.",
		Attributes: map[string]schema.Attribute{
			"prefix": optionalString("Only datacenters whose name starts with this."),
			"ignore_down_nodes": schema.BoolAttribute{Optional: true,
				MarkdownDescription: "Leave out datacenters whose only nodes are down. Defaults to `false`."},
			"datacenters": schema.ListAttribute{Computed: true, ElementType: types.StringType,
				MarkdownDescription: "Datacenter names, sorted, each once."},
		},
	}
}

func readDatacenters(ctx context.Context, data *shared.ProviderData, m *datacentersModel, diags *diag.Diagnostics) {
	dcs, err := data.Nomad.ListDatacenters(ctx, m.Prefix.ValueString(), m.IgnoreDownNodes.ValueBool())
	if err != nil {
		shared.AddNomadError(diags, "Could not list the nodes' datacenters", err)
		return
	}
	m.Datacenters = stringValues(dcs)
}
