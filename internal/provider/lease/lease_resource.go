package lease

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-validators/resourcevalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/berthhq/terraform-provider-berth/internal/lease"
	"github.com/berthhq/terraform-provider-berth/internal/nomadclient"
	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
	"github.com/berthhq/terraform-provider-berth/internal/workflow"
)

var (
	_ resource.ResourceWithConfigValidators = &leaseResource{}
	_ resource.ResourceWithConfigure        = &leaseResource{}
	_ resource.ResourceWithImportState      = &leaseResource{}
	_ resource.ResourceWithValidateConfig   = &leaseResource{}
	_ resource.ResourceWithModifyPlan       = &leaseResource{}
)

// NewLeaseResource builds the lease resource, berth_reservation.
func NewLeaseResource() resource.Resource {
	return &leaseResource{ResourceBase: shared.NewResourceBase("reservation"),
		WithIdentity: shared.WithIdentity{Identity: leaseIdentity}, now: time.Now}
}

type leaseResource struct {
	shared.ResourceBase
	shared.WithIdentity
	// now is the clock every time decision reads (expiry, renewal, whether
	// a new duration has already ended), so tests can choose the instant.
	now func() time.Time
}

func (r *leaseResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = leaseSchema(ctx)
}

func (r *leaseResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var m leaseModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if !m.Duration.IsNull() && !m.Duration.IsUnknown() {
		if d, diags := m.Duration.ValueGoDuration(); !diags.HasError() && d <= 0 {
			resp.Diagnostics.AddAttributeError(path.Root("duration"), "Invalid duration",
				fmt.Sprintf("duration must be positive, got %s.", m.Duration.ValueString()))
		}
	}
}

// ConfigValidators: work placed into a node reservation runs on the
// reservation's node, so node_id is refused beside node_reservation
// (reported at node_reservation, the first path).
func (r *leaseResource) ConfigValidators(context.Context) []resource.ConfigValidator {
	return []resource.ConfigValidator{
		resourcevalidator.Conflicting(path.MatchRoot("node_reservation"), path.MatchRoot("node_id")),
	}
}

// toLease builds the lease a plan describes (not yet signed).
func (m *leaseModel) toLease(ctx context.Context, defaultNS string, diags *diag.Diagnostics) lease.Lease {
	l := lease.Lease{Name: m.Name.ValueString(), Namespace: m.Namespace.ValueString(), NodeID: m.NodeID.ValueString()}
	if m.Namespace.IsUnknown() || l.Namespace == "" {
		l.Namespace = defaultNS
	}
	if m.NodeID.IsUnknown() {
		l.NodeID = ""
	}
	if !m.NodeReservation.IsNull() && !m.NodeReservation.IsUnknown() {
		node, _, err := nomadclient.ParseNodeReservationID(m.NodeReservation.ValueString())
		if err != nil {
			diags.AddAttributeError(path.Root("node_reservation"), "Invalid node reservation ID", err.Error())
		}
		l.NodeID = node
	}
	if ref := m.Reference.ValueString(); ref != "" {
		ns, name, _ := strings.Cut(ref, "/")
		if ns != l.Namespace {
			diags.AddAttributeError(path.Root("reference"), "Reference to another namespace",
				fmt.Sprintf("Lease %q is in namespace %q, and reference %q names a lease in %q: a lease can only belong to "+
					"one in its own namespace.", l.Name, l.Namespace, ref, ns))
		}
		l.Reference = name
	}
	l.Duration, _ = m.Duration.ValueGoDuration()
	var w workloadModel
	diags.Append(m.Workload.As(ctx, &w, basetypes.ObjectAsOptions{})...)
	l.Workload = lease.Workload{
		Driver: w.Driver.ValueString(), Image: w.Image.ValueString(), Command: w.Command.ValueString(),
		CPU: int(w.CPU.ValueInt64()), Memory: int(w.Memory.ValueInt64()), Disk: int(w.Disk.ValueInt64()),
	}
	diags.Append(w.Args.ElementsAs(ctx, &l.Workload.Args, false)...)
	diags.Append(w.Env.ElementsAs(ctx, &l.Workload.Env, false)...)
	diags.Append(w.Ports.ElementsAs(ctx, &l.Workload.Ports, false)...)
	if t, ok := timeOf(m.CreatedAt); ok {
		l.CreatedAt = t.UTC()
	}
	l.User, l.Signature = m.User.ValueString(), m.Signature.ValueString()
	return l
}

