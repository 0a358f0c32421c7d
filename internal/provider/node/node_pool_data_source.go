package node

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
)

// NewNodePoolDataSource builds the berth_node_pool data source: one pool
// by name, built-in pools included.
func NewNodePoolDataSource() datasource.DataSource {
	return shared.NewDataSource("node_pool", nodePoolDataSourceSchema, readNodePool)
}

// Schema mirrors berth_node_pool's attributes, computed but for name.
func nodePoolDataSourceSchema() schema.Schema {
	return schema.Schema{
		MarkdownDescription: "One Nomad node pool by name, Nomad's built-in pools `all` and `default` included. Needs " +
			"`node_pool:read` on the pool when ACLs are on.",
		Attributes: map[string]schema.Attribute{
			"id":          shared.ComputedString("The pool's name."),
			"name":        schema.StringAttribute{Required: true, MarkdownDescription: "Name of the pool to read."},
			"description": shared.ComputedString("The pool's description; null when it has none."),
			"meta": schema.MapAttribute{Computed: true, ElementType: types.StringType,
				MarkdownDescription: "Metadata of the pool (not of its nodes); null when it has none."},
			"scheduler_algorithm": schema.StringAttribute{Computed: true,
				MarkdownDescription: "The pool's scheduler algorithm (Nomad Enterprise); null: the cluster's."},
			"memory_oversubscription": schema.BoolAttribute{Computed: true,
				MarkdownDescription: "Whether the pool allows memory oversubscription (Nomad Enterprise); null: the cluster's setting."},
		},
	}
}

func readNodePool(ctx context.Context, data *shared.ProviderData, m *nodePoolModel, diags *diag.Diagnostics) {
	// Only the name comes from configuration: start the rest afresh.
	*m = nodePoolModel{Name: m.Name, Description: types.StringNull(), Meta: types.MapNull(types.StringType)}
	p, err := data.Nomad.GetNodePool(ctx, m.Name.ValueString())
	if err != nil {
		shared.AddNomadError(diags, "Could not read the node pool", err)
		return
	}
	if p == nil {
		diags.AddAttributeError(path.Root("name"), "Node pool not found",
			fmt.Sprintf("Nomad has no node pool named %q (or the token may not see it). List the pools with the "+
				"berth_node_pools data source or `nomad node pool list`.", m.Name.ValueString()))
		return
	}
	m.fromNodePool(ctx, p, diags)
}
