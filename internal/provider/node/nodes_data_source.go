package node

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
)

// NewNodesDataSource builds the berth_nodes data source.
func NewNodesDataSource() datasource.DataSource {
	return shared.NewDataSource("nodes", nodesDataSourceSchema, readNodes)
}

func readNodes(ctx context.Context, data *shared.ProviderData, m *nodesDataSourceModel, diags *diag.Diagnostics) {
	nodes, err := data.Nomad.ListNodes(ctx, m.filter(), m.IncludeMeta.ValueBool(), data.LedgerNamespace)
	if err != nil {
		shared.AddNomadError(diags, "Could not list Nomad nodes", err)
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
}
