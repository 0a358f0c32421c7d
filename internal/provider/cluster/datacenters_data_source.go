package cluster

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
)

// NewDatacentersDataSource builds the berth_datacenters data source.
func NewDatacentersDataSource() datasource.DataSource {
	return &datacentersDataSource{shared.NewDataSourceBase("datacenters")}
}

type datacentersDataSource struct{ shared.DataSourceBase }

type datacentersModel struct {
	Prefix          types.String   `tfsdk:"prefix"`
	IgnoreDownNodes types.Bool     `tfsdk:"ignore_down_nodes"`
	Datacenters     []types.String `tfsdk:"datacenters"`
}

func (d *datacentersDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
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

func (d *datacentersDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var m datacentersModel
	if resp.Diagnostics.Append(req.Config.Get(ctx, &m)...); resp.Diagnostics.HasError() {
		return
	}
	dcs, err := d.Data.Nomad.ListDatacenters(ctx, m.Prefix.ValueString(), m.IgnoreDownNodes.ValueBool())
	if err != nil {
		shared.AddNomadError(&resp.Diagnostics, "Could not list the nodes' datacenters", err)
		return
	}
	m.Datacenters = stringValues(dcs)
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}
