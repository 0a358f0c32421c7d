package volume

import (
	"context"
	"errors"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework-validators/datasourcevalidator"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/berthhq/terraform-provider-berth/internal/nomadclient"
	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
	"github.com/berthhq/terraform-provider-berth/internal/volume"
)

var (
	_ datasource.DataSource                     = &volumeDataSource{}
	_ datasource.DataSourceWithConfigure        = &volumeDataSource{}
	_ datasource.DataSourceWithConfigValidators = &volumeDataSource{}
)

// NewVolumeDataSource builds the berth_volume data source.
func NewVolumeDataSource() datasource.DataSource { return &volumeDataSource{} }

type volumeDataSource struct{ data *shared.ProviderData }

type volumeDataModel struct {
	ID             types.String `tfsdk:"id"`
	Name           types.String `tfsdk:"name"`
	Namespace      types.String `tfsdk:"namespace"`
	PluginID       types.String `tfsdk:"plugin_id"`
	CapacityMin    types.Int64  `tfsdk:"capacity_min_bytes"`
	CapacityMax    types.Int64  `tfsdk:"capacity_max_bytes"`
	CapacityBytes  types.Int64  `tfsdk:"capacity_bytes"`
	AccessMode     types.String `tfsdk:"access_mode"`
	AttachmentMode types.String `tfsdk:"attachment_mode"`
	NodeID         types.String `tfsdk:"node_id"`
	NodeName       types.String `tfsdk:"node_name"`
	NodePool       types.String `tfsdk:"node_pool"`
	HostPath       types.String `tfsdk:"host_path"`
	State          types.String `tfsdk:"state"`
	Parameters     types.Map    `tfsdk:"parameters"`
	Allocations    types.List   `tfsdk:"allocations"`
}

func (d *volumeDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_volume"
}

func (d *volumeDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	str := func(desc string) schema.StringAttribute {
		return schema.StringAttribute{Computed: true, MarkdownDescription: desc}
	}
	num := func(desc string) schema.Int64Attribute {
		return schema.Int64Attribute{Computed: true, MarkdownDescription: desc}
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "Looks up an existing host volume by ID, or by name in a namespace, so configurations can mount volumes they do not own.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{Optional: true, Computed: true,
				MarkdownDescription: "Full volume ID. Exactly one of `id` and `name` is required.",
				Validators:          []validator.String{volumeIDValidator()}},
			"name": schema.StringAttribute{Optional: true, Computed: true,
				MarkdownDescription: "Volume name; it must be unique in the namespace. Exactly one of `id` and `name` is required." + shared.LookupRuleDoc,
				Validators:          []validator.String{shared.LookupNameValidator()}},
			"namespace": schema.StringAttribute{Optional: true, Computed: true, MarkdownDescription: "Namespace. Default: the provider's." + shared.NamespaceRuleDoc,
				Validators: []validator.String{shared.NamespaceValidator()}},
			"plugin_id":          str("Plugin that created it."),
			"capacity_min_bytes": num("Requested minimum capacity in bytes."),
			"capacity_max_bytes": num("Requested maximum capacity in bytes."),
			"capacity_bytes":     num("Capacity the plugin reports."),
			"access_mode":        str("Access mode: " + shared.BacktickList(volumeAccessModes) + "."),
			"attachment_mode":    str("Attachment mode: " + shared.BacktickList(volumeAttachmentModes) + "."),
			"node_id":            str("Node it lives on."),
			"node_name":          str("Name of that node."),
			"node_pool":          str("Node pool."),
			"host_path":          str("Path on the node."),
			"state":              str("State: " + shared.BacktickList(volumeStates) + "."),
			"parameters":         schema.MapAttribute{Computed: true, ElementType: types.StringType, MarkdownDescription: "Plugin parameters."},
			"allocations":        schema.ListAttribute{Computed: true, ElementType: types.StringType, MarkdownDescription: "IDs of the allocations using it that may still run (`pending`, `running`, or `unknown` on a disconnected client)."},
		},
	}
}

func (d *volumeDataSource) ConfigValidators(context.Context) []datasource.ConfigValidator {
	return []datasource.ConfigValidator{datasourcevalidator.ExactlyOneOf(path.MatchRoot("id"), path.MatchRoot("name"))}
}

func (d *volumeDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	d.data = shared.ProviderDataFrom(req.ProviderData, &resp.Diagnostics)
}

func (d *volumeDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var id, name, ns types.String
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("id"), &id)...)
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("name"), &name)...)
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("namespace"), &ns)...)
	if resp.Diagnostics.HasError() {
		return
	}
	namespace := ns.ValueString()
	if namespace == "" {
		namespace = d.data.Nomad.Namespace()
	}
	nomad := d.data.Nomad
	v, err := nomad.GetVolume(ctx, namespace, id.ValueString())
	at := path.Root("id")
	if id.IsNull() {
		at = path.Root("name")
		v, err = nomad.FindVolume(ctx, namespace, name.ValueString())
	}
	var ambiguous *nomadclient.AmbiguousVolumeError
	switch {
	case errors.As(err, &ambiguous):
		resp.Diagnostics.AddAttributeError(at, "Volume name is ambiguous", err.Error())
		return
	case err != nil:
		shared.AddNomadError(&resp.Diagnostics, "Could not read the volume", err)
		return
	case v == nil:
		resp.Diagnostics.AddAttributeError(at, "Volume not found",
			fmt.Sprintf("Namespace %q has no host volume with %s %q.", namespace, at.String(), id.ValueString()+name.ValueString()))
		return
	}
	nodeName, err := nomad.NodeName(ctx, v.NodeID)
	if err != nil {
		shared.AddNomadError(&resp.Diagnostics, "Could not read the volume's node", err)
		return
	}
	m := volumeDataFrom(ctx, v, nodeName, &resp.Diagnostics)
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

// volumeDataFrom is the data source's view of v, on the node named nodeName.
func volumeDataFrom(ctx context.Context, v *volume.Volume, nodeName string, diags *diag.Diagnostics) volumeDataModel {
	return volumeDataModel{
		ID: types.StringValue(v.ID), Name: types.StringValue(v.Name), Namespace: types.StringValue(v.Namespace),
		PluginID: types.StringValue(v.PluginID), CapacityMin: types.Int64Value(v.CapacityMinBytes),
		CapacityMax: types.Int64Value(v.CapacityMaxBytes), CapacityBytes: types.Int64Value(v.CapacityBytes),
		NodeID: types.StringValue(v.NodeID), NodeName: types.StringValue(nodeName), NodePool: types.StringValue(v.NodePool),
		HostPath: types.StringValue(v.HostPath), State: types.StringValue(v.State),
		AccessMode: types.StringValue(v.AccessMode), AttachmentMode: types.StringValue(v.AttachmentMode),
		Parameters:  shared.MapOrNull(ctx, v.Parameters, diags),
		Allocations: shared.ListOf(ctx, v.LiveAllocationIDs(), diags),
	}
}
