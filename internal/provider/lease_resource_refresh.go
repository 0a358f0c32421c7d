package provider

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/berthhq/terraform-provider-berth/internal/lease"
	"github.com/berthhq/terraform-provider-berth/internal/nomadclient"
)

// clock is the lease resource's notion of now; tests replace it.
func (r *leaseResource) clock() time.Time {
	if r.now != nil {
		return r.now()
	}
	return time.Now()
}

// trust is what m, the lease as last recorded, says the job in Nomad must
// live up to, plus the provider's key.
func (r *leaseResource) trust(m *leaseModel) lease.Trust {
	known := func(v attr.Value) bool { return !v.IsNull() && !v.IsUnknown() }
	t := lease.Trust{
		// A lease once checked (verified true or false) or recorded with a
		// signature stays subject to the check: deleting the signature must
		// not turn it into an unsigned lease nobody checks.
		Signed:      known(m.Verified) || (known(m.Signature) && m.Signature.ValueString() != ""),
		WasTampered: known(m.Verified) && !m.Verified.ValueBool(),
	}
	if known(m.User) {
		t.User = m.User.ValueString()
	}
	if key := r.data.SigningKey; key != nil {
		t.Key = lease.PublicKey(key)
	}
	return t
}

// recordRegistered sets everything berth knows about a lease it has just
// registered at index, before reading it back: if the read-back fails the
// state still says what exists, with no unknown values left.
func (m *leaseModel) recordRegistered(ctx context.Context, l lease.Lease, index uint64, now time.Time, diags *diag.Diagnostics) {
	m.ID = types.StringValue(l.Namespace + "/" + l.Name)
	m.Namespace = types.StringValue(l.Namespace)
	m.NodeID = stringOrNull(l.NodeID)
	m.CreatedAt, m.ExpiresAt = timeValue(l.CreatedAt), timeValue(l.ExpiresAt())
	m.User, m.Signature, m.Verified = stringOrNull(l.User), stringOrNull(l.Signature), types.BoolNull()
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
func (r *leaseResource) readBack(ctx context.Context, m *leaseModel, diags *diag.Diagnostics) readOutcome {
	var read diag.Diagnostics
	got := r.refresh(cleanupContext(ctx), m, &read)
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
// signature, expiry from the clock and the job, and the result.
func (r *leaseResource) refresh(ctx context.Context, m *leaseModel, diags *diag.Diagnostics) readOutcome {
	ns, name := m.Namespace.ValueString(), m.Name.ValueString()
	if m.Namespace.IsUnknown() || ns == "" {
		ns = r.data.Nomad.Namespace()
	}
	nomad := r.data.Nomad
	job, err := nomad.GetJob(ctx, ns, name)
	if err != nil {
		addNomadError(diags, "Could not read the lease", err)
		return objectUnread
	}
	if job == nil {
		return objectGone
	}
	live, err := job.Lease()
	if err != nil {
		if m.CreatedAt.IsNull() || m.CreatedAt.IsUnknown() {
			// Nothing recorded (an import): refuse rather than adopt it.
			diags.AddError("Not a berth lease", fmt.Sprintf("Job %q in namespace %q is not a berth lease: %v", name, ns, err))
			return objectUnread
		}
		// A lease berth made that no longer looks like one was changed
		// behind Terraform's back: the same as a failed signature.
		m.Verified = types.BoolValue(false)
		m.JobModifyIndex = types.Int64Value(int64(job.ModifyIndex()))
		diags.AddWarning("Lease job is no longer a berth lease",
			fmt.Sprintf("Job %q in namespace %q was changed outside Terraform: %v.\nThe next apply replaces it.", name, ns, err))
		return objectUnread
	}
	allocs, err := nomad.JobAllocations(ctx, ns, name)
	if err != nil {
		addNomadError(diags, "Could not read the lease's allocations", err)
		return objectUnread
	}
	status, problems := lease.Check(live, r.trust(m))
	m.ID = types.StringValue(ns + "/" + name)
	m.Namespace = types.StringValue(ns)
	m.CreatedAt, m.ExpiresAt = timeValue(live.CreatedAt), timeValue(live.ExpiresAt())
	if m.Duration.IsNull() || m.Duration.IsUnknown() || !durationsEqual(m.Duration, live.Duration) {
		m.Duration = durationValue(live.Duration)
	}
	m.User, m.Signature = stringOrNull(live.User), stringOrNull(live.Signature)
	switch status {
	case lease.Unsigned:
		m.Verified = types.BoolNull()
	case lease.Verified:
		m.Verified = types.BoolValue(true)
	case lease.Tampered:
		m.Verified = types.BoolValue(false)
		tflog.Warn(ctx, "Lease failed verification", map[string]any{"job": name, "namespace": ns, "problems": problems})
		diags.AddWarning("Lease no longer matches its signature",
			fmt.Sprintf("Lease %q in namespace %q was changed outside Terraform and carries no valid signature:\n  - %s\nThe next apply replaces it.",
				name, ns, strings.Join(problems, "\n  - ")))
	}
	m.JobModifyIndex = types.Int64Value(int64(job.ModifyIndex()))
	if m.NodeReservation.IsNull() || m.NodeID.IsUnknown() {
		m.NodeID = stringOrNull(live.NodeID)
	}
	m.Workload = keepEmptyWorkloadCollections(ctx, m.Workload, workloadObject(ctx, live.Workload, diags), diags)
	m.Reference = types.StringNull()
	if live.Reference != "" {
		m.Reference = types.StringValue(ns + "/" + live.Reference)
	}
	byClock := live.Expired(r.clock())
	expired := byClock || job.Dead()
	m.Expired = types.BoolValue(expired)
	outcome := allocs.NewestTaskOutcome(lease.WorkloadTask)
	if len(live.Workload.Ports) > 0 && !expired {
		if err := nomad.WorkloadPorts(ctx, ns, &outcome); err != nil {
			addNomadError(diags, "Could not read where the lease's workload runs", err)
			return objectUnread
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
	return objectRead
}

// checkReference refuses a reference to a lease that is not there to
// belong to: missing, not a berth lease, failing its signature, ended, or
// made before leases registered the service referring leases watch.
func (r *leaseResource) checkReference(ctx context.Context, l lease.Lease, diags *diag.Diagnostics) {
	if l.Reference == "" {
		return
	}
	at := path.Root("reference")
	id := l.Namespace + "/" + l.Reference
	job, err := r.data.Nomad.GetJob(ctx, l.Namespace, l.Reference)
	if err != nil {
		var d diag.Diagnostics
		addNomadError(&d, "Could not read the referenced lease", err)
		diags.AddAttributeError(at, d[0].Summary(), d[0].Detail())
		return
	}
	if job == nil {
		diags.AddAttributeError(at, "Referenced lease not found",
			fmt.Sprintf("Nomad has no lease %q. Create it first (refer to its `id` attribute, so Terraform orders them).", id))
		return
	}
	ref, err := job.Lease()
	if err != nil {
		diags.AddAttributeError(at, "Reference is not a lease", fmt.Sprintf("Job %q is not a berth lease: %v.", id, err))
		return
	}
	trust := lease.Trust{}
	if key := r.data.SigningKey; key != nil {
		trust = lease.Trust{Key: lease.PublicKey(key), Signed: true}
	}
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
	sig, err := r.data.Nomad.LeaseResultSignature(ctx, ns, allocID)
	if err != nil {
		tflog.Warn(ctx, "Could not read the lease result's signature", map[string]any{"allocation": allocID, "error": err.Error()})
		return ""
	}
	return sig
}