func (r *leaseResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan leaseModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel := shared.WithTimeout(ctx, plan.Timeouts.Create, 10*time.Minute, &resp.Diagnostics)
	defer cancel()
	l := plan.toLease(ctx, r.Data.Nomad.Namespace(), &resp.Diagnostics)
	if shared.CheckDrivers(ctx, r.Data, req.Plan, tfsdk.State{}, &resp.Diagnostics, leaseDrivers); resp.Diagnostics.HasError() {
		return
	}
	if l.ReferenceAlloc = r.checkReference(ctx, l, &resp.Diagnostics); resp.Diagnostics.HasError() {
		return
	}
	now := r.clock().UTC()
	l.CreatedAt = now.Truncate(time.Second)
	// A replacement's create follows the destroy of the lease it replaces
	// (in this process): its signing must be dated after that one's.
	if l = r.sign(l, replacedSigning(l.Namespace, l.Name), &resp.Diagnostics); resp.Diagnostics.HasError() {
		return
	}
	var rec leaseRecord
	in := workflow.LeaseWrite{Lease: l, Reservation: plan.NodeReservation.ValueString(), Now: now,
		Wait: plan.WaitForRunning.IsNull() || plan.WaitForRunning.ValueBool(), Record: r.recorder(ctx, &plan, &rec, l, now, &resp.Diagnostics)}
	out, err := r.leases().Create(ctx, in)
	ec := leaseErrors()
	if shared.AddOutcome(&resp.Diagnostics, ec, out.Warnings, out.Problems); err != nil {
		shared.AddWorkflowError(&resp.Diagnostics, ec, err)
	}
	if out.Written {
		resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
		writeLeaseRecord(ctx, resp.Private, rec, &resp.Diagnostics)
	}
	if out.RunErr != nil {
		shared.AddRolloutError(&resp.Diagnostics, "The lease's workload did not start", l.Name, out.RunErr)
	}
}

// leases is the lease workflow.
func (r *leaseResource) leases() workflow.Leases {
	return workflow.NewLeases(r.Data.Nomad, r.Data.LedgerNamespace, r.Data.LeaseDriver)
}

// leaseErrors is how the lease workflow's errors read.
func leaseErrors() shared.ErrorContext {
	return shared.ErrorContext{Object: "lease", ChargeSummary: "Could not place the lease into its node reservation", ChargeFix: leaseBudgetFix}
}

// recorder records a registered lease job into m and reads it back (with
// a fresh deadline: ctx may have expired while waiting); false when the
// job is gone from Nomad.
//
// rec is berth's record of the lease's signatures: l, registered, becomes
// its newest signing before the read-back checks the job against it.
func (r *leaseResource) recorder(ctx context.Context, m *leaseModel, rec *leaseRecord, l lease.Lease, now time.Time,
	diags *diag.Diagnostics) func(context.Context, uint64) bool {
	return func(_ context.Context, index uint64) bool {
		m.recordRegistered(ctx, l, index, now, diags)
		rec.noteSigning(l)
		return r.readBack(ctx, m, rec, diags) != shared.ObjectGone
	}
}

// sign signs l with the provider's signing key, the one place leases are
// signed, dated now (lease.Lease.SignedAt) but always after prev, the
// newest signing known of this lease: the rollback check compares dates
// that different machines' clocks wrote, and a machine whose clock is
// behind must not make a newer version look older. Without a key l is
// returned unsigned.
func (r *leaseResource) sign(l lease.Lease, prev time.Time, diags *diag.Diagnostics) lease.Lease {
	l.User, l.Signature, l.SignedAt = "", "", time.Time{}
	if r.Data.SigningKey == nil {
		return l
	}
	l.SignedAt = lease.NextSignedAt(r.clock(), prev)
	signed, err := lease.Sign(l, r.Data.SigningKey)
	if err != nil {
		diags.AddError("Could not sign the lease", err.Error())
	}
	return signed
}

