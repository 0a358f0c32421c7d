package shared

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
)

// DataSource is a data source made of its schema and its read: the
// configuration is read into the model M, Fill completes it from Nomad,
// and the model becomes the state, unless Fill reported an error.
// A data source with more to say (config validators) embeds it.
type DataSource[M any] struct {
	DataSourceBase
	schema func() schema.Schema
	fill   func(ctx context.Context, data *ProviderData, m *M, diags *diag.Diagnostics)
}

var _ datasource.DataSourceWithConfigure = &DataSource[struct{}]{}

// NewDataSource is the data source berth_<name>. fill gets the
// provider's data as Configure left it (see DataSourceBase) and the
// model holding the configuration.
func NewDataSource[M any](name string, schema func() schema.Schema,
	fill func(ctx context.Context, data *ProviderData, m *M, diags *diag.Diagnostics)) *DataSource[M] {
	return &DataSource[M]{DataSourceBase: NewDataSourceBase(name), schema: schema, fill: fill}
}

func (d *DataSource[M]) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = d.schema()
}

func (d *DataSource[M]) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var m M
	if resp.Diagnostics.Append(req.Config.Get(ctx, &m)...); resp.Diagnostics.HasError() {
		return
	}
	if d.fill(ctx, d.Data, &m, &resp.Diagnostics); resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}
