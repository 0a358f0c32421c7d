package lease

import (
	"crypto/ed25519"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	"strings"
	"time"
)

// NextSignedAt is the date of a new signing at now: now, unless a signing
// known to the signer (the record, the version it replaces, the newest in
// the job's history) is no earlier, then 1ns after the latest of those. So
// signing dates only go forward across renewals and replacements whatever
// the signer's clock says, and a replayed earlier version always reads
// older than the one that followed it.
func NextSignedAt(now time.Time, known ...time.Time) time.Time {
	out := now.UTC()
	for _, k := range known {
		if !out.After(k) {
			out = k.UTC().Add(time.Nanosecond)
		}
	}
	return out
}

// ParseSigningKey accepts an ed25519 private key as PEM "PRIVATE KEY"
// (PKCS#8, what `openssl genpkey -algorithm ed25519` writes) or as base64 of
// the 32-byte seed in the standard or URL alphabet, padded or not.
//
// Errors describe the shape of the input (PEM type, decoded length) but never
// echo it or wrap a parser error that might, since the input is a secret that
// would otherwise end up in Terraform diagnostics and logs.
func ParseSigningKey(s string) (ed25519.PrivateKey, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, errors.New("signing key is empty")
	}
	if strings.HasPrefix(s, "-----BEGIN") {
		return parsePEMKey(s)
	}
	for _, enc := range []*base64.Encoding{
		base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding,
	} {
		seed, err := enc.DecodeString(s)
		if err != nil {
			continue
		}
		if len(seed) != ed25519.SeedSize {
			return nil, fmt.Errorf("signing key decodes to %d bytes; a base64 ed25519 seed must be %d bytes",
				len(seed), ed25519.SeedSize)
		}
		return ed25519.NewKeyFromSeed(seed), nil
	}
	return nil, errors.New(`signing key is neither PEM ("-----BEGIN PRIVATE KEY-----") nor base64 of a 32-byte ed25519 seed`)
}

func parsePEMKey(s string) (ed25519.PrivateKey, error) {
	block, _ := pem.Decode([]byte(s))
	if block == nil {
		return nil, errors.New("signing key looks like PEM but could not be decoded")
	}
	if block.Type != "PRIVATE KEY" {
		// The block type is a label, not key material; naming it tells the
		// user which conversion they need.
		return nil, fmt.Errorf(`signing key is a PEM %q block; want an ed25519 key in a PKCS#8 "PRIVATE KEY" block`, block.Type)
	}
	parsed, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		return nil, errors.New("signing key is not a valid PKCS#8 private key")
	}
	key, ok := parsed.(ed25519.PrivateKey)
	if !ok {
		return nil, fmt.Errorf("signing key is a PKCS#8 %s key; want ed25519", keyKind(parsed))
	}
	return key, nil
}

// keyKind names a parsed key's algorithm without printing it.
func keyKind(k any) string {
	name := fmt.Sprintf("%T", k) // e.g. *rsa.PrivateKey
	name = strings.TrimPrefix(name, "*")
	name, _, _ = strings.Cut(name, ".")
	return strings.ToUpper(name)
}

// Sign returns l signed by key: User set to key's hex public key and
// Signature to the hex signature over CanonicalBytes. It fails only when l
// has no canonical form (see CanonicalBytes) or key is malformed, rather than
// panicking inside ed25519.Sign or signing truncated values.
func Sign(l Lease, key ed25519.PrivateKey) (Lease, error) {
	if len(key) != ed25519.PrivateKeySize {
		return Lease{}, fmt.Errorf("signing key has %d bytes; want %d", len(key), ed25519.PrivateKeySize)
	}
	// The signer is part of what is signed, so a signature cannot be moved to
	// another user's name.
	l.User = hex.EncodeToString(PublicKey(key))
	msg, err := CanonicalBytes(l)
	if err != nil {
		return Lease{}, err
	}
	l.Signature = hex.EncodeToString(ed25519.Sign(key, msg))
	return l, nil
}

// Verify checks l's signature against its User and reports, in
// human-readable form, every reason it is not a valid signed lease. Foreign
// findings from LeaseFromJob count as problems too.
func Verify(l Lease) (ok bool, problems []string) {
	problems = verifySignature(l)
	for _, f := range l.Foreign {
		problems = append(problems, "job changed outside berth: "+f)
	}
	return len(problems) == 0, problems
}

func verifySignature(l Lease) []string {
	switch {
	case l.User == "" && l.Signature == "":
		return []string{"lease is not signed"}
	case l.Signature == "":
		return []string{"lease has a user but no signature"}
	case l.User == "":
		return []string{"lease has a signature but no user"}
	}
	var problems []string
	pub, err := hex.DecodeString(l.User)
	if err != nil || len(pub) != ed25519.PublicKeySize {
		problems = append(problems, fmt.Sprintf("user is not a hex ed25519 public key (%d hex characters; want %d)",
			len(l.User), 2*ed25519.PublicKeySize))
	}
	sig, err := hex.DecodeString(l.Signature)
	if err != nil || len(sig) != ed25519.SignatureSize {
		problems = append(problems, fmt.Sprintf("signature is not a hex ed25519 signature (%d hex characters; want %d)",
			len(l.Signature), 2*ed25519.SignatureSize))
	}
	msg, err := CanonicalBytes(l)
	if err != nil {
		problems = append(problems, "lease cannot be checked: "+err.Error())
	}
	if len(problems) > 0 {
		return problems
	}
	if !ed25519.Verify(ed25519.PublicKey(pub), msg, sig) {
		return []string{"signature does not match the lease: it was changed after signing, or signed by a key other than its user"}
	}
	return nil
}

// PublicKey is key's public half, the signer's identity in a lease.
func PublicKey(key ed25519.PrivateKey) ed25519.PublicKey {
	pub, _ := key.Public().(ed25519.PublicKey) // always that type for an ed25519 key
	return pub
}
