package lease

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/pem"
	"strings"
	"testing"
	"time"
)

func TestSignVerifyRoundTrip(t *testing.T) {
	s := signed(t, fixture())
	if want := hex.EncodeToString(testKey().Public().(ed25519.PublicKey)); s.User != want {
		t.Errorf("User = %s, want %s", s.User, want)
	}
	if ok, problems := Verify(s); !ok {
		t.Fatalf("Verify = false, %v", problems)
	}
	// Re-signing with another key replaces the signer.
	other, err := Sign(s, ed25519.NewKeyFromSeed(seed(100)))
	if err != nil {
		t.Fatal(err)
	}
	if other.User == s.User {
		t.Error("signing with another key kept the old user")
	}
	if ok, problems := Verify(other); !ok {
		t.Fatalf("Verify(other) = false, %v", problems)
	}
}

// TestTamperDetection changes each signed field after signing; every change
// must break the signature and the canonical bytes.
func TestTamperDetection(t *testing.T) {
	otherUser := hex.EncodeToString(ed25519.NewKeyFromSeed(seed(7)).Public().(ed25519.PublicKey))
	tests := []struct {
		name   string
		mutate func(*Lease)
	}{
		{"name", func(l *Lease) { l.Name += "x" }},
		{"namespace", func(l *Lease) { l.Namespace = "other" }},
		{"namespace to empty", func(l *Lease) { l.Namespace = "" }},
		{"node", func(l *Lease) { l.NodeID = "another-node" }},
		{"node removed", func(l *Lease) { l.NodeID = "" }},
		{"user", func(l *Lease) { l.User = otherUser }},
		{"driver", func(l *Lease) { l.Workload.Driver = "podman" }},
		{"image", func(l *Lease) { l.Workload.Image = "ghcr.io/acme/train:1.3" }},
		{"command", func(l *Lease) { l.Workload.Command = "bash" }},
		{"args appended", func(l *Lease) { l.Workload.Args = append(l.Workload.Args, "--more") }},
		{"args order", func(l *Lease) { l.Workload.Args = []string{"--epochs", "train.py", "3"} }},
		{"args element", func(l *Lease) { l.Workload.Args = []string{"train.py", "--epochs", "30"} }},
		{"args split differently", func(l *Lease) { l.Workload.Args = []string{"train.py --epochs", "3"} }},
		{"env value", func(l *Lease) {
			l.Workload.Env = map[string]string{"FOO": "b", "BAR": "x<&>y", "MULTI": "line1\nline2"}
		}},
		{"env key", func(l *Lease) {
			l.Workload.Env = map[string]string{"FOO2": "a", "BAR": "x<&>y", "MULTI": "line1\nline2"}
		}},
		{"env added", func(l *Lease) {
			l.Workload.Env = map[string]string{"FOO": "a", "BAR": "x<&>y", "MULTI": "line1\nline2", "NEW": ""}
		}},
		{"env removed", func(l *Lease) { l.Workload.Env = map[string]string{"FOO": "a", "BAR": "x<&>y"} }},
		{"cpu", func(l *Lease) { l.Workload.CPU++ }},
		{"memory", func(l *Lease) { l.Workload.Memory++ }},
		{"disk", func(l *Lease) { l.Workload.Disk++ }},
		{"created_at", func(l *Lease) { l.CreatedAt = l.CreatedAt.Add(time.Second) }},
		{"duration", func(l *Lease) { l.Duration += time.Second }},
	}
	orig := signed(t, fixture())
	origBytes, err := CanonicalBytes(orig)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := signed(t, fixture())
			tt.mutate(&l)
			got, err := CanonicalBytes(l)
			if err != nil {
				t.Fatal(err)
			}
			if bytes.Equal(got, origBytes) {
				t.Error("canonical bytes unchanged")
			}
			if ok, problems := Verify(l); ok {
				t.Error("Verify = true after tampering")
			} else if !containsAny(problems, "signature does not match") {
				t.Errorf("problems = %v", problems)
			}
		})
	}
}

func TestVerifyProblems(t *testing.T) {
	good := signed(t, fixture())
	tests := []struct {
		name   string
		mutate func(*Lease)
		want   []string
	}{
		{"valid", func(*Lease) {}, nil},
		{"unsigned", func(l *Lease) { l.User, l.Signature = "", "" }, []string{"lease is not signed"}},
		{"no signature", func(l *Lease) { l.Signature = "" }, []string{"lease has a user but no signature"}},
		{"no user", func(l *Lease) { l.User = "" }, []string{"lease has a signature but no user"}},
		{"user not hex", func(l *Lease) { l.User = "zz" + l.User[2:] }, []string{"user is not a hex ed25519 public key"}},
		{"user short", func(l *Lease) { l.User = l.User[:10] }, []string{"user is not a hex ed25519 public key"}},
		{"signature not hex", func(l *Lease) { l.Signature = "g" + l.Signature[1:] }, []string{"signature is not a hex ed25519 signature"}},
		{"signature short", func(l *Lease) { l.Signature = l.Signature[:64] }, []string{"signature is not a hex ed25519 signature"}},
		{"signature flipped", func(l *Lease) { l.Signature = "00" + l.Signature[2:] }, []string{"signature does not match"}},
		{"no canonical form", func(l *Lease) { l.Duration = 0 }, []string{"lease cannot be checked"}},
		{"foreign", func(l *Lease) { l.Foreign = []string{`extra task "x"`} }, []string{`job changed outside berth: extra task "x"`}},
		{"unsigned and foreign", func(l *Lease) { l.User, l.Signature, l.Foreign = "", "", []string{"f"} },
			[]string{"lease is not signed", "job changed outside berth: f"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := good
			tt.mutate(&l)
			ok, problems := Verify(l)
			if ok != (len(tt.want) == 0) {
				t.Errorf("ok = %v, problems %v", ok, problems)
			}
			if len(problems) != len(tt.want) {
				t.Fatalf("problems = %q, want %q", problems, tt.want)
			}
			for i, w := range tt.want {
				if !strings.HasPrefix(problems[i], w) {
					t.Errorf("problem %d = %q, want prefix %q", i, problems[i], w)
				}
			}
		})
	}
}

