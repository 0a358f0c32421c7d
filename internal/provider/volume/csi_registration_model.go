package volume

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/mapplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"

	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
	"github.com/berthhq/terraform-provider-berth/internal/volume"
)

type csiRegistrationModel struct {
	ID               types.String   `tfsdk:"id"`
	VolumeID         types.String   `tfsdk:"volume_id"`
	Name             types.String   `tfsdk:"name"`
	Namespace        types.String   `tfsdk:"namespace"`
	ExternalID       types.String   `tfsdk:"external_id"`
	PluginID         types.String   `tfsdk:"plugin_id"`
	CapacityMin      sizeValue      `tfsdk:"capacity_min"`
	CapacityMax      sizeValue      `tfsdk:"capacity_max"`
	Capabilities     types.Set      `tfsdk:"capabilities"`
	MountOptions     types.Object   `tfsdk:"mount_options"`
	Parameters       types.Map      `tfsdk:"parameters"`
	Context          types.Map      `tfsdk:"context"`
	Topologies       types.List     `tfsdk:"topologies"`
	SecretsWO        types.Map      `tfsdk:"secrets_wo"`
	SecretsWOVersion types.Int64    `tfsdk:"secrets_wo_version"`
	Timeouts         timeouts.Value `tfsdk:"timeouts"`
	CapacityBytes    types.Int64    `tfsdk:"capacity_bytes"`
	State            types.String   `tfsdk:"state"`
	Allocations      types.List     `tfsdk:"allocations"`
}

func (m *csiRegistrationModel) address() (string, string) {
	return m.Namespace.ValueString(), m.VolumeID.ValueString()
}
func (m *csiRegistrationModel) namespaceAttr() *types.String  { return &m.Namespace }
func (m *csiRegistrationModel) timeoutsValue() timeouts.Value { return m.Timeouts }

// notReadBack leaves m as planned, with its unknowns null.
func (m *csiRegistrationModel) notReadBack(id string) {
	m.ID = types.StringValue(id)
	if m.CapacityBytes.IsUnknown() {
		m.CapacityBytes = types.Int64Null()
	}
	if m.State.IsUnknown() {
		m.State = types.StringNull()
	}
	if m.Allocations.IsUnknown() {
		m.Allocations = types.ListNull(types.StringType)
	}
}

type topologyModel struct {
	Segments types.Map `tfsdk:"segments"`
}

// Element types, from the schema so the two cannot disagree.
func csiRegistrationElem(ctx context.Context, name string) types.ObjectType {
	return types.ObjectType{AttrTypes: shared.AttributeTypes(shared.NestedAttributes(csiRegistrationSchema(ctx).Attributes[name]))}
}

// toRegistration builds the registration to send from the plan. Secrets
// are not in the plan (write-only): the caller adds them from the
// configuration.
func (m *csiRegistrationModel) toRegistration(ctx context.Context, diags *diag.Diagnostics) *volume.CSIRegistration {
	r := &volume.CSIRegistration{
		ID: m.VolumeID.ValueString(), Name: m.Name.ValueString(), Namespace: m.Namespace.ValueString(),
		ExternalID: m.ExternalID.ValueString(), PluginID: m.PluginID.ValueString(),
		CapacityMinBytes: m.CapacityMin.Bytes(), CapacityMaxBytes: m.CapacityMax.Bytes(),
	}
	r.Capabilities = capabilitiesFrom(ctx, m.Capabilities, diags)
	r.MountOptions = mountOptionsFrom(ctx, m.MountOptions, diags)
	diags.Append(m.Parameters.ElementsAs(ctx, &r.Parameters, false)...)
	diags.Append(m.Context.ElementsAs(ctx, &r.Context, false)...)
	var tops []topologyModel
	diags.Append(m.Topologies.ElementsAs(ctx, &tops, false)...)
	for _, t := range tops {
		segs := map[string]string{}
		diags.Append(t.Segments.ElementsAs(ctx, &segs, false)...)
		r.Topologies = append(r.Topologies, segs)
	}
	return r
}

