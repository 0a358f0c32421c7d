package provider

import (
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/berthhq/terraform-provider-berth/internal/capacity"
	"github.com/berthhq/terraform-provider-berth/internal/lease"
	"github.com/berthhq/terraform-provider-berth/internal/nomadclient"
)

var (
	_ resource.ResourceWithConfigure      = &leaseResource{}
	_ resource.ResourceWithImportState    = &leaseResource{}
	_ resource.ResourceWithValidateConfig = &leaseResource{}
	_ resource.ResourceWithModifyPlan     = &leaseResource{}
)

// NewReservationResource builds the berth_reservation (lease) resource.
func NewReservationResource() resource.Resource { return &leaseResource{} }

type leaseResource struct{ data *ProviderData }

func (r *leaseResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_reservation"
}

func (r *leaseResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = leaseSchema()
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
	if !m.NodeID.IsNull() && !m.NodeReservation.IsNull() {
		resp.Diagnostics.AddAttributeError(path.Root("node_reservation"), "node_reservation conflicts with node_id",
			"A lease placed into a node reservation runs on the reservation's node; remove node_id.")
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
		node, _, err := nomadclient.ParseReservationID(m.NodeReservation.ValueString())
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
	if t, err := time.Parse(time.RFC3339, m.CreatedAt.ValueString()); err == nil {
		l.CreatedAt = t.UTC()
	}
	l.User, l.Signature = m.User.ValueString(), m.Signature.ValueString()
	return l
}

// ModifyPlan decides what time and tampering mean for the plan: after
// expiry a lease with renew is replaced by a fresh one; a lease whose job
// no longer matches its signature is replaced; a new duration must end in
// the future.
func (r *leaseResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() || req.State.Raw.IsNull() || r.data == nil {
		if !req.Plan.Raw.IsNull() && req.State.Raw.IsNull() && r.data != nil {
			var ns types.String
			resp.Diagnostics.Append(req.Plan.GetAttribute(ctx, path.Root("namespace"), &ns)...)
			if ns.IsUnknown() && configNull(ctx, req.Config, "namespace", &resp.Diagnostics) {
				resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("namespace"), r.data.Nomad.Namespace())...)
			}
		}
		return
	}
	var plan, state leaseModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	replace := func(why string) {
		resp.RequiresReplace = append(resp.RequiresReplace, path.Root("expires_at"))
		for _, p := range []string{"expires_at", "created_at", "signature", "user", "verified", "expired", "result"} {
			resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root(p), unknownOf(p))...)
		}
		tflog.Info(ctx, "Lease will be replaced", map[string]any{"reason": why})
	}
	switch {
	case state.Expired.ValueBool() && plan.Renew.ValueBool():
		replace("expired, renew = true")
	case !state.Verified.IsNull() && !state.Verified.ValueBool():
		replace("job no longer matches its signature")
	case !plan.Duration.Equal(state.Duration) && !plan.Duration.IsUnknown():
		d, _ := plan.Duration.ValueGoDuration()
		created, err := time.Parse(time.RFC3339, state.CreatedAt.ValueString())
		if err != nil {
			return
		}
		end := created.Add(d)
		if !end.After(time.Now()) {
			resp.Diagnostics.AddAttributeError(path.Root("duration"), "Lease would already have ended",
				fmt.Sprintf("The lease was created at %s; a duration of %s ends at %s, which is in the past. Use a longer duration, or replace the lease.",
					created.Format(time.RFC3339), plan.Duration.ValueString(), end.Format(time.RFC3339)))
			return
		}
		resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("expires_at"), end.UTC().Format(time.RFC3339))...)
		for _, p := range []string{"signature", "user", "verified", "result"} {
			resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root(p), unknownOf(p))...)
		}
	}
}