func TestSignErrors(t *testing.T) {
	if _, err := Sign(fixture(), ed25519.PrivateKey(make([]byte, 10))); err == nil {
		t.Error("Sign with a short key succeeded")
	}
	l := fixture()
	l.Duration = 0
	if _, err := Sign(l, testKey()); err == nil {
		t.Error("Sign of a lease without canonical form succeeded")
	}
}

func pemBlock(t *testing.T, typ string, der []byte) string {
	t.Helper()
	return string(pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}))
}

func pkcs8(t *testing.T, key any) []byte {
	t.Helper()
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return der
}

func TestParseSigningKey(t *testing.T) {
	// 0xfb/0xff bytes make the std and URL alphabets differ ("+/" vs "-_").
	urlSeed := bytes.Repeat([]byte{0xfb, 0xff, 0xbf}, 11)[:ed25519.SeedSize]
	if base64.StdEncoding.EncodeToString(urlSeed) == base64.URLEncoding.EncodeToString(urlSeed) {
		t.Fatal("test seed does not exercise the URL alphabet")
	}
	tests := []struct {
		name  string
		input string
		seed  []byte
	}{
		{"PEM PKCS#8", pemBlock(t, "PRIVATE KEY", pkcs8(t, ed25519.NewKeyFromSeed(seed(3)))), seed(3)},
		{"PEM with surrounding whitespace", "\n  " + pemBlock(t, "PRIVATE KEY", pkcs8(t, ed25519.NewKeyFromSeed(seed(4)))) + "\n\n", seed(4)},
		{"base64 std padded", base64.StdEncoding.EncodeToString(seed(5)), seed(5)},
		{"base64 std raw", base64.RawStdEncoding.EncodeToString(urlSeed), urlSeed},
		{"base64 std padded +/", base64.StdEncoding.EncodeToString(urlSeed), urlSeed},
		{"base64 url padded", base64.URLEncoding.EncodeToString(urlSeed), urlSeed},
		{"base64 raw url", base64.RawURLEncoding.EncodeToString(urlSeed), urlSeed},
		{"base64 with trailing newline", base64.StdEncoding.EncodeToString(seed(6)) + "\n", seed(6)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			key, err := ParseSigningKey(tt.input)
			if err != nil {
				t.Fatalf("err = %v", err)
			}
			if !key.Equal(ed25519.NewKeyFromSeed(tt.seed)) {
				t.Error("parsed a different key")
			}
		})
	}
}

func TestParseSigningKeyErrors(t *testing.T) {
	rsaKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	ecKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	edPEM := pemBlock(t, "PRIVATE KEY", pkcs8(t, testKey()))
	tests := []struct {
		name  string
		input string
		want  string
	}{
		{"empty", "  \n", "empty"},
		{"garbage", "not a key at all!!", "neither PEM"},
		{"base64 of 16 bytes", base64.StdEncoding.EncodeToString(seed(1)[:16]), "decodes to 16 bytes"},
		{"base64 of a 64-byte private key", base64.StdEncoding.EncodeToString(testKey()), "decodes to 64 bytes"},
		{"hex seed", hex.EncodeToString(seed(1)), "decodes to 48 bytes"},
		{"RSA PKCS#8", pemBlock(t, "PRIVATE KEY", pkcs8(t, rsaKey)), "PKCS#8 RSA key; want ed25519"},
		{"ECDSA PKCS#8", pemBlock(t, "PRIVATE KEY", pkcs8(t, ecKey)), "PKCS#8 ECDSA key; want ed25519"},
		{"RSA PKCS#1", pemBlock(t, "RSA PRIVATE KEY", x509.MarshalPKCS1PrivateKey(rsaKey)), `PEM "RSA PRIVATE KEY" block`},
		{"PEM with corrupt body", pemBlock(t, "PRIVATE KEY", []byte("definitely not DER")), "not a valid PKCS#8"},
		{"truncated PEM", edPEM[:len(edPEM)/2], "could not be decoded"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseSigningKey(tt.input)
			if err == nil {
				t.Fatal("no error")
			}
			msg := err.Error()
			if !strings.Contains(msg, tt.want) {
				t.Errorf("err = %q, want containing %q", msg, tt.want)
			}
			// No line of the secret may leak into the message.
			for line := range strings.Lines(tt.input) {
				if line = strings.TrimSpace(line); len(line) >= 8 && strings.Contains(msg, line) {
					t.Errorf("error %q contains input line %q", msg, line)
				}
			}
		})
	}
}