// fromRegistration writes what Nomad reports into m. Sizes keep m's
// spelling; mount flags keep m's value (Nomad redacts them; their
// presence is still compared); empty maps and lists stay as configured.
func (m *csiRegistrationModel) fromRegistration(ctx context.Context, r *volume.CSIRegistration, diags *diag.Diagnostics) {
	m.ID, m.VolumeID = types.StringValue(r.ID), types.StringValue(r.ID)
	m.Name, m.Namespace = types.StringValue(r.Name), types.StringValue(r.Namespace)
	m.ExternalID, m.PluginID = types.StringValue(r.ExternalID), types.StringValue(r.PluginID)
	m.CapacityMin = keepSize(m.CapacityMin, r.CapacityMinBytes)
	m.CapacityMax = keepSize(m.CapacityMax, r.CapacityMaxBytes)
	m.Capabilities = capabilitiesSet(csiRegistrationElem(ctx, "capabilities"), r.Capabilities, diags)
	m.MountOptions = mountOptionsFromNomad(ctx, m.MountOptions, r, diags)
	m.Parameters = shared.KeepEmptyMap(m.Parameters, shared.MapOrNull(ctx, r.Parameters, diags))
	m.Context = shared.KeepEmptyMap(m.Context, shared.MapOrNull(ctx, r.Context, diags))
	topElem := csiRegistrationElem(ctx, "topologies")
	tops := make([]attr.Value, 0, len(r.Topologies))
	for _, segs := range r.Topologies {
		tops = append(tops, types.ObjectValueMust(topElem.AttrTypes, map[string]attr.Value{"segments": shared.MapOrNull(ctx, segs, diags)}))
	}
	if len(tops) == 0 {
		if m.Topologies.IsUnknown() || len(m.Topologies.Elements()) > 0 {
			m.Topologies = types.ListNull(topElem)
		}
	} else {
		l, d := types.ListValue(topElem, tops)
		diags.Append(d...)
		m.Topologies = l
	}
	m.SecretsWO = types.MapNull(types.StringType) // write-only: never in state
	m.CapacityBytes = types.Int64Value(r.CapacityBytes)
	m.State = types.StringValue(r.State)
	m.Allocations = shared.ListOf(ctx, r.LiveAllocationIDs(), diags)
}

// mountOptionsFromNomad is the mount_options attribute for what Nomad
// holds: its fs_type, and prior's flags while Nomad still holds some (it
// shows them only as redacted); flags Nomad no longer holds read as none.
func mountOptionsFromNomad(ctx context.Context, prior types.Object, r *volume.CSIRegistration, diags *diag.Diagnostics) types.Object {
	if r.MountOptions == nil {
		return types.ObjectNull(mountOptionsTypes())
	}
	flags := types.ListNull(types.StringType)
	if r.MountFlagsRedacted && !prior.IsNull() && !prior.IsUnknown() {
		var o mountOptionsModel
		diags.Append(prior.As(ctx, &o, basetypes.ObjectAsOptions{})...)
		flags = o.MountFlags
	}
	obj, d := types.ObjectValue(mountOptionsTypes(), map[string]attr.Value{"fs_type": shared.StringOrNull(r.MountOptions.FSType), "mount_flags": flags})
	diags.Append(d...)
	return obj
}

// replaceWhenContextRemoved: Nomad keeps a registration's context when an
// update has none, so going from some context to none replaces it.
func replaceWhenContextRemoved() planmodifier.Map {
	return mapplanmodifier.RequiresReplaceIf(func(_ context.Context, req planmodifier.MapRequest, resp *mapplanmodifier.RequiresReplaceIfFuncResponse) {
		resp.RequiresReplace = len(req.StateValue.Elements()) > 0 && !req.PlanValue.IsUnknown() && len(req.PlanValue.Elements()) == 0
	}, "Removing all of the context replaces the registration.", "Removing all of the context replaces the registration.")
}

// volumeIDValidatorCSI checks a CSI volume ID (checkCSIVolumeID).
func volumeIDValidatorCSI() validator.String {
	return shared.StringRule{Summary: "Invalid volume ID", Desc: "must be a CSI volume ID: not empty, without `/`", Check: checkCSIVolumeID}
}
