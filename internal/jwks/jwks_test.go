package jwks

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"fmt"
	"math/big"
	"reflect"
	"strings"
	"testing"
)

func enc(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

// pemOf parses a PEM public key back.
func pemOf(t *testing.T, s string) any {
	t.Helper()
	b, _ := pem.Decode([]byte(s))
	if b == nil || b.Type != "PUBLIC KEY" {
		t.Fatalf("not a PUBLIC KEY PEM block: %q", s)
	}
	k, err := x509.ParsePKIXPublicKey(b.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func TestParseRoundTripsEachKeyType(t *testing.T) {
	rsaKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	edPub, _, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	ecKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	ecPoint, err := ecKey.PublicKey.Bytes() // 0x04, x, y
	if err != nil {
		t.Fatal(err)
	}
	raw := fmt.Sprintf(`{"keys":[
  {"kty":"RSA","kid":"b-rsa","alg":"RS256","use":"sig","n":%q,"e":%q},
  {"kty":"OKP","kid":"a-ed","alg":"EdDSA","use":"sig","crv":"Ed25519","x":%q},
  {"kty":"EC","kid":"c-ec","alg":"ES256","crv":"P-256","x":%q,"y":%q}
]}`, enc(rsaKey.N.Bytes()), enc(big.NewInt(int64(rsaKey.E)).Bytes()), enc(edPub),
		enc(ecPoint[1:33]), enc(ecPoint[33:]))
	keys, err := Parse([]byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	if len(keys) != 3 || keys[0].ID != "a-ed" || keys[1].ID != "b-rsa" || keys[2].ID != "c-ec" {
		t.Fatalf("keys not sorted by ID: %+v", keys)
	}
	if keys[1].Algorithm != "RS256" || keys[1].Type != "RSA" || keys[1].Use != "sig" {
		t.Errorf("RSA key metadata: %+v", keys[1])
	}
	if got := pemOf(t, keys[0].PEM); !reflect.DeepEqual(got, edPub) {
		t.Errorf("Ed25519 key: got %v", got)
	}
	if got := pemOf(t, keys[1].PEM).(*rsa.PublicKey); !got.Equal(&rsaKey.PublicKey) {
		t.Errorf("RSA key differs")
	}
	if got := pemOf(t, keys[2].PEM).(*ecdsa.PublicKey); !got.Equal(&ecKey.PublicKey) {
		t.Errorf("EC key differs")
	}
}

func TestParseRefusesWhatItCannotRead(t *testing.T) {
	for raw, want := range map[string]string{
		`not json`: "not JSON",
		`{"keys":[{"kty":"oct","kid":"s","k":"AAAA"}]}`:                 `key "s" (oct): key type "oct" is not supported`,
		`{"keys":[{"kty":"RSA","kid":"r","e":"AQAB"}]}`:                 `"n" is missing`,
		`{"keys":[{"kty":"OKP","kid":"o","crv":"X25519","x":"AAAA"}]}`:  `curve "X25519"`,
		`{"keys":[{"kty":"OKP","kid":"o","crv":"Ed25519","x":"AAAA"}]}`: "32 bytes",
	} {
		if _, err := Parse([]byte(raw)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Parse(%s): error %v, want one containing %q", raw, err, want)
		}
	}
}
