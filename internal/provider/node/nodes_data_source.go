package node

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
)

var (
	_ datasource.DataSource              = &nodesDataSource{}
	_ datasource.DataSourceWithConfigure = &nodesDataSource{}
)

// NewNodesDataSource builds the berth_nodes data source.
func NewNodesDataSource() datasource.DataSource {
	return &nodesDataSource{shared.NewDataSourceBase("nodes")}
}

type nodesDataSource struct{ shared.DataSourceBase }

func (d *nodesDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = nodesDataSourceSchema()
}

func (d *nodesDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var m nodesDataSourceModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	nodes, err := d.Data.Nomad.ListNodes(ctx, m.filter(), m.IncludeMeta.ValueBool(), d.Data.LedgerNamespace)
	if err != nil {
		shared.AddNomadError(&resp.Diagnostics, "Could not list Nomad nodes", err)
		return
	}
	want := m.MinFree.resources()
	m.Nodes = make([]NodeModel, 0, len(nodes))
	for _, n := range nodes {
		if !m.Ready.IsNull() && n.Ready() != m.Ready.ValueBool() {
			continue
		}
		if m.MinFree != nil && !n.Capacity.Free().Covers(want) {
			continue
		}
		m.Nodes = append(m.Nodes, newNodeModel(n))
	}
	tflog.Debug(ctx, "Listed Nomad nodes", map[string]any{"listed": len(nodes), "matched": len(m.Nodes)})
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}