func (r *leaseResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state leaseModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	rec := readLeaseRecord(ctx, req.Private)
	defer func() { writeLeaseRecord(ctx, resp.Private, rec, &resp.Diagnostics) }()
	if r.refresh(ctx, &state, &rec, &resp.Diagnostics) == shared.ObjectGone {
		// A job gone after expiry (Nomad garbage-collects dead batch jobs)
		// is still an expired lease; a job purged before it is a deleted
		// one. Both stay in state: the next plan renews them (renew =
		// true) or keeps them as they are. A charge on a node reservation
		// stays too (a refresh never writes); the replacement's destroy
		// or the reservation's next resize drops it.
		end, ok := timeOf(state.ExpiresAt)
		if !ok {
			resp.State.RemoveResource(ctx)
			return
		}
		state.Expired = types.BoolValue(true)
		if end.After(r.clock()) {
			tflog.Info(ctx, "Lease job purged before its expiry: the lease reads deleted", map[string]any{"lease": state.ID.ValueString()})
			state.Result = leaseResultIn(ctx, priorOutcome(ctx, state.Result), true, true, &resp.Diagnostics)
		}
		resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

// Update changes the duration in place: same creation time, new end,
// signed again, the timer task re-registered with check-and-set against
// the job modify index in state.
func (r *leaseResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan, state leaseModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if sameDuration(plan, state) {
		// Only settings berth keeps to itself changed (renew,
		// wait_for_running, timeouts): nothing to write, and registering
		// the job again would restart the workload.
		state.Renew, state.WaitForRunning, state.Timeouts = plan.Renew, plan.WaitForRunning, plan.Timeouts
		resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
		return
	}
	ctx, cancel := shared.WithTimeout(ctx, plan.Timeouts.Update, 10*time.Minute, &resp.Diagnostics)
	defer cancel()
	plan.CreatedAt = state.CreatedAt
	l := plan.toLease(ctx, r.Data.Nomad.Namespace(), &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	now := r.clock().UTC()
	if !l.ExpiresAt().After(now) {
		resp.Diagnostics.AddAttributeError(path.Root("duration"), "Lease would already have ended",
			fmt.Sprintf("A duration of %s from %s ends in the past. Use a longer duration.", l.Duration, l.CreatedAt.Format(time.RFC3339)))
		return
	}
	if l.Reference != "" {
		// The allocation the reference is bound to is not in the
		// configuration: it stays the one Create bound it to.
		if l.ReferenceAlloc = r.referenceAlloc(ctx, l, &resp.Diagnostics); resp.Diagnostics.HasError() {
			return
		}
	}
	rec := readLeaseRecord(ctx, req.Private)
	if l = r.sign(l, rec.last().SignedAt, &resp.Diagnostics); resp.Diagnostics.HasError() {
		return
	}
	had := state.toLease(ctx, r.Data.Nomad.Namespace(), &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	defer func() { writeLeaseRecord(ctx, resp.Private, rec, &resp.Diagnostics) }()
	in := workflow.LeaseWrite{Lease: l, Had: had, Now: now, Index: uint64(state.JobModifyIndex.ValueInt64()),
		Record: r.recorder(ctx, &plan, &rec, l, now, &resp.Diagnostics)}
	out, err := r.leases().Update(ctx, in)
	if err != nil {
		shared.AddWorkflowError(&resp.Diagnostics, leaseErrors(), err)
	}
	switch {
	case out.Written:
		resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
	case out.Unsettled:
		if r.refresh(shared.CleanupContext(ctx), &state, &rec, &resp.Diagnostics) != shared.ObjectGone {
			resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
		}
	}
}

func (r *leaseResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state leaseModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel := shared.WithTimeout(ctx, state.Timeouts.Delete, 5*time.Minute, &resp.Diagnostics)
	defer cancel()
	r.noteReplaced(ctx, &state, readLeaseRecord(ctx, req.Private))
	out, err := r.leases().Delete(ctx, state.Namespace.ValueString(), state.Name.ValueString(), state.NodeReservation.ValueString())
	if shared.AddOutcome(&resp.Diagnostics, leaseErrors(), out.Warnings, out.Problems); err != nil {
		shared.AddWorkflowError(&resp.Diagnostics, leaseErrors(), err)
	}
}

// ImportState accepts `namespace/name` (or `name`).
func (r *leaseResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	importID := leaseIdentity.ImportID(ctx, req, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	ns, name, found := strings.Cut(importID, "/")
	if !found {
		ns, name = r.Data.Nomad.Namespace(), importID
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("namespace"), ns)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("name"), name)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), ns+"/"+name)...)
}

// sameDuration reports whether plan keeps the lease's duration (written
// differently or not: "60m" is "1h").
func sameDuration(plan, state leaseModel) bool {
	p, d1 := plan.Duration.ValueGoDuration()
	s, d2 := state.Duration.ValueGoDuration()
	return !plan.Duration.IsUnknown() && !d1.HasError() && !d2.HasError() && p == s
}
