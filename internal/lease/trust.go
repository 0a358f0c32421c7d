package lease

import (
	"crypto/ed25519"
	"encoding/hex"
	"fmt"
	"time"
)

// Trust is what a reader knows about a lease independently of its job in
// Nomad, and so what the job is checked against.
type Trust struct {
	// Key is the public key leases must be signed with: the provider's
	// signing key. Nil when none is configured.
	Key ed25519.PublicKey
	// Signer is the hex public key berth itself signed this lease with (or
	// verified it against with its own signing key): never a key learned
	// from a read, since anyone with job-write access can sign with a key
	// of their own. "" when berth never signed it.
	Signer string
	// Signed is true when the lease was known to be signed (or checked)
	// before this read, so a job that lost its signature is not mistaken
	// for a lease that never had one.
	Signed bool
	// Recorded is true when berth wrote or read this lease before (false
	// on import). Recorded and not Signed: berth knew it unsigned, so a
	// signature that appears later was added behind Terraform's back.
	Recorded bool
	// WasTampered is true when the lease already failed verification at an
	// earlier read. Without a Key nothing can restore trust (the recorded
	// signer may be the tamperer's by now), so it stays Tampered.
	WasTampered bool
	// Last is the newest signature berth signed or verified for this lease;
	// zero when none is recorded. A live lease signed earlier, or signed
	// differently and no later, is a rollback (nomad job revert).
	Last Signing
	// Newest is the newest signing among the job's versions in Nomad that
	// verify under this trust (NewestSigned): a record no state loss
	// erases. A live lease signed before it is a rollback too, with or
	// without Last. Zero when none is known.
	Newest Signing
}

// Signing is one signature of a lease and when berth made it.
type Signing struct {
	Signature string
	// SignedAt is zero for a lease signed before signing times existed.
	SignedAt time.Time
}

// SigningOf is l's signature and signing time.
func SigningOf(l Lease) Signing { return Signing{Signature: l.Signature, SignedAt: l.SignedAt} }

// Status is the outcome of Check.
type Status int

const (
	// Unsigned: nothing to verify against (no key, and berth never signed
	// the lease). Problems, when Check returns any, say why a signature
	// the job carries cannot be vouched for; they are not tampering.
	Unsigned Status = iota
	// Verified: the job carries a valid signature by the expected signer
	// and nothing outside what is signed was changed.
	Verified
	// Tampered: the lease should be signed but the job carries no valid
	// signature by the expected signer, or was changed outside berth, or
	// was brought back to a version signed earlier.
	Tampered
)

// Check decides whether live, read back from Nomad, can be trusted.
//
// With a key, or once a lease is known to be signed, a job whose signature
// meta was removed is Tampered, not Unsigned: otherwise deleting the
// signature would be a way to edit a lease unnoticed. A valid signature by
// another key is Tampered too, since anyone can sign with a key of their
// own. Only the provider's key or a key berth itself signed with counts:
// without either, a signature is never Verified (no trust on first use).
// A valid signature older than t.Last is a rollback and Tampered.
func Check(live Lease, t Trust) (Status, []string) {
	liveSigned := live.User != "" || live.Signature != ""
	if t.Key == nil && !t.Signed && !liveSigned {
		return Unsigned, nil
	}
	want, whose := t.Signer, "the key berth signed this lease with"
	if t.Key != nil {
		want, whose = hex.EncodeToString(t.Key), "the provider's signing key"
	}
	if want == "" && liveSigned {
		return unvouched(live, t)
	}
	ok, problems := Verify(live)
	if want != "" && live.User != "" && live.User != want {
		ok = false
		problems = append(problems, "signed by "+HexPrefix(live.User)+", not by "+whose+" ("+HexPrefix(want)+")")
	}
	if ok && t.Key == nil && t.WasTampered {
		ok = false
		problems = append(problems, "it failed verification at an earlier read, and without a provider signing key nothing can vouch for it again")
	}
	if ok {
		if p := rollback(live, t.Last); p != "" {
			ok = false
			problems = append(problems, p)
		} else if p := rolledBackInHistory(live, t.Newest); p != "" {
			ok = false
			problems = append(problems, p)
		}
	}
	if !ok {
		return Tampered, problems
	}
	return Verified, nil
}

