// Package jwks reads a JSON Web Key Set (RFC 7517), as Nomad publishes its
// workload identity keys at /.well-known/jwks.json, into public keys in
// PEM form, which verifiers outside JWT libraries (Vault, Consul, cloud
// identity federation) take.
package jwks

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"sort"
)

// Key is one public key of the set.
type Key struct {
	ID        string // kid
	Algorithm string // alg, e.g. RS256, EdDSA
	Type      string // kty: RSA, OKP, EC
	Use       string // use, e.g. sig
	// PEM is the key as a PEM "PUBLIC KEY" block (PKIX).
	PEM string
}

// jwk is the fields of a JSON Web Key berth reads.
type jwk struct {
	Kty string `json:"kty"`
	Kid string `json:"kid"`
	Alg string `json:"alg"`
	Use string `json:"use"`
	N   string `json:"n"`
	E   string `json:"e"`
	Crv string `json:"crv"`
	X   string `json:"x"`
	Y   string `json:"y"`
}

// Parse reads a key set, sorted by key ID. A key of a type it cannot
// read is an error naming it: a key left out silently would fail
// verifications later.
func Parse(raw []byte) ([]Key, error) {
	var set struct {
		Keys []jwk `json:"keys"`
	}
	if err := json.Unmarshal(raw, &set); err != nil {
		return nil, fmt.Errorf("the key set is not JSON: %w", err)
	}
	out := make([]Key, 0, len(set.Keys))
	for _, k := range set.Keys {
		pub, err := k.publicKey()
		if err != nil {
			return nil, fmt.Errorf("key %q (%s): %w", k.Kid, k.Kty, err)
		}
		der, err := x509.MarshalPKIXPublicKey(pub)
		if err != nil {
			return nil, fmt.Errorf("key %q: %w", k.Kid, err)
		}
		out = append(out, Key{ID: k.Kid, Algorithm: k.Alg, Type: k.Kty, Use: k.Use,
			PEM: string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}))})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}

func (k jwk) publicKey() (any, error) {
	switch k.Kty {
	case "RSA":
		n, err := b64(k.N, "n")
		if err != nil {
			return nil, err
		}
		e, err := b64(k.E, "e")
		if err != nil {
			return nil, err
		}
		exp := new(big.Int).SetBytes(e)
		if !exp.IsInt64() || exp.Int64() < 2 || exp.Int64() > 1<<31-1 {
			return nil, errors.New("RSA exponent out of range")
		}
		return &rsa.PublicKey{N: new(big.Int).SetBytes(n), E: int(exp.Int64())}, nil
	case "OKP":
		if k.Crv != "Ed25519" {
			return nil, fmt.Errorf("curve %q is not supported (Ed25519 is)", k.Crv)
		}
		x, err := b64(k.X, "x")
		if err != nil {
			return nil, err
		}
		if len(x) != ed25519.PublicKeySize {
			return nil, fmt.Errorf("an Ed25519 key is %d bytes, not %d", ed25519.PublicKeySize, len(x))
		}
		return ed25519.PublicKey(x), nil
	case "EC":
		curve, size := elliptic.Curve(nil), 0
		switch k.Crv {
		case "P-256":
			curve, size = elliptic.P256(), 32
		case "P-384":
			curve, size = elliptic.P384(), 48
		case "P-521":
			curve, size = elliptic.P521(), 66
		default:
			return nil, fmt.Errorf("curve %q is not supported", k.Crv)
		}
		x, err := b64(k.X, "x")
		if err != nil {
			return nil, err
		}
		y, err := b64(k.Y, "y")
		if err != nil {
			return nil, err
		}
		if len(x) != size || len(y) != size {
			return nil, fmt.Errorf("a %s coordinate is %d bytes", k.Crv, size)
		}
		// The uncompressed point: 0x04, x, y (SEC 1).
		return ecdsa.ParseUncompressedPublicKey(curve, append(append([]byte{4}, x...), y...))
	}
	return nil, fmt.Errorf("key type %q is not supported (RSA, OKP and EC are)", k.Kty)
}

func b64(s, field string) ([]byte, error) {
	if s == "" {
		return nil, fmt.Errorf("%q is missing", field)
	}
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return nil, fmt.Errorf("%q is not base64url: %w", field, err)
	}
	return b, nil
}
