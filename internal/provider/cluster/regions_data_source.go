package cluster

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
)

// NewRegionsDataSource builds the berth_regions data source.
func NewRegionsDataSource() datasource.DataSource {
	return shared.NewDataSource("regions", regionsDataSourceSchema, readRegions)
}

type regionsModel struct {
	Regions []types.String `tfsdk:"regions"`
}

func regionsDataSourceSchema() schema.Schema {
	return schema.Schema{
		MarkdownDescription: "Every region the cluster knows of, federated regions included (`nomad server members` " +
			"across regions). Needs no capability beyond a valid token.",
		Attributes: map[string]schema.Attribute{
			"regions": schema.ListAttribute{Computed: true, ElementType: types.StringType, MarkdownDescription: "Region names, sorted."},
		},
	}
}

func readRegions(ctx context.Context, data *shared.ProviderData, m *regionsModel, diags *diag.Diagnostics) {
	regions, err := data.Nomad.ListRegions(ctx)
	if err != nil {
		shared.AddNomadError(diags, "Could not list regions", err)
		return
	}
	m.Regions = stringValues(regions)
}
