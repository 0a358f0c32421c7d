package node

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timetypes/timetypes"
	"github.com/hashicorp/terraform-plugin-framework-validators/resourcevalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/berthhq/terraform-provider-berth/internal/names"
	"github.com/berthhq/terraform-provider-berth/internal/nomadclient"
	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
	"github.com/berthhq/terraform-provider-berth/internal/workflow"
)

var (
	_ resource.ResourceWithConfigure        = &nodeReservationResource{}
	_ resource.ResourceWithImportState      = &nodeReservationResource{}
	_ resource.ResourceWithValidateConfig   = &nodeReservationResource{}
	_ resource.ResourceWithModifyPlan       = &nodeReservationResource{}
	_ resource.ResourceWithConfigValidators = &nodeReservationResource{}
)

// NewNodeReservationResource builds the berth_node_reservation resource.
func NewNodeReservationResource() resource.Resource { return newNodeReservationResource() }

// newNodeReservationResource is the resource as its own type, for its list resource.
func newNodeReservationResource() *nodeReservationResource {
	return &nodeReservationResource{ResourceBase: shared.NewResourceBase("node_reservation"), WithIdentity: shared.WithIdentity{Identity: nodeReservationIdentity}}
}

type nodeReservationResource struct {
	shared.ResourceBase
	shared.WithIdentity
}

// defaultNodeReservationTimeout bounds create, update and delete when the
// timeouts block does not: a ledger write under contention retries, and
// scheduling may try several nodes.
const defaultNodeReservationTimeout = 5 * time.Minute

func (r *nodeReservationResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = nodeReservationSchema(ctx)
}

func (r *nodeReservationResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var m nodeReservationModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() || shared.AnyUnknown(m.CPU, m.Memory, m.Disk) {
		return
	}
	// Negative amounts are the schema's to report; "empty" would repeat them.
	if m.CPU.ValueInt64() == 0 && m.Memory.ValueInt64() == 0 && m.Disk.ValueInt64() == 0 {
		resp.Diagnostics.AddAttributeError(path.Root("cpu"), "Empty reservation",
			"A node reservation must hold something: set at least one of cpu, memory or disk above 0.")
	}
}

// ConfigValidators: placement only chooses a node when node_id is unset,
// so setting both is refused (reported at placement, the first path).
func (r *nodeReservationResource) ConfigValidators(context.Context) []resource.ConfigValidator {
	return []resource.ConfigValidator{
		resourcevalidator.Conflicting(path.MatchRoot("placement"), path.MatchRoot("node_id")),
	}
}

