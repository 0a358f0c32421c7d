package node

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/berthhq/terraform-provider-berth/internal/nomadclient"
	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
)

// NewNodePoolsDataSource builds the berth_node_pools data source.
func NewNodePoolsDataSource() datasource.DataSource {
	return shared.NewDataSource("node_pools", nodePoolsDataSourceSchema, readNodePools)
}

type nodePoolsModel struct {
	NamePrefix types.String `tfsdk:"name_prefix"`
	Names      types.List   `tfsdk:"names"`
	Pools      types.List   `tfsdk:"pools"`
}

// nodePoolSummaryTypes is one element of pools: everything Nomad holds
// for a pool.
var nodePoolSummaryTypes = map[string]attr.Type{
	"name": types.StringType, "description": types.StringType, "meta": types.MapType{ElemType: types.StringType},
	"scheduler_algorithm": types.StringType, "memory_oversubscription": types.BoolType,
}

func nodePoolsDataSourceSchema() schema.Schema {
	computed := func(desc string) schema.StringAttribute {
		return schema.StringAttribute{Computed: true, MarkdownDescription: desc}
	}
	return schema.Schema{
		MarkdownDescription: "The Nomad node pools the provider's token can see (built-in `all` and `default` included), " +
			"sorted by name. Needs `node_pool` read on them.",
		Attributes: map[string]schema.Attribute{
			"name_prefix": schema.StringAttribute{Optional: true, MarkdownDescription: "Only pools whose name starts with this."},
			"names": schema.ListAttribute{Computed: true, ElementType: types.StringType,
				MarkdownDescription: "The pools' names."},
			"pools": shared.ComputedObjects("The pools.", map[string]schema.Attribute{
				"name":        computed("Pool name."),
				"description": computed("Description (empty when none)."),
				"meta": schema.MapAttribute{Computed: true, ElementType: types.StringType,
					MarkdownDescription: "Metadata (empty when none)."},
				"scheduler_algorithm": computed("The pool's scheduler algorithm (Nomad Enterprise); null when unset."),
				"memory_oversubscription": schema.BoolAttribute{Computed: true,
					MarkdownDescription: "The pool's memory oversubscription setting (Nomad Enterprise); null when unset."},
			}),
		},
	}
}

func readNodePools(ctx context.Context, data *shared.ProviderData, m *nodePoolsModel, diags *diag.Diagnostics) {
	pools, err := data.Nomad.ListNodePools(ctx, m.NamePrefix.ValueString())
	if err != nil {
		shared.AddNomadError(diags, "Could not list node pools", err)
		return
	}
	names := make([]string, 0, len(pools))
	summaries := make([]attr.Value, 0, len(pools))
	for _, p := range pools {
		names = append(names, p.Name)
		summaries = append(summaries, nodePoolSummary(ctx, p, diags))
	}
	m.Names = shared.ListOf(ctx, names, diags)
	list, d := types.ListValue(types.ObjectType{AttrTypes: nodePoolSummaryTypes}, summaries)
	diags.Append(d...)
	m.Pools = list
}

// nodePoolSummary is one element of pools.
func nodePoolSummary(ctx context.Context, p nomadclient.NodePool, diags *diag.Diagnostics) attr.Value {
	meta := p.Meta
	if meta == nil {
		meta = map[string]string{}
	}
	metaValue, d := types.MapValueFrom(ctx, types.StringType, meta)
	diags.Append(d...)
	oversub := types.BoolNull()
	if p.MemoryOversubscription != nil {
		oversub = types.BoolValue(*p.MemoryOversubscription)
	}
	o, d := types.ObjectValue(nodePoolSummaryTypes, map[string]attr.Value{
		"name": types.StringValue(p.Name), "description": types.StringValue(p.Description), "meta": metaValue,
		"scheduler_algorithm": shared.StringOrNull(p.SchedulerAlgorithm), "memory_oversubscription": oversub,
	})
	diags.Append(d...)
	return o
}
