package volume

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
	"github.com/berthhq/terraform-provider-berth/internal/volume"
)

type hostRegistrationModel struct {
	ID           types.String   `tfsdk:"id"`
	Name         types.String   `tfsdk:"name"`
	Namespace    types.String   `tfsdk:"namespace"`
	NodeID       types.String   `tfsdk:"node_id"`
	HostPath     types.String   `tfsdk:"host_path"`
	Capacity     sizeValue      `tfsdk:"capacity"`
	CapacityMin  sizeValue      `tfsdk:"capacity_min"`
	CapacityMax  sizeValue      `tfsdk:"capacity_max"`
	Capabilities types.Set      `tfsdk:"capabilities"`
	Parameters   types.Map      `tfsdk:"parameters"`
	Constraints  types.List     `tfsdk:"constraints"`
	Timeouts     timeouts.Value `tfsdk:"timeouts"`
	NodePool     types.String   `tfsdk:"node_pool"`
	State        types.String   `tfsdk:"state"`
	Allocations  types.List     `tfsdk:"allocations"`
}

func (m *hostRegistrationModel) address() (string, string) {
	return m.Namespace.ValueString(), m.ID.ValueString()
}
func (m *hostRegistrationModel) namespaceAttr() *types.String  { return &m.Namespace }
func (m *hostRegistrationModel) timeoutsValue() timeouts.Value { return m.Timeouts }

// notReadBack leaves m as planned, with its unknowns null.
func (m *hostRegistrationModel) notReadBack(id string) {
	m.ID = types.StringValue(id)
	if m.NodePool.IsUnknown() {
		m.NodePool = types.StringNull()
	}
	if m.State.IsUnknown() {
		m.State = types.StringNull()
	}
	if m.Allocations.IsUnknown() {
		m.Allocations = types.ListNull(types.StringType)
	}
}

// hostRegistrationElem is the element type of a nested attribute, from
// the schema so the two cannot disagree.
func hostRegistrationElem(ctx context.Context, name string) types.ObjectType {
	return types.ObjectType{AttrTypes: shared.AttributeTypes(shared.NestedAttributes(hostRegistrationSchema(ctx).Attributes[name]))}
}

// toRegistration builds the registration to send from the plan (with
// the ID of the volume to update, when known).
func (m *hostRegistrationModel) toRegistration(ctx context.Context, diags *diag.Diagnostics) *volume.HostRegistration {
	r := &volume.HostRegistration{
		Name: m.Name.ValueString(), Namespace: m.Namespace.ValueString(), NodeID: m.NodeID.ValueString(), HostPath: m.HostPath.ValueString(),
		CapacityBytes: m.Capacity.Bytes(), CapacityMinBytes: m.CapacityMin.Bytes(), CapacityMaxBytes: m.CapacityMax.Bytes(),
	}
	if !m.ID.IsUnknown() {
		r.ID = m.ID.ValueString()
	}
	r.Capabilities = capabilitiesFrom(ctx, m.Capabilities, diags)
	diags.Append(m.Parameters.ElementsAs(ctx, &r.Parameters, false)...)
	var cons []constraintModel
	diags.Append(m.Constraints.ElementsAs(ctx, &cons, false)...)
	for _, c := range cons {
		r.Constraints = append(r.Constraints, volume.Constraint{
			Attribute: c.Attribute.ValueString(), Operator: c.Operator.ValueString(), Value: c.Value.ValueString()})
	}
	return r
}

// fromRegistration writes what Nomad reports into m. Sizes keep m's
// spelling; empty maps and lists stay as configured.
func (m *hostRegistrationModel) fromRegistration(ctx context.Context, r *volume.HostRegistration, diags *diag.Diagnostics) {
	m.ID, m.Name, m.Namespace = types.StringValue(r.ID), types.StringValue(r.Name), types.StringValue(r.Namespace)
	m.NodeID, m.HostPath = types.StringValue(r.NodeID), types.StringValue(r.HostPath)
	m.Capacity = keepSize(m.Capacity, r.CapacityBytes)
	m.CapacityMin = keepSize(m.CapacityMin, r.CapacityMinBytes)
	m.CapacityMax = keepSize(m.CapacityMax, r.CapacityMaxBytes)
	m.Capabilities = capabilitiesSet(hostRegistrationElem(ctx, "capabilities"), r.Capabilities, diags)
	m.Parameters = shared.KeepEmptyMap(m.Parameters, shared.MapOrNull(ctx, r.Parameters, diags))
	m.Constraints = shared.KeepEmptyList(m.Constraints, constraintsValue(ctx, r.Constraints, diags))
	m.NodePool, m.State = types.StringValue(r.NodePool), types.StringValue(r.State)
	m.Allocations = shared.ListOf(ctx, (&volume.Volume{Allocations: r.Allocations}).LiveAllocationIDs(), diags)
}
