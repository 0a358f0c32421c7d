package cluster

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
)

// NewRegionsDataSource builds the berth_regions data source.
func NewRegionsDataSource() datasource.DataSource {
	return &regionsDataSource{shared.NewDataSourceBase("regions")}
}

type regionsDataSource struct{ shared.DataSourceBase }

type regionsModel struct {
	Regions []types.String `tfsdk:"regions"`
}

func (d *regionsDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "Every region the cluster knows of, federated regions included (`nomad server members` " +
			"across regions). Needs no capability beyond a valid token.",
		Attributes: map[string]schema.Attribute{
			"regions": schema.ListAttribute{Computed: true, ElementType: types.StringType, MarkdownDescription: "Region names, sorted."},
		},
	}
}

func (d *regionsDataSource) Read(ctx context.Context, _ datasource.ReadRequest, resp *datasource.ReadResponse) {
	regions, err := d.Data.Nomad.ListRegions(ctx)
	if err != nil {
		shared.AddNomadError(&resp.Diagnostics, "Could not list regions", err)
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &regionsModel{Regions: stringValues(regions)})...)
}
