package lease

import (
	"crypto/ed25519"
	"strings"
	"testing"
	"time"
)

// fixture is a lease exercising every signed field, including characters
// JSON would escape in HTML mode and a value with a newline.
func fixture() Lease {
	return Lease{
		Name:      "train-42",
		Namespace: "ml",
		NodeID:    "5c2f1e0a-8d4b-4f3e-9a61-0b7c2d3e4f50",
		Workload: Workload{
			Driver:  "docker",
			Image:   "ghcr.io/acme/train:1.2",
			Command: "python",
			Args:    []string{"train.py", "--epochs", "3"},
			Env:     map[string]string{"FOO": "a", "BAR": "x<&>y", "MULTI": "line1\nline2"},
			CPU:     500,
			Memory:  1024,
			Disk:    2048,
		},
		CreatedAt: time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC),
		Duration:  2 * time.Hour,
	}
}

// seed returns a deterministic 32-byte seed starting at b.
func seed(b byte) []byte {
	s := make([]byte, ed25519.SeedSize)
	for i := range s {
		s[i] = b + byte(i)
	}
	return s
}

func testKey() ed25519.PrivateKey { return ed25519.NewKeyFromSeed(seed(0)) }

func signed(t *testing.T, l Lease) Lease {
	t.Helper()
	s, err := Sign(l, testKey())
	if err != nil {
		t.Fatalf("Sign: %v", err)
	}
	return s
}

func containsAny(list []string, sub string) bool {
	for _, s := range list {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}
