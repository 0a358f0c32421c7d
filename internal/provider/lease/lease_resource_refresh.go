package lease

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/berthhq/terraform-provider-berth/internal/lease"
	"github.com/berthhq/terraform-provider-berth/internal/nomadclient"
	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
)

// clock is the lease resource's notion of now; tests replace it.
func (r *leaseResource) clock() time.Time {
	if r.now != nil {
		return r.now()
	}
	return time.Now()
}

// recordRegistered sets everything berth knows about a lease it has just
// registered at index, before reading it back: if the read-back fails the
// state still says what exists, with no unknown values left.
func (m *leaseModel) recordRegistered(ctx context.Context, l lease.Lease, index uint64, now time.Time, diags *diag.Diagnostics) {
	m.ID = types.StringValue(l.Namespace + "/" + l.Name)
	m.Namespace = types.StringValue(l.Namespace)
	m.NodeID = shared.StringOrNull(l.NodeID)
	m.CreatedAt, m.ExpiresAt = timeValue(l.CreatedAt), timeValue(l.ExpiresAt())
	m.User, m.Signature, m.Verified = shared.StringOrNull(l.User), shared.StringOrNull(l.Signature), types.BoolNull()
	if l.Signature != "" {
		m.Verified = types.BoolValue(true) // berth signed what it registered
	}
	expired := l.Expired(now)
	m.Expired = types.BoolValue(expired)
	m.Result = leaseResult(ctx, nomadclient.TaskOutcome{}, expired, diags)
	m.JobModifyIndex = types.Int64Value(int64(index))
	m.Workload = keepEmptyWorkloadCollections(ctx, m.Workload, workloadObject(ctx, l.Workload, diags), diags)
}

// readBack refreshes m after a write that succeeded, with a fresh bound
// (the operation's may be spent). A failed read is a warning, not an
// error: the write happened, an error would taint a healthy lease, and
// recordRegistered has already filled in every computed value.
func (r *leaseResource) readBack(ctx context.Context, m *leaseModel, rec *leaseRecord, diags *diag.Diagnostics) shared.ReadOutcome {
	var read diag.Diagnostics
	got := r.refresh(shared.CleanupContext(ctx), m, rec, &read)
	for _, d := range read {
		if d.Severity() != diag.SeverityError {
			diags.Append(d)
			continue
		}
		diags.AddWarning("Could not read the lease back", "The lease was written, but reading it back failed: "+d.Detail()+
			" State records what berth wrote; the next terraform plan reads the rest from Nomad.")
	}
	return got
}

