package provider

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
)

var (
	_ resource.ResourceWithConfigValidators = &leaseResource{}
	_ resource.ResourceWithConfigure        = &leaseResource{}
	_ resource.ResourceWithImportState      = &leaseResource{}
	_ resource.ResourceWithValidateConfig   = &leaseResource{}
	_ resource.ResourceWithModifyPlan       = &leaseResource{}
)

// NewLeaseResource builds the lease resource, berth_reservation.
func NewLeaseResource() resource.Resource { return &leaseResource{now: time.Now} }

type leaseResource struct {
	data *ProviderData
	// now is the clock every time decision reads (expiry, renewal, whether
	// a new duration has already ended), so tests can choose the instant.
	now func() time.Time
}

func (r *leaseResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_reservation"
}

func (r *leaseResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = leaseSchema(ctx)
}

func (r *leaseResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.data = providerDataFrom(req.ProviderData, &resp.Diagnostics)
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
	l.Duration, _ = m.Duration.ValueGoDuration()
	var w workloadModel
	diags.Append(m.Workload.As(ctx, &w, basetypes.ObjectAsOptions{})...)
	l.Workload = lease.Workload{
		Driver: w.Driver.ValueString(), Image: w.Image.ValueString(), Command: w.Command.ValueString(),
		CPU: int(w.CPU.ValueInt64()), Memory: int(w.Memory.ValueInt64()), Disk: int(w.Disk.ValueInt64()),
	}
	diags.Append(w.Args.ElementsAs(ctx, &l.Workload.Args, false)...)
	diags.Append(w.Env.ElementsAs(ctx, &l.Workload.Env, false)...)
	if t, ok := timeOf(m.CreatedAt); ok {
		l.CreatedAt = t.UTC()
	}
	l.User, l.Signature = m.User.ValueString(), m.Signature.ValueString()
	return l
}

