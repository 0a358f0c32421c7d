package lease

import (
	"context"
	"crypto/ed25519"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/berthhq/terraform-provider-berth/internal/lease"
)

// readLease runs Read the way Terraform calls it, with state m and private
// record rec, and returns the state, the record and the diagnostics.
func readLease(t *testing.T, r *leaseResource, m leaseModel, rec leaseRecord) (leaseModel, leaseRecord, diag.Diagnostics) {
	t.Helper()
	ctx := context.Background()
	schema := leaseSchema(ctx)
	null := tftypes.NewValue(schema.Type().TerraformType(ctx), nil)
	req := resource.ReadRequest{State: tfsdk.State{Schema: schema, Raw: null}}
	if d := req.State.Set(ctx, &m); d.HasError() {
		t.Fatal(d)
	}
	req.Private = emptyPrivate(req.Private)
	var d diag.Diagnostics
	writeLeaseRecord(ctx, req.Private, rec, &d)
	resp := resource.ReadResponse{State: tfsdk.State{Schema: schema, Raw: req.State.Raw.Copy()}, Private: req.Private}
	r.Read(ctx, req, &resp)
	if resp.Diagnostics.HasError() {
		t.Fatalf("Read: %v", resp.Diagnostics)
	}
	var got leaseModel
	if d := resp.State.Get(ctx, &got); d.HasError() {
		t.Fatal(d)
	}
	return got, readLeaseRecord(ctx, resp.Private), resp.Diagnostics
}

// storeLease puts the job of l (as berth registers it) into the fake.
func (f *leaseUpdateFixture) storeLease(l lease.Lease, index uint64) {
	f.fake.mu.Lock()
	defer f.fake.mu.Unlock()
	if f.fake.job != nil {
		f.fake.earlier = append(f.fake.earlier, f.fake.job)
	}
	f.fake.job = nomadStored(lease.BuildJob(l, "raw_exec", f.now), index, f.now.UnixNano())
}

func warned(diags diag.Diagnostics, sub string) bool {
	for _, d := range diags {
		if d.Severity() == diag.SeverityWarning && strings.Contains(d.Detail(), sub) {
			return true
		}
	}
	return false
}

// TestLeaseRead_noTrustOnFirstUse: without a provider signing key, a
// signature berth did not make never reads verified = true, and the
// stranger's key never becomes the lease's user. A lease berth wrote
// unsigned that gained a signature changed behind Terraform's back: false,
// with a warning (so the next plan replaces it). An imported lease with a
// signature berth cannot check: null, with a warning saying why.
func TestLeaseRead_noTrustOnFirstUse(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newLeaseUpdateFixture(t)
	f.r.Data.SigningKey = nil
	_, stranger, err := ed25519.GenerateKey(nil)
	if err != nil {
		t.Fatal(err)
	}
	unsigned := f.lease
	unsigned.User, unsigned.Signature = "", ""
	var diags diag.Diagnostics
	state := f.state
	state.recordRegistered(ctx, unsigned, 10, f.now, &diags) // berth's apply without a key
	f.storeLease(unsigned, 10)
	got, rec, diags := readLease(t, f.r, state, leaseRecord{})
	if !got.Verified.IsNull() || !got.User.IsNull() || len(diags) != 0 || rec != (leaseRecord{}) {
		t.Fatalf("the unsigned lease: verified %s, user %s, record %+v, diagnostics %v; want null, null, none, none",
			got.Verified, got.User, rec, diags)
	}

	edited := unsigned
	edited.Workload.Env = map[string]string{"SNEAKY": "1"}
	if edited, err = lease.Sign(edited, stranger); err != nil {
		t.Fatal(err)
	}
	f.storeLease(edited, 11)
	got, rec, diags = readLease(t, f.r, got, rec)
	if got.Verified.IsNull() || got.Verified.ValueBool() || !got.User.IsNull() || rec.Signer != "" ||
		!warned(diags, "berth wrote this lease unsigned") {
		t.Fatalf("edited and signed by a stranger: verified %s, user %s, record %+v, diagnostics %v; "+
			"want false, null, no signer, a warning", got.Verified, got.User, rec, diags)
	}
	if d := decideLeasePlan(got, got, f.now); d.replace == "" {
		t.Error("the next plan does not replace it")
	}
	// It stays false on the next read: nothing restores trust.
	if got, _, _ = readLease(t, f.r, got, rec); got.Verified.IsNull() || got.Verified.ValueBool() {
		t.Errorf("second read: verified %s, want false", got.Verified)
	}

	// Imported (nothing recorded): berth cannot vouch for the signature.
	imported := leaseModel{ID: types.StringValue("default/" + f.lease.Name), Name: types.StringValue(f.lease.Name),
		Namespace: types.StringValue("default"), Timeouts: f.state.Timeouts, Workload: types.ObjectNull(f.state.Workload.AttributeTypes(ctx)),
		Result: types.ObjectNull(resultAttrTypes())}
	got, rec, diags = readLease(t, f.r, imported, leaseRecord{})
	if !got.Verified.IsNull() || !got.User.IsNull() || rec.Signer != "" || !warned(diags, "a key berth did not sign it with") {
		t.Fatalf("imported, signed by a stranger: verified %s, user %s, record %+v, diagnostics %v; want null, null, no signer, a warning",
			got.Verified, got.User, rec, diags)
	}
	if got, _, _ = readLease(t, f.r, got, rec); !got.Verified.IsNull() || !got.User.IsNull() {
		t.Errorf("imported, second read: verified %s, user %s; want null, null", got.Verified, got.User)
	}

	// A user in state that berth did not record signing with (as a berth
	// before the record wrote it after trusting a first signer) counts
	// for nothing.
	learned := got
	learned.User, learned.Verified = types.StringValue(edited.User), types.BoolValue(true)
	if got, _, _ = readLease(t, f.r, learned, leaseRecord{}); got.Verified.ValueBool() {
		t.Errorf("a user only state knows of: verified %s, want not true", got.Verified)
	}
}