// refresh reads the lease job back into m: verification against the
// signature (and rec, berth's own record of its signatures, which a
// verified read brings up to date), expiry from the clock and the job,
// and the result.
func (r *leaseResource) refresh(ctx context.Context, m *leaseModel, rec *leaseRecord, diags *diag.Diagnostics) shared.ReadOutcome {
	ns, name := m.Namespace.ValueString(), m.Name.ValueString()
	if m.Namespace.IsUnknown() || ns == "" {
		ns = r.Data.Nomad.Namespace()
	}
	nomad := r.Data.Nomad
	job, err := nomad.GetJob(ctx, ns, name)
	if err != nil {
		shared.AddNomadError(diags, "Could not read the lease", err)
		return shared.ObjectUnread
	}
	if job == nil {
		return shared.ObjectGone
	}
	live, err := job.Lease()
	if err != nil {
		if m.CreatedAt.IsNull() || m.CreatedAt.IsUnknown() {
			// Nothing recorded (an import): refuse rather than adopt it.
			diags.AddError("Not a berth lease", fmt.Sprintf("Job %q in namespace %q is not a berth lease: %v", name, ns, err))
			return shared.ObjectUnread
		}
		// A lease berth made that no longer looks like one was changed
		// behind Terraform's back: the same as a failed signature.
		m.Verified = types.BoolValue(false)
		m.JobModifyIndex = types.Int64Value(int64(job.ModifyIndex()))
		diags.AddWarning("Lease job is no longer a berth lease",
			fmt.Sprintf("Job %q in namespace %q was changed outside Terraform: %v.\nThe next apply replaces it.", name, ns, err))
		return shared.ObjectUnread
	}
	allocs, err := nomad.JobAllocations(ctx, ns, name)
	if err != nil {
		shared.AddNomadError(diags, "Could not read the lease's allocations", err)
		return shared.ObjectUnread
	}
	trust := r.trust(m, *rec)
	if trust.Newest, err = r.newestInHistory(ctx, ns, name, live, trust); err != nil {
		shared.AddNomadError(diags, "Could not read the lease's versions", err)
		return shared.ObjectUnread
	}
	status, problems := lease.Check(live, trust)
	m.ID = types.StringValue(ns + "/" + name)
	m.Namespace = types.StringValue(ns)
	m.CreatedAt, m.ExpiresAt = timeValue(live.CreatedAt), timeValue(live.ExpiresAt())
	if m.Duration.IsNull() || m.Duration.IsUnknown() || !durationsEqual(m.Duration, live.Duration) {
		m.Duration = shared.DurationValue(live.Duration)
	}
	// user is a key berth vouches for: taken from the job only when it
	// verifies, so a stranger's key never lands there.
	m.Signature = shared.StringOrNull(live.Signature)
	switch status {
	case lease.Unsigned:
		m.Verified, m.User = types.BoolNull(), types.StringNull()
		if len(problems) > 0 {
			diags.AddWarning("Lease signature cannot be verified",
				fmt.Sprintf("Lease %q in namespace %q carries a signature berth cannot vouch for, so verified stays null:\n  - %s",
					name, ns, strings.Join(problems, "\n  - ")))
		}
	case lease.Verified:
		m.Verified, m.User = types.BoolValue(true), shared.StringOrNull(live.User)
		rec.noteVerified(live, trust)
	case lease.Tampered:
		m.Verified = types.BoolValue(false)
		tflog.Warn(ctx, "Lease failed verification", map[string]any{"job": name, "namespace": ns, "problems": problems})
		diags.AddWarning("Lease no longer matches its signature",
			fmt.Sprintf("Lease %q in namespace %q was changed outside Terraform and carries no valid signature:\n  - %s\nThe next apply replaces it.",
				name, ns, strings.Join(problems, "\n  - ")))
	}
	m.JobModifyIndex = types.Int64Value(int64(job.ModifyIndex()))
	if m.NodeReservation.IsNull() || m.NodeID.IsUnknown() {
		m.NodeID = shared.StringOrNull(live.NodeID)
	}
	m.Workload = keepEmptyWorkloadCollections(ctx, m.Workload, workloadObject(ctx, live.Workload, diags), diags)
	m.Reference = types.StringNull()
	if live.Reference != "" {
		m.Reference = types.StringValue(ns + "/" + live.Reference)
	}
	now := r.clock()
	overruns := lease.Overruns(live, allocs.LeaseRuns(), now)
	if len(overruns) > 0 {
		// Whatever its signature says, a lease that did not end is not
		// the lease that was signed; replacing it stops it.
		m.Verified = types.BoolValue(false)
		tflog.Warn(ctx, "Lease has not ended", map[string]any{"job": name, "namespace": ns, "allocations": overruns})
		diags.AddWarning("Lease has not ended",
			fmt.Sprintf("Lease %q in namespace %q ended at %s, more than %s ago, but Nomad still runs it:\n  - %s\n"+
				"It reads verified = false and is not expired; the next apply replaces it, which stops it.",
				name, ns, live.ExpiresAt().UTC().Format(time.RFC3339), lease.OverrunAllowance, strings.Join(overruns, "\n  - ")))
	}
	byClock := live.Expired(now) && len(overruns) == 0
	expired := byClock || job.Dead()
	m.Expired = types.BoolValue(expired)
	outcome := allocs.NewestTaskOutcome(lease.WorkloadTask)
	outcome.Overrun = len(overruns) > 0
	if len(live.Workload.Ports) > 0 && !expired {
		if err := nomad.WorkloadPorts(ctx, ns, &outcome); err != nil {
			shared.AddNomadError(diags, "Could not read where the lease's workload runs", err)
			return shared.ObjectUnread
		}
	}
	outcome.Signature = r.resultSignature(ctx, ns, m.Result, outcome.AllocationID)
	m.Result = leaseResultIn(ctx, outcome, expired, job.Stopped() && !byClock, diags)
	if m.Renew.IsNull() {
		m.Renew = types.BoolValue(true)
	}
	if m.WaitForRunning.IsNull() {
		m.WaitForRunning = types.BoolValue(true)
	}
	return shared.ObjectRead
}

// newestInHistory is the newest signing among the job's versions in
// Nomad that verify under t, read only when live could verify at all (it
// is signed, and there is a key to check it against).
func (r *leaseResource) newestInHistory(ctx context.Context, ns, name string, live lease.Lease, t lease.Trust) (lease.Signing, error) {
	if live.Signature == "" || t.Key == nil && t.Signer == "" {
		return lease.Signing{}, nil
	}
	versions, err := r.Data.Nomad.LeaseVersions(ctx, ns, name)
	if err != nil {
		return lease.Signing{}, err
	}
	return lease.NewestSigned(versions, t), nil
}

