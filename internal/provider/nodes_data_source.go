package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/berthhq/terraform-provider-berth/internal/capacity"
	"github.com/berthhq/terraform-provider-berth/internal/nomadclient"
)

var (
	_ datasource.DataSource              = &nodesDataSource{}
	_ datasource.DataSourceWithConfigure = &nodesDataSource{}
)

// NewNodesDataSource builds the berth_nodes data source.
func NewNodesDataSource() datasource.DataSource { return &nodesDataSource{} }

type nodesDataSource struct{ data *ProviderData }

type nodesDataSourceModel struct {
	Datacenter  types.String  `tfsdk:"datacenter"`
	NodePool    types.String  `tfsdk:"node_pool"`
	NodeClass   types.String  `tfsdk:"node_class"`
	Status      types.String  `tfsdk:"status"`
	Ready       types.Bool    `tfsdk:"ready"`
	Filter      types.String  `tfsdk:"filter"`
	MinFree     *minFreeModel `tfsdk:"min_free"`
	IncludeMeta types.Bool    `tfsdk:"include_meta"`
	Nodes       []NodeModel   `tfsdk:"nodes"`
}

type minFreeModel struct {
	CPU    types.Int64 `tfsdk:"cpu"`
	Memory types.Int64 `tfsdk:"memory"`
	Disk   types.Int64 `tfsdk:"disk"`
}

func (m *minFreeModel) resources() capacity.Resources {
	if m == nil {
		return capacity.Resources{}
	}
	return capacity.Resources{CPU: m.CPU.ValueInt64(), MemoryMB: m.Memory.ValueInt64(), DiskMB: m.Disk.ValueInt64()}
}

func (d *nodesDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_nodes"
}

func (d *nodesDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	nonNegative := []validator.Int64{int64validator.AtLeast(0)}
	resp.Schema = schema.Schema{
		MarkdownDescription: "Lists Nomad nodes with their status and capacity: what each offers (`allocatable`), " +
			"what running work holds (`allocated`) and what is left (`free`). Filters are optional and combine with AND. " +
			"The read costs four Nomad API calls however many nodes there are, plus one per node that holds berth " +
			"reservations (their ledgers) and one per node with `include_meta`.",
		Attributes: map[string]schema.Attribute{
			"datacenter": schema.StringAttribute{Optional: true, MarkdownDescription: "Only nodes in this datacenter."},
			"node_pool":  schema.StringAttribute{Optional: true, MarkdownDescription: "Only nodes in this node pool."},
			"node_class": schema.StringAttribute{Optional: true, MarkdownDescription: "Only nodes of this node class."},
			"status": schema.StringAttribute{
				Optional:            true,
				MarkdownDescription: "Only nodes with this status: " + backtickList(nodeStatuses) + ".",
				Validators:          []validator.String{stringvalidator.OneOf(nodeStatuses...)},
			},
			"ready": schema.BoolAttribute{
				Optional:            true,
				MarkdownDescription: "`true`: only nodes that can take work (status `ready`, eligible, not draining); `false`: only nodes that cannot.",
			},
			"filter": schema.StringAttribute{
				Optional: true,
				MarkdownDescription: "A raw [Nomad filter expression](https://developer.hashicorp.com/nomad/api-docs#filtering) " +
					"evaluated by Nomad against each node, e.g. `Meta.team == \"db\"` or `Attributes[\"kernel.name\"] == \"linux\"`.",
				Validators: []validator.String{stringvalidator.LengthAtLeast(1)},
			},
			"min_free": schema.SingleNestedAttribute{
				Optional:            true,
				MarkdownDescription: "Only nodes with at least this much `free` capacity in every dimension given.",
				Attributes: map[string]schema.Attribute{
					"cpu":    schema.Int64Attribute{Optional: true, MarkdownDescription: "Free CPU in MHz.", Validators: nonNegative},
					"memory": schema.Int64Attribute{Optional: true, MarkdownDescription: "Free memory in MiB.", Validators: nonNegative},
					"disk":   schema.Int64Attribute{Optional: true, MarkdownDescription: "Free disk in MiB.", Validators: nonNegative},
				},
			},
			"include_meta": schema.BoolAttribute{
				Optional: true,
				MarkdownDescription: "Fill each node's `meta`. Nomad's node list does not carry meta, so this costs one " +
					"extra API call per node; without it `meta` is null. Default `false`. To select nodes by meta, " +
					"prefer `filter`, which costs nothing extra.",
			},
			"nodes": schema.ListNestedAttribute{
				Computed:            true,
				MarkdownDescription: "The matching nodes, sorted by name then ID.",
				NestedObject:        schema.NestedAttributeObject{Attributes: nodeAttributes()},
			},
		},
	}
}

func (d *nodesDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	d.data = providerDataFrom(req.ProviderData, &resp.Diagnostics)
}

func (d *nodesDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	ctx = d.data.Nomad.MaskSecrets(ctx)
	var m nodesDataSourceModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	filter := nomadclient.NodeFilter{
		Datacenter: m.Datacenter.ValueString(),
		NodePool:   m.NodePool.ValueString(),
		NodeClass:  m.NodeClass.ValueString(),
		Status:     m.Status.ValueString(),
		Expression: m.Filter.ValueString(),
	}
	nodes, err := d.data.Nomad.ListNodes(ctx, filter, m.IncludeMeta.ValueBool(), d.data.LedgerNamespace)
	if err != nil {
		addNomadError(&resp.Diagnostics, "Could not list Nomad nodes", err)
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