func (r *leaseResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	defer leaseIdentity.FromState(ctx, &resp.State, nil, resp.Identity, &resp.Diagnostics)
	ctx = r.data.Nomad.MaskSecrets(ctx)
	var plan leaseModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	timeout, d := plan.Timeouts.Create(ctx, 10*time.Minute)
	resp.Diagnostics.Append(d...)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	l := plan.toLease(ctx, r.data.Nomad.Namespace(), &resp.Diagnostics)
	if checkDrivers(ctx, r.data, req.Plan, tfsdk.State{}, &resp.Diagnostics, leaseDrivers); resp.Diagnostics.HasError() {
		return
	}
	now := r.clock().UTC()
	l.CreatedAt = now.Truncate(time.Second)
	if l = r.sign(l, &resp.Diagnostics); resp.Diagnostics.HasError() {
		return
	}
	nomad := r.data.Nomad
	if existing, err := nomad.GetJob(ctx, l.Namespace, l.Name); err != nil {
		addNomadError(&resp.Diagnostics, "Could not check for an existing job", err)
		return
	} else if existing != nil {
		resp.Diagnostics.AddAttributeError(path.Root("name"), "Job already exists",
			fmt.Sprintf("Nomad already has a job %q in namespace %q. Choose another name, or import it: terraform import <address> %s/%s",
				l.Name, l.Namespace, l.Namespace, l.Name))
		return
	}
	consumer := leaseConsumer(l)
	if !plan.NodeReservation.IsNull() {
		if err := chargeAndHold(ctx, r.data, plan.NodeReservation.ValueString(), consumer, l.Footprint(), &resp.Diagnostics); err != nil {
			addChargeError(&resp.Diagnostics, "Could not place the lease into its node reservation", leaseBudgetFix, err)
			return
		}
	}
	res, err := nomad.RegisterLease(ctx, l, r.data.LeaseDriver, now, 0)
	if err != nil {
		addNomadError(&resp.Diagnostics, "Could not register the lease", err)
		r.recordLostRegistration(cleanupContext(ctx), &plan, l, now, consumer, resp)
		return
	}
	tflog.Info(ctx, "Registered lease", map[string]any{"job": l.Name, "namespace": l.Namespace,
		"expires_at": l.ExpiresAt().Format(time.RFC3339), "job_modify_index": res.JobModifyIndex})
	// The job exists from here on: always record it, so a lease that
	// failed to start (or whose wait timed out) is tainted, never orphaned.
	plan.recordRegistered(ctx, l, res.JobModifyIndex, now, &resp.Diagnostics)
	var runErr error
	if plan.WaitForRunning.IsNull() || plan.WaitForRunning.ValueBool() {
		runErr = nomad.WaitTaskRunning(ctx, l.Namespace, l.Name, res.EvalID, lease.WorkloadTask)
	}
	// ctx may have expired while waiting: read back with a fresh deadline.
	if r.readBack(ctx, &plan, &resp.Diagnostics) == objectGone {
		resp.Diagnostics.AddError("Lease job vanished",
			fmt.Sprintf("Job %q in namespace %q was registered but is gone from Nomad: something deleted it during the apply. "+
				"Run terraform apply again to create the lease.", l.Name, l.Namespace))
		r.uncharge(cleanupContext(ctx), plan, consumer, &resp.Diagnostics)
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
	if runErr != nil {
		addRolloutError(&resp.Diagnostics, "The lease's workload did not start", l.Name, runErr)
	}
}

// recordLostRegistration runs after a failed registration, which may still
// have happened (a deadline passed or the reply was lost): a lease Nomad
// holds is recorded (tainted, by the error already reported), so it is
// never orphaned; otherwise its charge is released.
func (r *leaseResource) recordLostRegistration(ctx context.Context, plan *leaseModel, l lease.Lease, now time.Time,
	consumer string, resp *resource.CreateResponse) {
	job, err := r.data.Nomad.GetJob(ctx, l.Namespace, l.Name)
	switch {
	case err != nil:
		resp.Diagnostics.AddError("Could not tell whether the lease was registered",
			fmt.Sprintf("Reading job %q in namespace %q after the failed registration failed too: %v. If Nomad holds the job, "+
				"import it (terraform import <address> %s/%s) or stop it; its charge on a node reservation, if any, was kept.",
				l.Name, l.Namespace, err, l.Namespace, l.Name))
	case job != nil && job.IsLeaseJobOf(l):
		tflog.Warn(ctx, "Lease registered although the request failed", map[string]any{"job": l.Name, "namespace": l.Namespace})
		plan.recordRegistered(ctx, l, job.ModifyIndex(), now, &resp.Diagnostics)
		if r.refresh(ctx, plan, &resp.Diagnostics) != objectGone {
			resp.Diagnostics.Append(resp.State.Set(ctx, plan)...)
			return
		}
		r.uncharge(ctx, *plan, consumer, &resp.Diagnostics) // deleted again meanwhile
	default:
		r.uncharge(ctx, *plan, consumer, &resp.Diagnostics)
	}
}

// sign signs l with the provider's signing key, the one place leases are
// signed; without a key l is returned unsigned.
func (r *leaseResource) sign(l lease.Lease, diags *diag.Diagnostics) lease.Lease {
	l.User, l.Signature = "", ""
	if r.data.SigningKey == nil {
		return l
	}
	signed, err := lease.Sign(l, r.data.SigningKey)
	if err != nil {
		diags.AddError("Could not sign the lease", err.Error())
	}
	return signed
}

func leaseConsumer(l lease.Lease) string { return nomadclient.LeaseConsumer(l.Namespace, l.Name) }

func (r *leaseResource) uncharge(ctx context.Context, m leaseModel, consumer string, diags *diag.Diagnostics) {
	releaseCharge(ctx, r.data, m.NodeReservation, "lease", consumer, diags)
}

func (r *leaseResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	defer leaseIdentity.FromState(ctx, &resp.State, &req.State, resp.Identity, &resp.Diagnostics)
	ctx = r.data.Nomad.MaskSecrets(ctx)
	var state leaseModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if r.refresh(ctx, &state, &resp.Diagnostics) == objectGone {
		// A job gone after expiry (Nomad garbage-collects dead batch jobs)
		// is still an expired lease; a job gone before it was deleted.
		if end, ok := timeOf(state.ExpiresAt); ok && !end.After(r.clock()) {
			state.Expired = types.BoolValue(true)
			resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
			return
		}
		// Its charge on a node reservation stays: a refresh never
		// writes. The reservation's next resize or release drops it.
		resp.State.RemoveResource(ctx)
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

// Update changes the duration in place: same creation time, new end,
// signed again, the timer task re-registered with check-and-set against
// the job modify index in state.
func (r *leaseResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	defer leaseIdentity.FromState(ctx, &resp.State, nil, resp.Identity, &resp.Diagnostics)
	ctx = r.data.Nomad.MaskSecrets(ctx)
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
	timeout, d := plan.Timeouts.Update(ctx, 10*time.Minute)
	resp.Diagnostics.Append(d...)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	plan.CreatedAt = state.CreatedAt
	l := plan.toLease(ctx, r.data.Nomad.Namespace(), &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	now := r.clock().UTC()
	if !l.ExpiresAt().After(now) {
		resp.Diagnostics.AddAttributeError(path.Root("duration"), "Lease would already have ended",
			fmt.Sprintf("A duration of %s from %s ends in the past. Use a longer duration.", l.Duration, l.CreatedAt.Format(time.RFC3339)))
		return
	}
	if l = r.sign(l, &resp.Diagnostics); resp.Diagnostics.HasError() {
		return
	}
	index, ok := r.checkUnchanged(ctx, state, &resp.Diagnostics)
	if !ok {
		return
	}
	res, err := r.data.Nomad.RegisterLease(ctx, l, r.data.LeaseDriver, now, index)
	if err != nil {
		addNomadError(&resp.Diagnostics, "Could not update the lease", err)
		// The write may or may not have happened (a timeout, a lost
		// reply): record what Nomad holds now.
		if r.refresh(cleanupContext(ctx), &state, &resp.Diagnostics) != objectGone {
			resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
		}
		return
	}
	plan.recordRegistered(ctx, l, res.JobModifyIndex, now, &resp.Diagnostics)
	if r.readBack(ctx, &plan, &resp.Diagnostics) == objectGone {
		resp.Diagnostics.AddError("Lease job vanished",
			fmt.Sprintf("Job %q in namespace %q was updated but is gone from Nomad: something deleted it during the apply. "+
				"Run terraform apply again to create the lease.", l.Name, l.Namespace))
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

// checkUnchanged reads the lease job and returns the modify index to
// register against. A job modified since the last refresh (its index is
// not the one in state) is only accepted when nothing of the lease
// differs, like berth_instance; otherwise the apply fails rather than
// overwriting and re-signing a change made after the plan.
func (r *leaseResource) checkUnchanged(ctx context.Context, state leaseModel, diags *diag.Diagnostics) (uint64, bool) {
	had := state.toLease(ctx, r.data.Nomad.Namespace(), diags)
	if diags.HasError() {
		return 0, false
	}
	job, err := r.data.Nomad.GetJob(ctx, had.Namespace, had.Name)
	if err != nil {
		addNomadError(diags, "Could not read the lease", err)
		return 0, false
	}
	if job == nil {
		diags.AddError("Lease job is gone", fmt.Sprintf("Job %q in namespace %q was deleted from Nomad during the apply. "+
			"Run terraform apply again to create the lease.", had.Name, had.Namespace))
		return 0, false
	}
	index := job.ModifyIndex()
	if !state.JobModifyIndex.IsNull() && index == uint64(state.JobModifyIndex.ValueInt64()) {
		return index, true
	}
	var changed []string
	if live, err := job.Lease(); err != nil {
		changed = []string{err.Error()}
	} else {
		changed = lease.Diff(had, live)
	}
	if len(changed) == 0 {
		return index, true
	}
	diags.AddError("Job changed in Nomad since the last refresh",
		fmt.Sprintf("Lease %q was modified outside Terraform after the plan was made (modify index %d, expected %d):\n  - %s\n"+
			"Run terraform plan again to see the drift, then apply.", had.Name, index, state.JobModifyIndex.ValueInt64(), strings.Join(changed, "\n  - ")))
	return 0, false
}

func (r *leaseResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	ctx = r.data.Nomad.MaskSecrets(ctx)
	var state leaseModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	timeout, d := state.Timeouts.Delete(ctx, 5*time.Minute)
	resp.Diagnostics.Append(d...)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	ns, name := state.Namespace.ValueString(), state.Name.ValueString()
	err := handBack(ctx, r.data, state.NodeReservation, "lease", nomadclient.LeaseConsumer(ns, name),
		func(ctx context.Context) error { return r.data.Nomad.RemoveJob(ctx, ns, name, true) }, &resp.Diagnostics)
	if err != nil {
		addNomadError(&resp.Diagnostics, "Could not delete the lease", err)
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
		ns, name = r.data.Nomad.Namespace(), importID
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
