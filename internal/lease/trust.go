package lease

import (
	"crypto/ed25519"
	"encoding/hex"
)

// Trust is what a reader knows about a lease independently of its job in
// Nomad, and so what the job is checked against.
type Trust struct {
	// Key is the public key leases must be signed with: the provider's
	// signing key. Nil when none is configured.
	Key ed25519.PublicKey
	// Signed is true when the lease was known to be signed (or checked)
	// before this read, so a job that lost its signature is not mistaken
	// for a lease that never had one.
	Signed bool
	// User is the signer recorded before this read; "" when unknown.
	User string
	// WasTampered is true when the lease already failed verification at an
	// earlier read. Without a Key nothing can restore trust (the recorded
	// User may be the tamperer's by now), so it stays Tampered.
	WasTampered bool
}

// Status is the outcome of Check.
type Status int

const (
	// Unsigned: nothing to verify against (no key, no signature, and the
	// lease was never known to be signed).
	Unsigned Status = iota
	// Verified: the job carries a valid signature by the expected signer
	// and nothing outside what is signed was changed.
	Verified
	// Tampered: the lease should be signed but the job carries no valid
	// signature by the expected signer, or was changed outside berth.
	Tampered
)

// Check decides whether live, read back from Nomad, can be trusted.
//
// With a key, or once a lease is known to be signed, a job whose signature
// meta was removed is Tampered, not Unsigned: otherwise deleting the
// signature would be a way to edit a lease unnoticed. A valid signature by
// another key is Tampered too, since anyone can sign with a key of their own.
func Check(live Lease, t Trust) (Status, []string) {
	if t.Key == nil && !t.Signed && t.User == "" && live.User == "" && live.Signature == "" {
		return Unsigned, nil
	}
	ok, problems := Verify(live)
	want, whose := t.User, "the signer recorded in state"
	if t.Key != nil {
		want, whose = hex.EncodeToString(t.Key), "the provider's signing key"
	}
	if want != "" && live.User != "" && live.User != want {
		ok = false
		problems = append(problems, "signed by "+HexPrefix(live.User)+", not by "+whose+" ("+HexPrefix(want)+")")
	}
	if ok && t.Key == nil && t.WasTampered {
		ok = false
		problems = append(problems, "it failed verification at an earlier read, and without a provider signing key nothing can vouch for it again")
	}
	if !ok {
		return Tampered, problems
	}
	return Verified, nil
}

// HexPrefix is the first 16 characters of a hex key or signature followed
// by "…", or all of it when shorter: enough to tell keys apart in messages.
func HexPrefix(s string) string {
	if len(s) > 16 {
		return s[:16] + "…"
	}
	return s
}