func (r *leaseResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	ctx = r.data.Nomad.MaskSecrets(ctx)
	var plan leaseModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Minute)
	defer cancel()
	l := plan.toLease(ctx, r.data.Nomad.Namespace(), &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	now := time.Now().UTC()
	l.CreatedAt = now.Truncate(time.Second)
	if r.data.SigningKey != nil {
		signed, err := lease.Sign(l, r.data.SigningKey)
		if err != nil {
			resp.Diagnostics.AddError("Could not sign the lease", err.Error())
			return
		}
		l = signed
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
		amount := capacity.Resources{CPU: int64(l.Workload.CPU), MemoryMB: int64(l.Workload.Memory), DiskMB: int64(l.Workload.Disk)}
		if err := nomad.Charge(ctx, r.data.LedgerNamespace, plan.NodeReservation.ValueString(), consumer, amount); err != nil {
			addReservationError(&resp.Diagnostics, "Could not place the lease into its node reservation", err)
			return
		}
	}
	res, err := nomad.RegisterJob(ctx, lease.BuildJob(l, r.data.LeaseDriver, now), 0)
	if err != nil {
		addNomadError(&resp.Diagnostics, "Could not register the lease", err)
		r.uncharge(cleanupContext(ctx), plan, consumer, &resp.Diagnostics)
		return
	}
	tflog.Info(ctx, "Registered lease", map[string]any{"job": l.Name, "expires_at": l.ExpiresAt().Format(time.RFC3339)})
	var runErr error
	if plan.WaitForRunning.IsNull() || plan.WaitForRunning.ValueBool() {
		_, runErr = nomad.WaitTaskRunning(ctx, l.Namespace, l.Name, res.EvalID, lease.WorkloadTask)
	}
	// The job exists from here on: always record it, so a lease that
	// failed to start is tainted, never orphaned.
	r.refresh(cleanupContext(ctx), &plan, &resp.Diagnostics)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
	if runErr != nil {
		addRolloutError(&resp.Diagnostics, "The lease's workload did not start", l.Name, runErr)
	}
}

func leaseConsumer(l lease.Lease) string { return nomadclient.LeaseConsumer(l.Namespace, l.Name) }

func (r *leaseResource) uncharge(ctx context.Context, m leaseModel, consumer string, diags *diag.Diagnostics) {
	if m.NodeReservation.IsNull() {
		return
	}
	if err := r.data.Nomad.Uncharge(ctx, r.data.LedgerNamespace, m.NodeReservation.ValueString(), consumer); err != nil {
		addNomadError(diags, "Could not release the lease's charge on its node reservation", err)
	}
}

// refresh reads the lease job back: verification against the signature,
// expiry from the clock and the job, and the result. It returns false when
// the job is gone.
func (r *leaseResource) refresh(ctx context.Context, m *leaseModel, diags *diag.Diagnostics) bool {
	ns, name := m.Namespace.ValueString(), m.Name.ValueString()
	if ns == "" {
		ns = r.data.Nomad.Namespace()
	}
	nomad := r.data.Nomad
	job, err := nomad.GetJob(ctx, ns, name)
	if err != nil {
		addNomadError(diags, "Could not read the lease", err)
		return true
	}
	if job == nil {
		return false
	}
	live, err := lease.LeaseFromJob(job)
	if err != nil {
		diags.AddError("Not a berth lease", fmt.Sprintf("Job %q in namespace %q is not a berth lease: %v", name, ns, err))
		return true
	}
	allocs, err := nomad.JobAllocations(ctx, ns, name)
	if err != nil {
		addNomadError(diags, "Could not read the lease's allocations", err)
		return true
	}
	m.ID = types.StringValue(ns + "/" + name)
	m.Namespace = types.StringValue(ns)
	m.CreatedAt = types.StringValue(live.CreatedAt.UTC().Format(time.RFC3339))
	m.ExpiresAt = types.StringValue(live.ExpiresAt().UTC().Format(time.RFC3339))
	if m.Duration.IsNull() || m.Duration.IsUnknown() || !durationsEqual(m.Duration, live.Duration) {
		m.Duration = durationValue(live.Duration)
	}
	m.User, m.Signature, m.Verified = types.StringNull(), types.StringNull(), types.BoolNull()
	if live.Signature != "" {
		m.User, m.Signature = types.StringValue(live.User), types.StringValue(live.Signature)
		ok, problems := lease.Verify(live)
		if key := r.data.SigningKey; key != nil && live.User != hex.EncodeToString(key.Public().(ed25519.PublicKey)) {
			ok, problems = false, append(problems, "signed by "+short8(live.User)+", not by the provider's signing key")
		}
		m.Verified = types.BoolValue(ok)
		if !ok {
			diags.AddWarning("Lease no longer matches its signature",
				fmt.Sprintf("Lease %q was changed outside Terraform, so its signature does not verify:\n  - %s\nThe next apply replaces it.",
					name, strings.Join(problems, "\n  - ")))
		}
	}
	if m.NodeReservation.IsNull() || m.NodeID.IsUnknown() {
		m.NodeID = stringOrNull(live.NodeID)
	}
	m.Workload = keepEmptyWorkloadCollections(m.Workload, workloadObject(ctx, live.Workload, diags))
	now := time.Now()
	expired := live.Expired(now) || deref(job.Status) == "dead"
	m.Expired = types.BoolValue(expired)
	m.Result = leaseResult(live, allocs, expired)
	if m.Renew.IsNull() {
		m.Renew = types.BoolValue(true)
	}
	if m.WaitForRunning.IsNull() {
		m.WaitForRunning = types.BoolValue(true)
	}
	return true
}