// TestLeaseRead_recordsOwnSigner: a read with the provider's key records
// that key as berth's signer; after the key is removed from the provider,
// the lease still verifies against it, and a stranger's signature does not.
func TestLeaseRead_recordsOwnSigner(t *testing.T) {
	t.Parallel()
	f := newLeaseUpdateFixture(t)
	got, rec, diags := readLease(t, f.r, f.state, leaseRecord{})
	if !got.Verified.ValueBool() || rec.Signer != f.lease.User || rec.Signature != f.lease.Signature || len(diags) != 0 {
		t.Fatalf("with the key: verified %s, record %+v, diagnostics %v", got.Verified, rec, diags)
	}
	f.r.Data.SigningKey = nil
	if got, rec, diags = readLease(t, f.r, got, rec); !got.Verified.ValueBool() || rec.Signer != f.lease.User {
		t.Fatalf("key removed: verified %s, record %+v, diagnostics %v", got.Verified, rec, diags)
	}
	_, stranger, _ := ed25519.GenerateKey(nil)
	edited, err := lease.Sign(f.lease, stranger)
	if err != nil {
		t.Fatal(err)
	}
	f.storeLease(edited, 11)
	got, _, diags = readLease(t, f.r, got, rec)
	if got.Verified.ValueBool() || got.User.ValueString() != f.lease.User || !warned(diags, "not by the key berth signed this lease with") {
		t.Fatalf("re-signed by a stranger: verified %s, user %s, diagnostics %v", got.Verified, got.User, diags)
	}
}

// TestLeaseRead_rollback: berth's record of its newest signing refuses a
// job brought back to a version signed earlier (nomad job revert), even
// though that version's signature is valid and by the provider's key.
func TestLeaseRead_rollback(t *testing.T) {
	t.Parallel()
	f := newLeaseUpdateFixture(t)
	sign := func(d time.Duration, at time.Time) lease.Lease {
		l := f.lease
		l.Duration, l.SignedAt = d, at
		s, err := lease.Sign(l, f.r.Data.SigningKey)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	long := sign(24*time.Hour, f.lease.CreatedAt.Add(time.Millisecond))
	short := sign(time.Hour, f.now.Add(time.Millisecond))
	f.storeLease(short, 12)
	var rec leaseRecord
	rec.noteSigning(short)
	got, rec, diags := readLease(t, f.r, f.state, rec)
	if !got.Verified.ValueBool() || len(diags) != 0 {
		t.Fatalf("the recorded version: verified %s, diagnostics %v", got.Verified, diags)
	}
	f.storeLease(long, 13) // nomad job revert to the 24h version
	got, after, diags := readLease(t, f.r, got, rec)
	want := fmt.Sprintf("rolled back to a version signed at %s, earlier than the one recorded at %s; replace it",
		long.SignedAt.Format(time.RFC3339Nano), short.SignedAt.Format(time.RFC3339Nano))
	if got.Verified.ValueBool() || !warned(diags, want) {
		t.Fatalf("reverted: verified %s, diagnostics %v; want false and %q", got.Verified, diags, want)
	}
	if d := decideLeasePlan(got, got, f.now); d.replace == "" {
		t.Error("the next plan does not replace the reverted lease")
	}
	raw, _ := json.Marshal(after)
	if !strings.Contains(string(raw), short.SignedAt.Format(time.RFC3339Nano)) {
		t.Errorf("the record moved back with the job: %s", raw)
	}
}
