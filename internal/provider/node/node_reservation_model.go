package node

import (
	"context"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-timetypes/timetypes"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"

	"github.com/berthhq/terraform-provider-berth/internal/capacity"
	"github.com/berthhq/terraform-provider-berth/internal/ledger"
	"github.com/berthhq/terraform-provider-berth/internal/nomadclient"
	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
)

type nodeReservationModel struct {
	ID          types.String      `tfsdk:"id"`
	Name        types.String      `tfsdk:"name"`
	NodeID      types.String      `tfsdk:"node_id"`
	Placement   types.Object      `tfsdk:"placement"`
	CPU         types.Int64       `tfsdk:"cpu"`
	Memory      types.Int64       `tfsdk:"memory"`
	Disk        types.Int64       `tfsdk:"disk"`
	Annotations types.Map         `tfsdk:"annotations"`
	NodeName    types.String      `tfsdk:"node_name"`
	Datacenter  types.String      `tfsdk:"datacenter"`
	NodeStatus  types.String      `tfsdk:"node_status"`
	CreatedAt   timetypes.RFC3339 `tfsdk:"created_at"`
	Used        types.Object      `tfsdk:"used"`
	Hold        types.Object      `tfsdk:"hold"`
	Unheld      types.Object      `tfsdk:"unheld"`
	Timeouts    timeouts.Value    `tfsdk:"timeouts"`
}

// holdModel is the `hold` attribute.
type holdModel struct {
	JobID  types.String `tfsdk:"job_id"`
	CPU    types.Int64  `tfsdk:"cpu"`
	Memory types.Int64  `tfsdk:"memory"`
	Disk   types.Int64  `tfsdk:"disk"`
	InSync types.Bool   `tfsdk:"in_sync"`
}

type placementModel struct {
	Datacenter types.String `tfsdk:"datacenter"`
	NodePool   types.String `tfsdk:"node_pool"`
	NodeClass  types.String `tfsdk:"node_class"`
	Strategy   types.String `tfsdk:"strategy"`
}

func (m *nodeReservationModel) request() capacity.Resources {
	return capacity.Resources{CPU: m.CPU.ValueInt64(), MemoryMB: m.Memory.ValueInt64(), DiskMB: m.Disk.ValueInt64()}
}

// nodeReservationRequest converts the model. Annotations or a placement that
// cannot be decoded are reported at their attribute, never silently
// replaced by defaults (a lost placement would reserve on any node).
func (m *nodeReservationModel) nodeReservationRequest(ctx context.Context, diags *diag.Diagnostics) nomadclient.NodeReservationRequest {
	req := nomadclient.NodeReservationRequest{Name: m.Name.ValueString(), NodeID: m.NodeID.ValueString(), Request: m.request()}
	if m.NodeID.IsUnknown() {
		req.NodeID = ""
	}
	if !m.Annotations.IsNull() && !m.Annotations.IsUnknown() {
		if d := m.Annotations.ElementsAs(ctx, &req.Annotations, false); d.HasError() {
			diags.AddAttributeError(path.Root("annotations"), "Invalid annotations",
				"berth could not read the annotations as a map of strings: "+diagSummary(d)+". Use string values only.")
		}
	}
	req.Placement.Strategy = ledger.Binpack
	if m.Placement.IsNull() || m.Placement.IsUnknown() {
		return req
	}
	var p placementModel
	if d := m.Placement.As(ctx, &p, basetypes.ObjectAsOptions{}); d.HasError() {
		diags.AddAttributeError(path.Root("placement"), "Invalid placement",
			"berth could not read the placement, so it cannot honor it: "+diagSummary(d)+
				". Set datacenter, node_pool, node_class and strategy to known strings, or remove placement.")
		return req
	}
	for name, v := range map[string]types.String{"datacenter": p.Datacenter, "node_pool": p.NodePool, "node_class": p.NodeClass, "strategy": p.Strategy} {
		if v.IsUnknown() {
			diags.AddAttributeError(path.Root("placement").AtName(name), "Placement not known yet",
				"placement."+name+" depends on a value known only after apply, but berth needs it to choose a node. Use a value known at plan time.")
		}
	}
	req.Placement = nomadclient.Placement{Datacenter: p.Datacenter.ValueString(), NodePool: p.NodePool.ValueString(),
		NodeClass: p.NodeClass.ValueString(), Strategy: ledger.Strategy(p.Strategy.ValueString())}
	if req.Placement.Strategy == "" {
		req.Placement.Strategy = ledger.Binpack
	}
	return req
}

// setFrom copies what the ledger holds for the reservation into m. The
// configured annotations' emptiness is kept (null and {} both mean none).
func (m *nodeReservationModel) setFrom(ctx context.Context, res *nomadclient.NodeReservationState, diags *diag.Diagnostics) {
	m.ID = types.StringValue(res.NodeID + "/" + res.Name)
	m.CPU = types.Int64Value(res.Request.CPU)
	m.Memory = types.Int64Value(res.Request.MemoryMB)
	m.Disk = types.Int64Value(res.Request.DiskMB)
	m.Annotations = shared.KeepEmptyMap(m.Annotations, shared.MapOrNull(ctx, res.Annotations, diags))
	m.CreatedAt = timetypes.NewRFC3339TimeValue(res.CreatedAt.UTC())
	m.Used = nodeReservationUsedObject(ctx, res.Used(), diags)
	m.Hold = objectFrom(ctx, nodeReservationHoldAttribute(), holdModel{
		JobID: types.StringValue(res.Hold.JobID), CPU: types.Int64Value(res.Hold.Held.CPU),
		Memory: types.Int64Value(res.Hold.Held.MemoryMB), Disk: types.Int64Value(res.Hold.Held.DiskMB),
		InSync: types.BoolValue(res.HoldInSync),
	}, diags)
	m.Unheld = objectFrom(ctx, nodeReservationUnheldAttribute(), newCapacityModel(res.Hold.Unheld), diags)
	m.NodeName = types.StringValue(res.NodeName)
	m.Datacenter = types.StringValue(res.Datacenter)
	m.NodeStatus = types.StringValue(res.NodeStatus)
	if res.NodeGone {
		m.NodeStatus = types.StringValue("gone")
	}
}

// nodeReservationUsedObject converts r to the `used` attribute's object,
// typed by the schema's attribute.
func nodeReservationUsedObject(ctx context.Context, r capacity.Resources, diags *diag.Diagnostics) types.Object {
	return objectFrom(ctx, nodeReservationUsedAttribute(), newCapacityModel(r), diags)
}

// objectFrom converts v to the object value of the nested attribute a,
// typed by the schema, so the model cannot drift from it.
func objectFrom(ctx context.Context, a schema.SingleNestedAttribute, v any, diags *diag.Diagnostics) types.Object {
	t, ok := a.GetType().(types.ObjectType)
	if !ok {
		diags.AddError("Provider bug: not an object", "A nested attribute's schema is not a plain object; report this to the berth maintainers.")
		return types.ObjectUnknown(nil)
	}
	out, d := types.ObjectValueFrom(ctx, t.AttrTypes, v)
	diags.Append(d...)
	return out
}

// diagSummary joins the summaries and details of diagnostics' errors.
func diagSummary(d diag.Diagnostics) string {
	var parts []string
	for _, e := range d.Errors() {
		parts = append(parts, e.Summary()+": "+e.Detail())
	}
	return strings.Join(parts, "; ")
}
