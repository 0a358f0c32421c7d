package volume

import (
	"context"
	"errors"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework-validators/datasourcevalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/berthhq/terraform-provider-berth/internal/names"
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
func NewVolumeDataSource() datasource.DataSource {
	return &volumeDataSource{DataSourceBase: shared.NewDataSourceBase("volume")}
}

type volumeDataSource struct{ shared.DataSourceBase }

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
	Type           types.String `tfsdk:"type"`
	ExternalID     types.String `tfsdk:"external_id"`
	Capabilities   types.List   `tfsdk:"capabilities"`
}

func (d *volumeDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	str := func(desc string) schema.StringAttribute {
		return schema.StringAttribute{Computed: true, MarkdownDescription: desc}
	}
	num := func(desc string) schema.Int64Attribute {
		return schema.Int64Attribute{Computed: true, MarkdownDescription: desc}
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "Looks up an existing host volume or CSI volume by ID, or by name in a namespace, so configurations can " +
			"mount volumes they do not own.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{Optional: true, Computed: true,
				MarkdownDescription: "Volume ID: a host volume's full ID (a UUID) or a CSI volume's ID. Exactly one of `id` and `name` is required.",
				Validators:          []validator.String{volumeIDValidator()}},
			"name": schema.StringAttribute{Optional: true, Computed: true,
				MarkdownDescription: "Volume name; it must be unique in the namespace. Exactly one of `id` and `name` is required." + shared.LookupRuleDoc,
				Validators:          []validator.String{shared.LookupNameValidator()}},
			"namespace": schema.StringAttribute{Optional: true, Computed: true, MarkdownDescription: "Namespace. Default: the provider's." + shared.NamespaceRuleDoc,
				Validators: []validator.String{shared.NamespaceValidator()}},
			"type": schema.StringAttribute{Optional: true, Computed: true,
				MarkdownDescription: "Volume type: `host` or `csi`. When set, only volumes of that type are looked up; when unset, " +
					"both, and a host and a CSI volume answering to the same `id` or `name` is an error asking for it.",
				Validators: []validator.String{stringvalidator.OneOf(volumeTypes...)}},
			"external_id": str("The CSI plugin's ID for the volume (CSI volumes; null for host volumes)."),
			"capabilities": schema.ListNestedAttribute{Computed: true,
				MarkdownDescription: "CSI volumes: the ways allocations may use it (null for host volumes, whose mode is `access_mode` and `attachment_mode`).",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"access_mode":     str("Access mode."),
					"attachment_mode": str("Attachment mode."),
				}}},
			"plugin_id":          str("Plugin that created it (for a CSI volume, the CSI plugin that serves it)."),
			"capacity_min_bytes": num("Requested minimum capacity in bytes."),
			"capacity_max_bytes": num("Requested maximum capacity in bytes."),
			"capacity_bytes":     num("Capacity the plugin reports."),
			"access_mode":        str("Access mode: " + shared.BacktickList(volumeAccessModes) + "."),
			"attachment_mode":    str("Attachment mode: " + shared.BacktickList(volumeAttachmentModes) + "."),
			"node_id":            str("Node it lives on (host volumes)."),
			"node_name":          str("Name of that node (host volumes)."),
			"node_pool":          str("Node pool (host volumes)."),
			"host_path":          str("Path on the node (host volumes)."),
			"state":              str("State: " + shared.BacktickList(volumeStates) + "."),
			"parameters":         schema.MapAttribute{Computed: true, ElementType: types.StringType, MarkdownDescription: "Plugin parameters."},
			"allocations":        schema.ListAttribute{Computed: true, ElementType: types.StringType, MarkdownDescription: "IDs of the allocations using it that may still run (`pending`, `running`, or `unknown` on a disconnected client)."},
		},
	}
}

func (d *volumeDataSource) ConfigValidators(context.Context) []datasource.ConfigValidator {
	return []datasource.ConfigValidator{datasourcevalidator.ExactlyOneOf(path.MatchRoot("id"), path.MatchRoot("name"))}
}