// unvouched is Check of a signed lease with no key to check it against:
// berth has no signing key and never signed this lease itself.
func unvouched(live Lease, t Trust) (Status, []string) {
	who := "signed by " + HexPrefix(live.User)
	if live.User == "" {
		who = "carries a signature but no user"
	}
	switch {
	case t.WasTampered:
		return Tampered, []string{who + "; it failed verification at an earlier read, and without a provider " +
			"signing key nothing can vouch for it again"}
	case t.Recorded && !t.Signed:
		// berth wrote (or last read) it unsigned: the signature was added
		// behind Terraform's back, with a key berth knows nothing of.
		return Tampered, []string{who + ", but berth wrote this lease unsigned; without a provider signing key " +
			"no signature can be vouched for"}
	}
	// Imported, or recorded by a berth that did not yet tell its own
	// signatures from others': nothing to verify against.
	return Unsigned, []string{who + ", a key berth did not sign it with; configure the provider's signing_key " +
		"with the key it was signed with to verify it"}
}

// rollback says why live, with a valid signature, is an earlier version
// than last, the newest berth signed or verified; "" when it is not.
func rollback(live Lease, last Signing) string {
	if last.Signature == "" || live.Signature == last.Signature && live.SignedAt.Equal(last.SignedAt) {
		return ""
	}
	switch {
	case live.SignedAt.Before(last.SignedAt):
		return fmt.Sprintf("rolled back to a version signed at %s, earlier than the one recorded at %s; replace it",
			signedWhen(live.SignedAt), signedWhen(last.SignedAt))
	case !live.SignedAt.After(last.SignedAt):
		return fmt.Sprintf("rolled back to another version signed at %s, no later than the one recorded at %s; replace it",
			signedWhen(live.SignedAt), signedWhen(last.SignedAt))
	}
	return ""
}

// rolledBackInHistory says why live is older than newest, the newest
// signing among the job's versions in Nomad; "" when it is not. Only a
// later date counts: versions of earlier berths are undated, and a renewal
// or in-place change always dates its signature later.
func rolledBackInHistory(live Lease, newest Signing) string {
	if newest.Signature == "" || !newest.SignedAt.After(live.SignedAt) {
		return ""
	}
	return fmt.Sprintf("rolled back to a version signed at %s, earlier than the version signed at %s in the job's "+
		"history in Nomad; replace it", signedWhen(live.SignedAt), signedWhen(newest.SignedAt))
}

// NewestSigned is the newest signing among versions (the job's versions in
// Nomad) that verify under t: signed by the provider's key, or by the key
// berth signed the lease with, and changed nowhere else. A version signed
// by any other key is not berth's and proves nothing. Zero when none does.
func NewestSigned(versions []Lease, t Trust) Signing {
	want := t.Signer
	if t.Key != nil {
		want = hex.EncodeToString(t.Key)
	}
	var out Signing
	if want == "" {
		return out
	}
	for _, v := range versions {
		if v.User != want || v.SignedAt.IsZero() {
			continue
		}
		if ok, _ := Verify(v); ok && (out.Signature == "" || v.SignedAt.After(out.SignedAt)) {
			out = SigningOf(v)
		}
	}
	return out
}

func signedWhen(t time.Time) string {
	if t.IsZero() {
		return "an unrecorded time (before signing times)"
	}
	return signedStamp(t)
}

// HexPrefix is the first 16 characters of a hex key or signature followed
// by "…", or all of it when shorter: enough to tell keys apart in messages.
func HexPrefix(s string) string {
	if len(s) > 16 {
		return s[:16] + "…"
	}
	return s
}