// checkReference refuses a reference to a lease that is not there to
// belong to: missing, not a berth lease, failing its signature, ended,
// made before leases registered the service referring leases watch, or
// with no allocation running. It returns the allocation that runs it, the
// one whose service alone keeps the referring lease running
// (lease.Lease.ReferenceAlloc).
func (r *leaseResource) checkReference(ctx context.Context, l lease.Lease, diags *diag.Diagnostics) string {
	if l.Reference == "" {
		return ""
	}
	at := path.Root("reference")
	id := l.Namespace + "/" + l.Reference
	job, err := r.Data.Nomad.GetJob(ctx, l.Namespace, l.Reference)
	if err != nil {
		var d diag.Diagnostics
		shared.AddNomadError(&d, "Could not read the referenced lease", err)
		diags.AddAttributeError(at, d[0].Summary(), d[0].Detail())
		return ""
	}
	if job == nil {
		diags.AddAttributeError(at, "Referenced lease not found",
			fmt.Sprintf("Nomad has no lease %q. Create it first (refer to its `id` attribute, so Terraform orders them).", id))
		return ""
	}
	ref, err := job.Lease()
	if err != nil {
		diags.AddAttributeError(at, "Reference is not a lease", fmt.Sprintf("Job %q is not a berth lease: %v.", id, err))
		return ""
	}
	trust := lease.Trust{}
	if key := r.Data.SigningKey; key != nil {
		trust = lease.Trust{Key: lease.PublicKey(key), Signed: true}
	}
	newest, err := r.newestInHistory(ctx, l.Namespace, l.Reference, ref, trust)
	if err != nil {
		var d diag.Diagnostics
		shared.AddNomadError(&d, "Could not read the referenced lease's versions", err)
		diags.AddAttributeError(at, d[0].Summary(), d[0].Detail())
		return ""
	}
	trust.Newest = newest // a referenced lease brought back to an earlier version does not verify
	status, problems := lease.Check(ref, trust)
	switch {
	case status == lease.Tampered:
		diags.AddAttributeError(at, "Referenced lease does not verify",
			fmt.Sprintf("Lease %q carries no valid signature by the provider's signing key:\n  - %s\nA lease can only belong "+
				"to a verified one.", id, strings.Join(problems, "\n  - ")))
	case job.Dead() || ref.Expired(r.clock()):
		diags.AddAttributeError(at, "Referenced lease has ended",
			fmt.Sprintf("Lease %q has ended, so a lease belonging to it would end at once. Renew it first.", id))
	case !job.RegistersLeaseService():
		diags.AddAttributeError(at, "Referenced lease predates references",
			fmt.Sprintf("Lease %q was created by a berth that did not yet register the service referring leases watch. "+
				"Replace it (`terraform apply -replace`), then refer to it.", id))
	}
	if diags.HasError() {
		return ""
	}
	allocs, err := r.Data.Nomad.JobAllocations(ctx, l.Namespace, l.Reference)
	if err != nil {
		var d diag.Diagnostics
		shared.AddNomadError(&d, "Could not read the referenced lease's allocations", err)
		diags.AddAttributeError(at, d[0].Summary(), d[0].Detail())
		return ""
	}
	o := allocs.NewestTaskOutcome(lease.TimerTask)
	if !o.Running {
		diags.AddAttributeError(at, "Referenced lease is not running",
			fmt.Sprintf("Lease %q has no running allocation, and a lease belongs to the allocation that runs the one it "+
				"refers to. Wait until it runs (its `result.state` is `ok`), then apply again.", id))
		return ""
	}
	return o.AllocationID
}

// resultSignature is the cluster's signature over the result of
// allocation allocID: as recorded when it is the same allocation (it never
// changes), read from the timer's log otherwise. A read that fails leaves
// it empty for the next refresh: the lease itself was read.
func (r *leaseResource) resultSignature(ctx context.Context, ns string, recorded types.Object, allocID string) string {
	if allocID == "" {
		return ""
	}
	if prior := priorOutcome(ctx, recorded); prior.AllocationID == allocID && prior.Signature != "" {
		return prior.Signature
	}
	sig, err := r.Data.Nomad.LeaseResultSignature(ctx, ns, allocID)
	if err != nil {
		tflog.Warn(ctx, "Could not read the lease result's signature", map[string]any{"allocation": allocID, "error": err.Error()})
		return ""
	}
	return sig
}