func (d *volumeDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var id, name, ns, typ types.String
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("id"), &id)...)
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("name"), &name)...)
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("namespace"), &ns)...)
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("type"), &typ)...)
	if resp.Diagnostics.HasError() {
		return
	}
	namespace := ns.ValueString()
	if namespace == "" {
		namespace = d.Data.Nomad.Namespace()
	}
	nomad := d.Data.Nomad
	at, ref := path.Root("id"), id.ValueString()
	if id.IsNull() {
		at, ref = path.Root("name"), name.ValueString()
	}
	v, err := d.lookup(ctx, namespace, ref, typ.ValueString(), !id.IsNull())
	var ambiguous *nomadclient.AmbiguousVolumeError
	switch {
	case errors.As(err, &ambiguous):
		resp.Diagnostics.AddAttributeError(at, "Volume name is ambiguous", err.Error())
		return
	case err != nil:
		shared.AddNomadError(&resp.Diagnostics, "Could not read the volume", err)
		return
	case v == nil:
		kind := "no host volume and no CSI volume"
		switch typ.ValueString() {
		case volume.TypeHost:
			kind = "no host volume"
		case volume.TypeCSI:
			kind = "no CSI volume"
		}
		resp.Diagnostics.AddAttributeError(at, "Volume not found",
			fmt.Sprintf("Namespace %q has %s with %s %q.", namespace, kind, at.String(), ref))
		return
	}
	nodeName := ""
	if !v.IsCSI() {
		if nodeName, err = nomad.NodeName(ctx, v.NodeID); err != nil {
			shared.AddNomadError(&resp.Diagnostics, "Could not read the volume's node", err)
			return
		}
	}
	m := volumeDataFrom(ctx, v, nodeName, &resp.Diagnostics)
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

// lookup finds the volume: by ID (byID) or by name, of type typ ("" for
// either).
func (d *volumeDataSource) lookup(ctx context.Context, ns, ref, typ string, byID bool) (*volume.Volume, error) {
	nomad := d.Data.Nomad
	if !byID {
		return nomad.ResolveVolume(ctx, ns, ref, typ)
	}
	if typ != volume.TypeCSI && names.CheckVolumeID(ref) == nil {
		if v, err := nomad.GetVolume(ctx, ns, ref); err != nil || v != nil || typ == volume.TypeHost {
			return v, err
		}
	}
	if typ == volume.TypeHost {
		return nil, nil
	}
	return nomad.GetCSIVolume(ctx, ns, ref)
}

// volumeDataFrom is the data source's view of v, on the node named
// nodeName (host volumes); the settings of the other type are null.
func volumeDataFrom(ctx context.Context, v *volume.Volume, nodeName string, diags *diag.Diagnostics) volumeDataModel {
	m := volumeDataModel{
		ID: types.StringValue(v.ID), Name: types.StringValue(v.Name), Namespace: types.StringValue(v.Namespace),
		PluginID: types.StringValue(v.PluginID), CapacityMin: types.Int64Value(v.CapacityMinBytes),
		CapacityMax: types.Int64Value(v.CapacityMaxBytes), CapacityBytes: types.Int64Value(v.CapacityBytes),
		NodeID: types.StringValue(v.NodeID), NodeName: types.StringValue(nodeName), NodePool: types.StringValue(v.NodePool),
		HostPath: types.StringValue(v.HostPath), State: types.StringValue(v.State),
		AccessMode: types.StringValue(v.AccessMode), AttachmentMode: types.StringValue(v.AttachmentMode),
		Parameters:  shared.MapOrNull(ctx, v.Parameters, diags),
		Allocations: shared.ListOf(ctx, v.LiveAllocationIDs(), diags),
		Type:        types.StringValue(volume.TypeHost), ExternalID: types.StringNull(),
		Capabilities: types.ListNull(dataCapabilityType),
	}
	if !v.IsCSI() {
		return m
	}
	m.Type, m.ExternalID = types.StringValue(volume.TypeCSI), types.StringValue(v.ExternalID)
	for _, s := range []*types.String{&m.NodeID, &m.NodeName, &m.NodePool, &m.HostPath} {
		*s = types.StringNull()
	}
	caps := make([]attr.Value, 0, len(v.Capabilities))
	for _, c := range v.Capabilities {
		caps = append(caps, types.ObjectValueMust(dataCapabilityType.AttrTypes, map[string]attr.Value{
			"access_mode": types.StringValue(c.AccessMode), "attachment_mode": types.StringValue(c.AttachmentMode)}))
	}
	l, d := types.ListValue(dataCapabilityType, caps)
	diags.Append(d...)
	m.Capabilities = l
	return m
}

var dataCapabilityType = types.ObjectType{AttrTypes: map[string]attr.Type{"access_mode": types.StringType, "attachment_mode": types.StringType}}