func (r *leaseResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	ctx = r.data.Nomad.MaskSecrets(ctx)
	var state leaseModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if !r.refresh(ctx, &state, &resp.Diagnostics) {
		// A job gone after expiry (Nomad garbage-collects dead batch jobs)
		// is still an expired lease; a job gone before it was deleted.
		if end, err := time.Parse(time.RFC3339, state.ExpiresAt.ValueString()); err == nil && !end.After(time.Now()) {
			state.Expired = types.BoolValue(true)
			resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
			return
		}
		// Its charge on a node reservation goes with it, or the
		// reservation could never be released.
		r.uncharge(ctx, state, nomadclient.LeaseConsumer(state.Namespace.ValueString(), state.Name.ValueString()), &resp.Diagnostics)
		resp.State.RemoveResource(ctx)
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

// Update changes the duration in place: same creation time, new end,
// signed again, the timer task re-registered.
func (r *leaseResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	ctx = r.data.Nomad.MaskSecrets(ctx)
	var plan, state leaseModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Minute)
	defer cancel()
	plan.CreatedAt = state.CreatedAt
	l := plan.toLease(ctx, r.data.Nomad.Namespace(), &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	now := time.Now().UTC()
	if !l.ExpiresAt().After(now) {
		resp.Diagnostics.AddAttributeError(path.Root("duration"), "Lease would already have ended",
			fmt.Sprintf("A duration of %s from %s ends in the past. Use a longer duration.", l.Duration, l.CreatedAt.Format(time.RFC3339)))
		return
	}
	l.User, l.Signature = "", ""
	if r.data.SigningKey != nil {
		signed, err := lease.Sign(l, r.data.SigningKey)
		if err != nil {
			resp.Diagnostics.AddError("Could not sign the lease", err.Error())
			return
		}
		l = signed
	}
	nomad := r.data.Nomad
	job, err := nomad.GetJob(ctx, l.Namespace, l.Name)
	if err != nil || job == nil {
		if err == nil {
			err = errors.New("the lease job is gone")
		}
		addNomadError(&resp.Diagnostics, "Could not read the lease", err)
		return
	}
	if _, err := nomad.RegisterJob(ctx, lease.BuildJob(l, r.data.LeaseDriver, now), deref(job.JobModifyIndex)); err != nil {
		addNomadError(&resp.Diagnostics, "Could not update the lease", err)
		return
	}
	r.refresh(ctx, &plan, &resp.Diagnostics)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

func (r *leaseResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	ctx = r.data.Nomad.MaskSecrets(ctx)
	var state leaseModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	ns, name := state.Namespace.ValueString(), state.Name.ValueString()
	nomad := r.data.Nomad
	if err := nomad.StopJob(ctx, ns, name, false); err != nil {
		addNomadError(&resp.Diagnostics, "Could not stop the lease", err)
		return
	}
	if err := nomad.WaitAllocationsStopped(ctx, ns, name); err != nil {
		addNomadError(&resp.Diagnostics, "The lease's allocations did not stop", err)
		return
	}
	if err := nomad.StopJob(ctx, ns, name, true); err != nil {
		addNomadError(&resp.Diagnostics, "Could not purge the lease", err)
		return
	}
	r.uncharge(ctx, state, nomadclient.LeaseConsumer(ns, name), &resp.Diagnostics)
}

// ImportState accepts `namespace/name` (or `name`).
func (r *leaseResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	ns, name, found := strings.Cut(req.ID, "/")
	if !found {
		ns, name = r.data.Nomad.Namespace(), req.ID
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("namespace"), ns)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("name"), name)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), ns+"/"+name)...)
}
