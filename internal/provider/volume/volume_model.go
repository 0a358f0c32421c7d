package volume

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
	"github.com/berthhq/terraform-provider-berth/internal/units"
	"github.com/berthhq/terraform-provider-berth/internal/volume"
)

type volumeModel struct {
	ID              types.String   `tfsdk:"id"`
	Name            types.String   `tfsdk:"name"`
	Namespace       types.String   `tfsdk:"namespace"`
	PluginID        types.String   `tfsdk:"plugin_id"`
	CapacityMin     sizeValue      `tfsdk:"capacity_min"`
	CapacityMax     sizeValue      `tfsdk:"capacity_max"`
	AccessMode      types.String   `tfsdk:"access_mode"`
	AttachmentMode  types.String   `tfsdk:"attachment_mode"`
	NodeID          types.String   `tfsdk:"node_id"`
	NodePool        types.String   `tfsdk:"node_pool"`
	NodeReservation types.String   `tfsdk:"node_reservation"`
	Constraints     types.List     `tfsdk:"constraints"`
	Parameters      types.Map      `tfsdk:"parameters"`
	Type            types.String   `tfsdk:"type"`
	Capabilities    types.List     `tfsdk:"capabilities"`
	MountOptions    types.Object   `tfsdk:"mount_options"`
	SecretsWO       types.Map      `tfsdk:"secrets_wo"`
	ExternalID      types.String   `tfsdk:"external_id"`
	ForceDestroy    types.Bool     `tfsdk:"force_destroy"`
	Timeouts        timeouts.Value `tfsdk:"timeouts"`
	NodeName        types.String   `tfsdk:"node_name"`
	HostPath        types.String   `tfsdk:"host_path"`
	CapacityBytes   types.Int64    `tfsdk:"capacity_bytes"`
	State           types.String   `tfsdk:"state"`
	Allocations     types.List     `tfsdk:"allocations"`
}

type constraintModel struct {
	Attribute types.String `tfsdk:"attribute"`
	Operator  types.String `tfsdk:"operator"`
	Value     types.String `tfsdk:"value"`
}

// volumeComputed names the attributes only Nomad sets (by tfsdk tag).
// Every other attribute of volumeModel is a setting sameSettings compares.
var volumeComputed = []string{"id", "node_name", "host_path", "capacity_bytes", "state", "allocations", "external_id"}

// constraintType is the element type of the constraints attribute, taken
// from the schema so the two cannot disagree.
func constraintType(ctx context.Context) attr.Type {
	return types.ObjectType{AttrTypes: shared.AttributeTypes(shared.NestedAttributes(volumeSchema(ctx).Attributes["constraints"]))}
}

// toVolume builds the volume to ask Nomad for from the plan; unknown
// computed values are left for Nomad to choose.
func (m *volumeModel) toVolume(ctx context.Context, diags *diag.Diagnostics) *volume.Volume {
	v := &volume.Volume{
		Name: m.Name.ValueString(), Namespace: m.Namespace.ValueString(), PluginID: m.PluginID.ValueString(),
		CapacityMinBytes: m.CapacityMin.Bytes(), CapacityMaxBytes: m.CapacityMax.Bytes(),
		AccessMode: m.AccessMode.ValueString(), AttachmentMode: m.AttachmentMode.ValueString(),
		Type: m.Type.ValueString(),
	}
	if v.IsCSI() {
		m.toCSI(ctx, v, diags)
	}
	if !m.ID.IsUnknown() {
		v.ID = m.ID.ValueString()
	}
	if !m.NodeID.IsUnknown() {
		v.NodeID = m.NodeID.ValueString()
	}
	if !m.NodePool.IsUnknown() {
		v.NodePool = m.NodePool.ValueString()
	}
	diags.Append(m.Parameters.ElementsAs(ctx, &v.Parameters, false)...)
	var cons []constraintModel
	diags.Append(m.Constraints.ElementsAs(ctx, &cons, false)...)
	for _, c := range cons {
		v.Constraints = append(v.Constraints, volume.Constraint{
			Attribute: c.Attribute.ValueString(), Operator: c.Operator.ValueString(), Value: c.Value.ValueString(),
		})
	}
	return v
}