// ModifyPlan checks at plan time that a reservation on a known node fits,
// with the same message as apply, as a warning: the apply refuses it
// before writing (plan_advice.go). If Nomad cannot be reached it warns and
// leaves the check to apply. A change that writes nothing (placement
// strategy, timeouts) keeps the computed values, so the plan shows only
// that change. The planned request of an existing reservation is
// remembered for the budget checks of the work placed into it.
func (r *nodeReservationResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() || r.Data == nil {
		return
	}
	var plan nodeReservationModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() || plan.NodeID.IsUnknown() || plan.NodeID.IsNull() || shared.AnyUnknown(plan.CPU, plan.Memory, plan.Disk, plan.Name) {
		return
	}
	inPlace := false
	if !req.State.Raw.IsNull() {
		var state nodeReservationModel
		resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
		if resp.Diagnostics.HasError() {
			return
		}
		repair := holdNeedsRepair(ctx, state, &resp.Diagnostics)
		if repair {
			planHoldRepair(ctx, resp)
		}
		inPlace = state.NodeID.Equal(plan.NodeID) && state.Name.Equal(plan.Name)
		if state.request() == plan.request() && inPlace {
			r.Data.Plans.Record(plan.NodeID.ValueString()+"/"+plan.Name.ValueString(), plan.request())
			if !plan.Annotations.IsUnknown() && plan.Annotations.Equal(state.Annotations) && !repair {
				// Nothing to write: what only a read can tell stays as read.
				plan.NodeName, plan.Datacenter, plan.NodeStatus = state.NodeName, state.Datacenter, state.NodeStatus
				plan.CreatedAt, plan.Used, plan.Hold, plan.Unheld = state.CreatedAt, state.Used, state.Hold, state.Unheld
				resp.Diagnostics.Append(resp.Plan.Set(ctx, &plan)...)
			}
			return // nothing to re-check
		}
	}
	rr := plan.nodeReservationRequest(ctx, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	err := r.Data.Nomad.CheckNodeReservation(ctx, r.Data.LedgerNamespace, rr)
	var connErr *nomadclient.ConnectError
	var timeoutErr *nomadclient.TimeoutError
	if inPlace && (err == nil || errors.As(err, &connErr) || errors.As(err, &timeoutErr)) {
		r.Data.Plans.Record(plan.NodeID.ValueString()+"/"+plan.Name.ValueString(), plan.request())
	}
	switch {
	case err == nil:
	case errors.As(err, &connErr), errors.As(err, &timeoutErr):
		resp.Diagnostics.AddWarning("Capacity not checked at plan time",
			"berth could not get an answer from Nomad to check that the reservation fits ("+err.Error()+"); apply will check it.")
	default:
		var found diag.Diagnostics
		shared.AddNodeReservationError(&found, "The reservation does not fit", err)
		shared.WarnAtPlan(&resp.Diagnostics, found)
	}
}

func (r *nodeReservationResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan nodeReservationModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	rr, opCtx, cancel := plan.writeRequest(ctx, plan.Timeouts.Create, &resp.Diagnostics)
	defer cancel()
	if resp.Diagnostics.HasError() {
		return
	}
	rr.Create, rr.CreatedAt = true, time.Now().UTC()
	out, err := r.reservations().Create(opCtx, rr)
	reportWrite(&resp.Diagnostics, out, err)
	switch {
	case out.Unsettled:
		r.recordMaybeMade(ctx, &resp.State, plan, out.NodeID, rr.CreatedAt, &resp.Diagnostics)
	case out.Reserved:
		plan.NodeID = types.StringValue(out.NodeID)
		r.recordWritten(ctx, &resp.State, &plan, "made", &resp.Diagnostics)
	}
}

// writeRequest is the ledger request plan makes, and the context its
// write runs in: ctx bounded by the timeout the plan sets for this write
// (timeout is its Create or Update). Diags say when there is none; cancel
// is to be deferred either way.
func (m *nodeReservationModel) writeRequest(ctx context.Context, timeout func(context.Context, time.Duration) (time.Duration, diag.Diagnostics),
	diags *diag.Diagnostics) (nomadclient.NodeReservationRequest, context.Context, context.CancelFunc) {
	bound, d := timeout(ctx, defaultNodeReservationTimeout)
	diags.Append(d...)
	rr := m.nodeReservationRequest(ctx, diags)
	opCtx, cancel := context.WithTimeout(ctx, bound)
	return rr, opCtx, cancel
}

// reportWrite reports a write's warnings and its failure.
func reportWrite(diags *diag.Diagnostics, out workflow.NodeReservationOutcome, err error) {
	if shared.AddWarnings(diags, out.Warnings); err != nil {
		shared.AddWorkflowError(diags, shared.ErrorContext{}, err)
	}
}

// reservations is berth_node_reservation's workflow.
func (r *nodeReservationResource) reservations() workflow.NodeReservations {
	return workflow.NodeReservations{Nomad: r.Data.Nomad, Namespace: r.Data.LedgerNamespace}
}

// planHoldRepair plans an update when the last read found the hold job out
// of line with the ledger (stopped or changed outside berth, or left behind
// by an interrupted write): Update rewrites it.
func planHoldRepair(ctx context.Context, resp *resource.ModifyPlanResponse) {
	for name, a := range map[string]schema.SingleNestedAttribute{"hold": nodeReservationHoldAttribute(), "unheld": nodeReservationUnheldAttribute()} {
		t, _ := a.GetType().(types.ObjectType)
		resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root(name), types.ObjectUnknown(t.AttrTypes))...)
	}
}

