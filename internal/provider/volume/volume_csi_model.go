package volume

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"

	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
	"github.com/berthhq/terraform-provider-berth/internal/volume"
)

type capabilityModel struct {
	AccessMode     types.String `tfsdk:"access_mode"`
	AttachmentMode types.String `tfsdk:"attachment_mode"`
}

type mountOptionsModel struct {
	FSType     types.String `tfsdk:"fs_type"`
	MountFlags types.List   `tfsdk:"mount_flags"`
}

// capabilityType and mountOptionsTypes come from the schema so the two
// cannot disagree.
func capabilityType(ctx context.Context) attr.Type {
	return types.ObjectType{AttrTypes: shared.AttributeTypes(shared.NestedAttributes(volumeSchema(ctx).Attributes["capabilities"]))}
}

func mountOptionsTypes() map[string]attr.Type {
	return map[string]attr.Type{"fs_type": types.StringType, "mount_flags": types.ListType{ElemType: types.StringType}}
}

// toCSI adds the CSI settings of m to v. Secrets are not in the plan
// (write-only); Create adds them from the configuration.
func (m *volumeModel) toCSI(ctx context.Context, v *volume.Volume, diags *diag.Diagnostics) {
	v.Capabilities = capabilitiesFrom(ctx, m.Capabilities, diags)
	v.MountOptions = mountOptionsFrom(ctx, m.MountOptions, diags)
}

// capabilitiesFrom is a capabilities attribute (a list or a set of
// capabilityModel) as Nomad takes it.
func capabilitiesFrom(ctx context.Context, caps interface {
	ElementsAs(context.Context, any, bool) diag.Diagnostics
}, diags *diag.Diagnostics) []volume.Capability {
	var models []capabilityModel
	diags.Append(caps.ElementsAs(ctx, &models, false)...)
	var out []volume.Capability
	for _, c := range models {
		out = append(out, volume.Capability{AccessMode: c.AccessMode.ValueString(), AttachmentMode: c.AttachmentMode.ValueString()})
	}
	return out
}

// capabilitiesSet is caps as a set of elem, null when there are none.
func capabilitiesSet(elem types.ObjectType, caps []volume.Capability, diags *diag.Diagnostics) types.Set {
	if len(caps) == 0 {
		return types.SetNull(elem)
	}
	values := make([]attr.Value, 0, len(caps))
	for _, c := range caps {
		values = append(values, types.ObjectValueMust(elem.AttrTypes, map[string]attr.Value{
			"access_mode": types.StringValue(c.AccessMode), "attachment_mode": types.StringValue(c.AttachmentMode)}))
	}
	s, d := types.SetValue(elem, values)
	diags.Append(d...)
	return s
}

// mountOptionsFrom is a mount_options attribute as Nomad takes it (nil
// when unset).
func mountOptionsFrom(ctx context.Context, obj types.Object, diags *diag.Diagnostics) *volume.MountOptions {
	if obj.IsNull() || obj.IsUnknown() {
		return nil
	}
	var o mountOptionsModel
	diags.Append(obj.As(ctx, &o, basetypes.ObjectAsOptions{})...)
	out := &volume.MountOptions{FSType: o.FSType.ValueString()}
	diags.Append(o.MountFlags.ElementsAs(ctx, &out.MountFlags, false)...)
	return out
}

// fromCSI writes what Nomad reports of a CSI volume into m. Mount options
// keep m's value: Nomad redacts the flags. access_mode and
// attachment_mode (host volume settings) keep m's value too.
func (m *volumeModel) fromCSI(ctx context.Context, v *volume.Volume, diags *diag.Diagnostics) {
	m.Type = types.StringValue(volume.TypeCSI)
	m.SecretsWO = types.MapNull(types.StringType) // write-only: never in state
	m.ID = types.StringValue(v.ID)
	m.Name = types.StringValue(v.Name)
	m.Namespace = types.StringValue(v.Namespace)
	m.PluginID = types.StringValue(v.PluginID)
	m.CapacityMin = keepSize(m.CapacityMin, v.CapacityMinBytes)
	m.CapacityMax = keepSize(m.CapacityMax, v.CapacityMaxBytes)
	m.Parameters = shared.KeepEmptyMap(m.Parameters, shared.MapOrNull(ctx, v.Parameters, diags))
	models := make([]capabilityModel, 0, len(v.Capabilities))
	for _, c := range v.Capabilities {
		models = append(models, capabilityModel{AccessMode: types.StringValue(c.AccessMode), AttachmentMode: types.StringValue(c.AttachmentMode)})
	}
	if len(models) > 0 {
		l, d := types.ListValueFrom(ctx, capabilityType(ctx), models)
		diags.Append(d...)
		m.Capabilities = l
	}
	if m.MountOptions.IsUnknown() {
		m.MountOptions = types.ObjectNull(mountOptionsTypes())
	}
	for _, s := range []*types.String{&m.NodeID, &m.NodePool, &m.NodeName, &m.HostPath} {
		*s = types.StringNull()
	}
	if m.AccessMode.IsUnknown() || m.AccessMode.IsNull() {
		m.AccessMode = types.StringValue(volume.DefaultAccessMode)
	}
	if m.AttachmentMode.IsUnknown() || m.AttachmentMode.IsNull() {
		m.AttachmentMode = types.StringValue(volume.DefaultAttachmentMode)
	}
	m.ExternalID = shared.StringOrNull(v.ExternalID)
	m.CapacityBytes = types.Int64Value(v.CapacityBytes)
	m.State = types.StringValue(v.State)
	m.Allocations = shared.ListOf(ctx, v.LiveAllocationIDs(), diags)
	if m.ForceDestroy.IsNull() {
		m.ForceDestroy = types.BoolValue(false)
	}
}
