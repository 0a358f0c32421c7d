package lease

import (
	"context"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"
	"github.com/hashicorp/terraform-plugin-framework-timetypes/timetypes"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/berthhq/terraform-provider-berth/internal/lease"
	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
)

// signedAs is f's lease for d, signed at at with the provider's key.
func (f *leaseUpdateFixture) signedAs(t *testing.T, d time.Duration, at time.Time) lease.Lease {
	t.Helper()
	l := f.lease
	l.Duration, l.SignedAt = d, at
	s, err := lease.Sign(l, f.r.Data.SigningKey)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestLeaseRead_rollbackByHistoryWithoutRecord: with no private record (an
// import, a fresh state, a state of an older berth), a revert to an
// earlier signed, longer version is caught by the job's versions in Nomad,
// and is not recorded as the newest.
func TestLeaseRead_rollbackByHistoryWithoutRecord(t *testing.T) {
	t.Parallel()
	f := newLeaseUpdateFixture(t)
	long := f.signedAs(t, 24*time.Hour, f.lease.SignedAt.Add(time.Millisecond))
	short := f.signedAs(t, time.Hour, f.now.Add(time.Millisecond))
	f.storeLease(long, 11)
	f.storeLease(short, 12)
	f.storeLease(long, 13) // nomad job revert to the 24h version
	got, rec, diags := readLease(t, f.r, f.state, leaseRecord{})
	if got.Verified.ValueBool() || !warned(diags, "in the job's history in Nomad") {
		t.Fatalf("reverted without a record: verified %s, diagnostics %v; want false naming the history", got.Verified, diags)
	}
	if rec.Signature == long.Signature {
		t.Errorf("the reverted version was recorded as the newest: %+v", rec)
	}
	if d := decideLeasePlan(got, got, f.now); d.replace == "" {
		t.Error("the next plan does not replace the reverted lease")
	}
	// The newest version itself verifies, with no record either.
	f.storeLease(short, 14)
	if got, _, diags := readLease(t, f.r, f.state, leaseRecord{}); !got.Verified.ValueBool() {
		t.Errorf("the newest version: verified %s, diagnostics %v", got.Verified, diags)
	}
}

// TestLeaseRead_overrun: an allocation still running after expires_at
// plus the allowance (a paused timer) reads verified = false, not expired,
// result.state overrun, with a warning naming the allocation; before the
// allowance passes it reads as before.
func TestLeaseRead_overrun(t *testing.T) {
	t.Parallel()
	f := newLeaseUpdateFixture(t)
	end := f.lease.ExpiresAt()
	start := f.lease.CreatedAt
	f.fake.allocs = []*api.AllocationListStub{{ID: "0a1b2c3d-aaaa-bbbb-cccc-000000000000", ClientStatus: "running", CreateIndex: 11,
		TaskStates: map[string]*api.TaskState{
			lease.WorkloadTask: {State: "running", StartedAt: start},
			lease.TimerTask: {State: "running", StartedAt: start, Events: []*api.TaskEvent{
				{Type: api.TaskStarted}, {Type: api.TaskSignaling, Details: map[string]string{"signal": "SIGSTOP"}}}},
		}}}
	read := func(now time.Time) (leaseModel, diag.Diagnostics) {
		f.r.now = func() time.Time { return now }
		m := f.state
		var diags diag.Diagnostics
		if f.r.refresh(context.Background(), &m, &leaseRecord{}, &diags) != shared.ObjectRead || diags.HasError() {
			t.Fatalf("refresh: %v", diags)
		}
		return m, diags
	}
	stateOf := func(m leaseModel) string { return m.Result.Attributes()["state"].(types.String).ValueString() }

	m, diags := read(end.Add(lease.OverrunAllowance))
	if !m.Verified.ValueBool() || !m.Expired.ValueBool() || len(diags) != 0 {
		t.Errorf("within the allowance: verified %s, expired %s, diagnostics %v; want true, true, none", m.Verified, m.Expired, diags)
	}
	m, diags = read(end.Add(lease.OverrunAllowance + time.Second))
	if m.Verified.ValueBool() || m.Expired.ValueBool() || stateOf(m) != resultOverrun {
		t.Errorf("past the allowance: verified %s, expired %s, result.state %q; want false, false, %q",
			m.Verified, m.Expired, stateOf(m), resultOverrun)
	}
	if !warned(diags, "allocation 0a1b2c3d is running 1m31s after the lease's end") || !warned(diags, "timer paused") {
		t.Errorf("diagnostics %v do not name the allocation and the paused timer", diags)
	}
	if d := decideLeasePlan(m, m, f.now); d.replace == "" {
		t.Error("the next plan does not replace a lease that did not end")
	}
	// Once Nomad stopped it, the lease reads ended.
	f.fake.allocs[0].ClientStatus = "complete"
	if m, _ := read(end.Add(time.Hour)); !m.Expired.ValueBool() || stateOf(m) != resultExpired {
		t.Errorf("stopped: expired %s, result.state %q", m.Expired, stateOf(m))
	}
}

// TestLeaseCreate_afterReplacementSignsLater: the create of a replacement
// dates its signing after the destroyed generation's, although its clock
// is behind, so replaying the destroyed one reads as a rollback.
//
// Not parallel: the destroyed generation's signing is kept per process
// and name, and other tests create leases of the same name.
func TestLeaseCreate_afterReplacementSignsLater(t *testing.T) {
	f := newLeaseUpdateFixture(t)
	old := f.fake.job
	var rec leaseRecord
	rec.noteSigning(f.lease)
	f.r.noteReplaced(context.Background(), &f.state, rec)
	f.fake.job, f.fake.earlier = nil, nil // purged

	f.r.now = func() time.Time { return f.now.Add(-time.Hour) } // the new signer's clock is behind
	got := createLease(t, f)
	if !got.Verified.ValueBool() {
		t.Fatalf("created lease: verified %s", got.Verified)
	}
	created, err := lease.LeaseFromJob(f.fake.job)
	if err != nil {
		t.Fatal(err)
	}
	if !created.SignedAt.After(f.lease.SignedAt) {
		t.Fatalf("replacement signed at %s, not after the destroyed generation's %s", created.SignedAt, f.lease.SignedAt)
	}
	// Replaying the destroyed generation over it does not verify.
	f.fake.earlier, f.fake.job = append(f.fake.earlier, f.fake.job), old
	m, _, diags := readLease(t, f.r, got, leaseRecord{})
	if m.Verified.ValueBool() || !warned(diags, "rolled back") {
		t.Errorf("replayed generation: verified %s, diagnostics %v", m.Verified, diags)
	}
	if replacedSigning(f.lease.Namespace, f.lease.Name) != (time.Time{}) {
		t.Error("the destroyed generation's signing was not taken once")
	}
}

// createLease runs Create for f's lease (not waiting for it to run) the
// way Terraform calls it, and returns the state it left.
func createLease(t *testing.T, f *leaseUpdateFixture) leaseModel {
	t.Helper()
	ctx := context.Background()
	plan := f.state
	plan.WaitForRunning = types.BoolValue(false)
	resp := runCreate(ctx, t, f, plan)
	if resp.Diagnostics.HasError() {
		t.Fatalf("Create: %v", resp.Diagnostics)
	}
	var got leaseModel
	if d := resp.State.Get(ctx, &got); d.HasError() {
		t.Fatal(d)
	}
	return got
}

// runCreate runs Create for plan, f's lease, the way Terraform calls it:
// what Create computes unknown, no state, no private state yet.
func runCreate(ctx context.Context, t *testing.T, f *leaseUpdateFixture, plan leaseModel) resource.CreateResponse {
	t.Helper()
	plan.ID, plan.NodeID, plan.CreatedAt, plan.ExpiresAt = types.StringUnknown(), types.StringUnknown(), timetypes.NewRFC3339Unknown(), timetypes.NewRFC3339Unknown()
	plan.Signature, plan.User = types.StringUnknown(), types.StringUnknown()
	plan.Verified, plan.Expired = types.BoolUnknown(), types.BoolUnknown()
	plan.Result, plan.JobModifyIndex = types.ObjectUnknown(resultAttrTypes()), types.Int64Unknown()
	schema := leaseSchema(ctx)
	null := tftypes.NewValue(schema.Type().TerraformType(ctx), nil)
	req := resource.CreateRequest{Plan: tfsdk.Plan{Schema: schema, Raw: null}}
	if d := req.Plan.Set(ctx, &plan); d.HasError() {
		t.Fatal(d)
	}
	resp := resource.CreateResponse{State: tfsdk.State{Schema: schema, Raw: null.Copy()}}
	resp.Private = emptyPrivate(resp.Private)
	f.r.Create(ctx, req, &resp)
	return resp
}