// holdNeedsRepair reports whether the last read found the hold job out of
// line with the ledger.
func holdNeedsRepair(ctx context.Context, state nodeReservationModel, diags *diag.Diagnostics) bool {
	if state.Hold.IsNull() || state.Hold.IsUnknown() {
		return false
	}
	var h holdModel
	if d := state.Hold.As(ctx, &h, basetypes.ObjectAsOptions{}); d.HasError() {
		diags.Append(d...)
		return false
	}
	return !h.InSync.IsNull() && !h.InSync.ValueBool()
}

// recordMaybeMade records a create whose answer was lost (timeout, dropped
// connection), so a reservation that landed is not orphaned in the ledger;
// Terraform marks it tainted, and the next apply replaces it. What is
// recorded: the item read back when it carries this create's stamp; what
// was asked, with the stamp, when Nomad cannot be read. A definite
// refusal never gets here, and an item with another stamp (another
// configuration's) is never taken over.
func (r *nodeReservationResource) recordMaybeMade(ctx context.Context, st *tfsdk.State, plan nodeReservationModel, nodeID string,
	stamp time.Time, diags *diag.Diagnostics) {
	found := plan
	found.NodeID = types.StringValue(nodeID)
	var quiet diag.Diagnostics
	switch r.refresh(shared.CleanupContext(ctx), &found, &quiet) {
	case shared.ObjectRead:
		if got, d := found.CreatedAt.ValueRFC3339Time(); !d.HasError() && !quiet.HasError() && got.Equal(stamp.Truncate(time.Second)) {
			diags.Append(st.Set(ctx, &found)...)
		}
	case shared.ObjectUnread:
		made := plan
		made.NodeID = types.StringValue(nodeID)
		made.ID = types.StringValue(nodeID + "/" + plan.Name.ValueString())
		made.CreatedAt = timetypes.NewRFC3339TimeValue(stamp)
		shared.SetStateUnknownsNull(ctx, st, &made, diags)
	}
}

// recordWritten reads the reservation back after a write that succeeded,
// with a fresh bound (the operation's may be spent). A failed read is a
// warning, not an error: the write happened, and an error would taint the
// reservation. State then gets what berth wrote, with what only a read can
// tell set to null; the next plan reads the ledger.
func (r *nodeReservationResource) recordWritten(ctx context.Context, st *tfsdk.State, m *nodeReservationModel, done string, diags *diag.Diagnostics) {
	var read diag.Diagnostics
	got := r.refresh(shared.CleanupContext(ctx), m, &read)
	switch {
	case got == shared.ObjectUnread || read.HasError():
		diags.AddWarning("Could not read the reservation back",
			fmt.Sprintf("The reservation was %s, but reading it back failed: %s State records what berth wrote; the next "+
				"terraform plan reads the rest from the node's ledger.", done, read.Errors()[0].Detail()))
		shared.SetStateUnknownsNull(ctx, st, m, diags)
	case got == shared.ObjectGone:
		diags.AddError("Reservation vanished",
			"The reservation was "+done+" but is no longer in the node's ledger (someone released it meanwhile); run terraform apply again to recreate it.")
	default:
		diags.Append(st.Set(ctx, m)...)
	}
}

