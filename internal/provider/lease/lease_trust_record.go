package lease

import (
	"context"
	"encoding/json"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/berthhq/terraform-provider-berth/internal/lease"
	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
)

// What berth itself knows of a lease's signatures is kept in the
// resource's private state, never learned from the job it checks: the key
// berth signed the lease with (so a stranger's key is never trusted on
// first use) and the newest signature berth signed or verified, with its
// signing time (so a job brought back to an earlier signed version, by
// `nomad job revert`, does not verify). Private state, not attributes: it
// is not the user's to set, and changing it plans nothing.

// leaseRecordKey is the private state key of leaseRecord (JSON).
const leaseRecordKey = "lease_signing"

// leaseRecord is berth's own record of a lease's signatures.
type leaseRecord struct {
	// Signer is the hex public key berth signed the lease with, or
	// verified it against with its own signing key; "" when neither.
	Signer string `json:"signer,omitempty"`
	// Signature and SignedAt (RFC 3339 with nanoseconds; "" for a lease
	// signed before signing times) are the newest signing berth made or
	// verified.
	Signature string `json:"signature,omitempty"`
	SignedAt  string `json:"signed_at,omitempty"`
}

// last is the newest signing recorded.
func (rec leaseRecord) last() lease.Signing {
	s := lease.Signing{Signature: rec.Signature}
	if t, err := time.Parse(time.RFC3339Nano, rec.SignedAt); err == nil {
		s.SignedAt = t
	}
	return s
}

// noteSigning records l as the newest signing of the lease, and its
// signer as berth's: berth signed it, or verified it with its own key.
func (rec *leaseRecord) noteSigning(l lease.Lease) {
	if l.Signature == "" {
		*rec = leaseRecord{} // written unsigned: nothing of berth's to keep
		return
	}
	rec.Signer, rec.Signature, rec.SignedAt = l.User, l.Signature, ""
	if !l.SignedAt.IsZero() {
		rec.SignedAt = l.SignedAt.UTC().Format(time.RFC3339Nano)
	}
}

// noteVerified records what a read verified: the signing, when no older
// than the one recorded (Check refuses older ones), and the signer when
// the provider's own key vouched for it.
func (rec *leaseRecord) noteVerified(live lease.Lease, t lease.Trust) {
	if live.Signature == "" {
		return
	}
	signer := rec.Signer
	if t.Key != nil {
		signer = live.User
	}
	rec.noteSigning(live)
	rec.Signer = signer
}

// readLeaseRecord is the record in private (empty when there is none: a
// new or imported lease, or one a berth before the record wrote).
func readLeaseRecord(ctx context.Context, private shared.PrivateData) leaseRecord {
	var rec leaseRecord
	if private == nil {
		return rec
	}
	raw, d := private.GetKey(ctx, leaseRecordKey)
	if d.HasError() || len(raw) == 0 || json.Unmarshal(raw, &rec) != nil {
		return leaseRecord{}
	}
	return rec
}

// writeLeaseRecord keeps rec in private (removing it when empty).
func writeLeaseRecord(ctx context.Context, private shared.PrivateData, rec leaseRecord, diags *diag.Diagnostics) {
	if private == nil {
		return
	}
	var value []byte
	if rec != (leaseRecord{}) {
		value, _ = json.Marshal(rec) // strings always marshal
	}
	diags.Append(private.SetKey(ctx, leaseRecordKey, value)...)
}

// trust is what m, the lease as last recorded, and rec, berth's own
// record of its signatures, say the job in Nomad must live up to, plus
// the provider's key.
func (r *leaseResource) trust(m *leaseModel, rec leaseRecord) lease.Trust {
	known := func(v attr.Value) bool { return !v.IsNull() && !v.IsUnknown() }
	t := lease.Trust{
		// A lease once checked (verified true or false) or recorded with a
		// signature stays subject to the check: deleting the signature must
		// not turn it into an unsigned lease nobody checks.
		Signed:      known(m.Verified) || (known(m.Signature) && m.Signature.ValueString() != ""),
		Recorded:    known(m.CreatedAt),
		WasTampered: known(m.Verified) && !m.Verified.ValueBool(),
		// Only a signer berth recorded itself: state's user may be one a
		// read learned (before this record existed), so it never counts.
		Signer: rec.Signer,
		Last:   rec.last(),
	}
	if key := r.Data.SigningKey; key != nil {
		t.Key = lease.PublicKey(key)
	}
	return t
}