// fromVolume writes what Nomad reports into m; nodeName is the name of
// v's node. Requested values that match state keep state's spelling.
func (m *volumeModel) fromVolume(ctx context.Context, v *volume.Volume, nodeName string, diags *diag.Diagnostics) {
	if v.IsCSI() {
		m.fromCSI(ctx, v, diags)
		return
	}
	m.Type = types.StringValue(volume.TypeHost)
	m.ExternalID = types.StringNull()
	m.Capabilities = types.ListNull(capabilityType(ctx))
	m.MountOptions = types.ObjectNull(mountOptionsTypes())
	m.SecretsWO = types.MapNull(types.StringType) // write-only: never in state
	m.ID = types.StringValue(v.ID)
	m.Name = types.StringValue(v.Name)
	m.Namespace = types.StringValue(v.Namespace)
	m.PluginID = types.StringValue(v.PluginID)
	m.NodeID = types.StringValue(v.NodeID)
	m.NodePool = types.StringValue(v.NodePool)
	m.CapacityMin = keepSize(m.CapacityMin, v.CapacityMinBytes)
	m.CapacityMax = keepSize(m.CapacityMax, v.CapacityMaxBytes)
	// An answer without a capability keeps what m had.
	if v.AccessMode != "" || v.AttachmentMode != "" {
		m.AccessMode = types.StringValue(v.AccessMode)
		m.AttachmentMode = types.StringValue(v.AttachmentMode)
	}
	m.Parameters = shared.KeepEmptyMap(m.Parameters, shared.MapOrNull(ctx, v.Parameters, diags))
	m.Constraints = shared.KeepEmptyList(m.Constraints, constraintsValue(ctx, v.Constraints, diags))
	m.HostPath = types.StringValue(v.HostPath)
	m.CapacityBytes = types.Int64Value(v.CapacityBytes)
	m.State = types.StringValue(v.State)
	m.Allocations = shared.ListOf(ctx, v.LiveAllocationIDs(), diags)
	m.NodeName = types.StringValue(nodeName)
	if m.ForceDestroy.IsNull() {
		m.ForceDestroy = types.BoolValue(false)
	}
}

// constraintsValue is the constraints attribute for cs: null when empty.
func constraintsValue(ctx context.Context, cs []volume.Constraint, diags *diag.Diagnostics) types.List {
	elem := constraintType(ctx)
	if len(cs) == 0 {
		return types.ListNull(elem)
	}
	models := make([]constraintModel, 0, len(cs))
	for _, c := range cs {
		models = append(models, constraintModel{
			Attribute: types.StringValue(c.Attribute), Operator: types.StringValue(c.Operator), Value: shared.StringOrNull(c.Value),
		})
	}
	l, d := types.ListValueFrom(ctx, elem, models)
	diags.Append(d...)
	return l
}

// keepSize returns prior when it means the same number of bytes (so
// "1GiB" stays "1GiB"), else the size Nomad reports, or null for 0.
func keepSize(prior sizeValue, bytes int64) sizeValue {
	if !prior.IsNull() && !prior.IsUnknown() && prior.Bytes() == bytes {
		return prior
	}
	if bytes == 0 {
		return sizeValue{StringValue: types.StringNull()}
	}
	return newSizeValue(bytes)
}

// volumeDiskMB is what a volume takes from a node reservation's disk budget.
func volumeDiskMB(m volumeModel) int64 {
	if b := m.CapacityMax.Bytes(); b > 0 {
		return units.MiB(b)
	}
	return units.MiB(m.CapacityMin.Bytes())
}

// nullUnknownVolume replaces the computed values still unknown with null.
func nullUnknownVolume(m *volumeModel) {
	for _, v := range []*types.String{&m.NodeID, &m.NodePool, &m.NodeName, &m.HostPath, &m.State, &m.PluginID,
		&m.AccessMode, &m.AttachmentMode, &m.Namespace, &m.Type, &m.ExternalID} {
		if v.IsUnknown() {
			*v = types.StringNull()
		}
	}
	if m.CapacityBytes.IsUnknown() {
		m.CapacityBytes = types.Int64Null()
	}
	if m.Allocations.IsUnknown() {
		m.Allocations = types.ListNull(types.StringType)
	}
	if m.ForceDestroy.IsUnknown() {
		m.ForceDestroy = types.BoolValue(false)
	}
}