// refresh reads the reservation from its node's ledger into m.
func (r *nodeReservationResource) refresh(ctx context.Context, m *nodeReservationModel, diags *diag.Diagnostics) shared.ReadOutcome {
	nodeID, name := m.NodeID.ValueString(), m.Name.ValueString()
	res, found, err := r.Data.Nomad.ReadNodeReservation(ctx, r.Data.LedgerNamespace, nodeID, name)
	if err != nil {
		shared.AddNomadError(diags, "Could not read the reservation", err)
		return shared.ObjectUnread
	}
	if !found {
		return shared.ObjectGone
	}
	m.setFrom(ctx, res, diags)
	if res.NodeDraining {
		diags.AddWarning("Reservation's node is drained",
			fmt.Sprintf("Node %s (%s) is draining or drained. Its drain stops reservation %q's hold job like any work "+
				"pinned to the node, so until the node is eligible again its reserved capacity is not held in Nomad's "+
				"scheduler (the ledger still keeps it), and work placed into the reservation cannot run there. End the "+
				"drain (`nomad node drain -disable`, or remove `drain` from its berth_node_settings) to hold it again.",
				res.NodeName, res.NodeID, res.Name))
	}
	return shared.ObjectRead
}

func (r *nodeReservationResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state nodeReservationModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	switch r.refresh(ctx, &state, &resp.Diagnostics) {
	case shared.ObjectUnread:
		return
	case shared.ObjectGone:
		tflog.Info(ctx, "Reservation is gone from the ledger; removing it from state", map[string]any{"id": state.ID.ValueString()})
		resp.State.RemoveResource(ctx)
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

func (r *nodeReservationResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan, state nodeReservationModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	rr, opCtx, cancel := plan.writeRequest(ctx, plan.Timeouts.Update, &resp.Diagnostics)
	defer cancel()
	if resp.Diagnostics.HasError() {
		return
	}
	sameLedgerItem := plan.request() == state.request() && plan.Annotations.Equal(state.Annotations)
	if sameLedgerItem && !holdNeedsRepair(ctx, state, &resp.Diagnostics) {
		// A change of timeouts or of the placement strategy alone (the
		// node is chosen) touches nothing in Nomad: state takes the new
		// values.
		state.Placement, state.Timeouts = plan.Placement, plan.Timeouts
		resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
		return
	}
	out, err := r.reservations().Update(opCtx, rr, !sameLedgerItem)
	reportWrite(&resp.Diagnostics, out, err)
	switch {
	case out.Unsettled:
		// State must say what the ledger holds now, whether or not the
		// failed write landed: read it back with a fresh bound.
		state.Timeouts = plan.Timeouts
		if r.refresh(shared.CleanupContext(ctx), &state, &diag.Diagnostics{}) != shared.ObjectGone {
			resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
		}
	case out.Reserved:
		r.recordWritten(ctx, &resp.State, &plan, "resized", &resp.Diagnostics)
	}
}

func (r *nodeReservationResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state nodeReservationModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	timeout, d := state.Timeouts.Delete(ctx, defaultNodeReservationTimeout)
	resp.Diagnostics.Append(d...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	nodeID, name := state.NodeID.ValueString(), state.Name.ValueString()
	var createdAt time.Time
	if t, d := state.CreatedAt.ValueRFC3339Time(); !d.HasError() && !state.CreatedAt.IsNull() && !state.CreatedAt.IsUnknown() {
		createdAt = t
	}
	if err := r.reservations().Delete(ctx, nodeID, name, createdAt); err != nil {
		shared.AddWorkflowError(&resp.Diagnostics, shared.ErrorContext{}, err)
	}
}

// ImportState accepts `<node_id>/<name>`; a unique node ID prefix works.
func (r *nodeReservationResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	importID := nodeReservationIdentity.ImportID(ctx, req, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	prefix, name, err := nomadclient.ParseNodeReservationID(importID)
	if err == nil {
		err = names.CheckNodeIDPrefix(prefix)
	}
	if err != nil {
		resp.Diagnostics.AddError("Invalid import ID", err.Error()+". Import IDs are `<node_id>/<name>`; the node ID may be a unique prefix.")
		return
	}
	node, err := r.Data.Nomad.FindNode(ctx, prefix, "", r.Data.LedgerNamespace)
	if err != nil {
		shared.AddNomadError(&resp.Diagnostics, "Cannot import the reservation", err)
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("node_id"), node.ID)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("name"), name)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), node.ID+"/"+name)...)
}
