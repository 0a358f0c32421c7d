package lease

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"testing"
	"time"
)

// goldenCanonical pins the signed format: if this test fails, old signatures
// no longer verify, so add a version (canonicalV1, canonicalV2) instead of updating the golden.
const goldenCanonical = `berth-lease-v1
name="train-42"
namespace="ml"
node="5c2f1e0a-8d4b-4f3e-9a61-0b7c2d3e4f50"
user="03a107bff3ce10be1d70dd18e74bc09967e4d6309ba50d5f1ddc8664125531b8"
workload={"args":["train.py","--epochs","3"],"command":"python","cpu":500,"disk":2048,"driver":"docker","env":{"BAR":"x<&>y","FOO":"a","MULTI":"line1\nline2"},"image":"ghcr.io/acme/train:1.2","memory":1024}
created_at=2025-01-02T03:04:05Z
duration=7200
`

const (
	goldenUser = "03a107bff3ce10be1d70dd18e74bc09967e4d6309ba50d5f1ddc8664125531b8"
	// goldenSHA256 is the hex SHA-256 of the golden bytes, a second pin that
	// does not depend on how the Go literal above is written.
	goldenSHA256    = "90bedbc605b86762dc689801694164778e6477322b25dcb07f117472a20474e1"
	goldenSignature = "251b4cac03ef15a3002530c8e62aeeb468279d9a74a33e142abe83442c977f972287ccee37e6c16ba43661dbfe86da04476c6e836323af76ee412f7066215e04"
)

func TestCanonicalBytesGolden(t *testing.T) {
	s := signed(t, fixture())
	if s.User != goldenUser {
		t.Errorf("user = %s, want %s", s.User, goldenUser)
	}
	got, err := CanonicalBytes(s)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != goldenCanonical {
		t.Errorf("canonical bytes:\n%s\nwant:\n%s", got, goldenCanonical)
	}
	if sum := sha256.Sum256(got); hex.EncodeToString(sum[:]) != goldenSHA256 {
		t.Errorf("sha256 = %x, want %s", sum, goldenSHA256)
	}
	// ed25519 is deterministic, so the signature is a golden value too.
	if s.Signature != goldenSignature {
		t.Errorf("signature = %s, want %s", s.Signature, goldenSignature)
	}
}

func TestCanonicalBytesDeterministic(t *testing.T) {
	// Maps built in opposite insertion orders, and big enough that Go's
	// randomized iteration would show any dependence on it.
	fwd, rev := map[string]string{}, map[string]string{}
	for i := range 64 {
		fwd[fmt.Sprintf("K%02d", i)] = fmt.Sprint(i)
	}
	for i := 63; i >= 0; i-- {
		rev[fmt.Sprintf("K%02d", i)] = fmt.Sprint(i)
	}
	a, b := fixture(), fixture()
	a.Workload.Env, b.Workload.Env = fwd, rev
	first, err := CanonicalBytes(a)
	if err != nil {
		t.Fatal(err)
	}
	for range 50 {
		got, err := CanonicalBytes(b)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, first) {
			t.Fatalf("canonical bytes differ between calls:\n%s\n%s", first, got)
		}
	}
}

// TestCanonicalBytesEquivalences lists the only inputs that share bytes:
// representations of the same value, and the values Nomad substitutes.
func TestCanonicalBytesEquivalences(t *testing.T) {
	tests := []struct {
		name string
		a, b func(*Lease)
	}{
		{"nil vs empty args",
			func(l *Lease) { l.Workload.Args = nil },
			func(l *Lease) { l.Workload.Args = []string{} }},
		{"nil vs empty env",
			func(l *Lease) { l.Workload.Env = nil },
			func(l *Lease) { l.Workload.Env = map[string]string{} }},
		{"created_at in another zone",
			func(*Lease) {},
			func(l *Lease) { l.CreatedAt = l.CreatedAt.In(time.FixedZone("X", 3600)) }},
		{"empty namespace is default",
			func(l *Lease) { l.Namespace = DefaultNamespace },
			func(l *Lease) { l.Namespace = "" }},
		{"disk 0 is Nomad's default",
			func(l *Lease) { l.Workload.Disk = DefaultDiskMB },
			func(l *Lease) { l.Workload.Disk = 0 }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, b := fixture(), fixture()
			tt.a(&a)
			tt.b(&b)
			ab, err := CanonicalBytes(a)
			if err != nil {
				t.Fatal(err)
			}
			bb, err := CanonicalBytes(b)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(ab, bb) {
				t.Errorf("want equal bytes:\n%s\n%s", ab, bb)
			}
		})
	}
}

func TestCanonicalBytesErrors(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(*Lease)
		want   string
	}{
		{"zero duration", func(l *Lease) { l.Duration = 0 }, "positive"},
		{"negative duration", func(l *Lease) { l.Duration = -time.Second }, "positive"},
		{"sub-second duration", func(l *Lease) { l.Duration = 1500 * time.Millisecond }, "whole seconds"},
		{"sub-second created_at", func(l *Lease) { l.CreatedAt = l.CreatedAt.Add(time.Millisecond) }, "created_at"},
		{"invalid UTF-8 name", func(l *Lease) { l.Name = "a\xffb" }, "name is not valid UTF-8"},
		{"invalid UTF-8 arg", func(l *Lease) { l.Workload.Args = []string{"ok", "\xfe"} }, "workload.args[1]"},
		{"invalid UTF-8 env value", func(l *Lease) { l.Workload.Env = map[string]string{"K": "\xc3"} }, "workload.env value"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := fixture()
			tt.mutate(&l)
			_, err := CanonicalBytes(l)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want containing %q", err, tt.want)
			}
		})
	}
}

// Ports enter the signed bytes only when set: a lease signed before ports
// existed keeps its bytes (and signature); one with ports differs.
func TestCanonicalBytesPortsOnlyWhenSet(t *testing.T) {
	l := fixture()
	before, err := CanonicalBytes(l)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(before), `"ports"`) {
		t.Errorf("a lease without ports has ports in its bytes:\n%s", before)
	}
	l.Workload.Ports = []string{"http"}
	after, err := CanonicalBytes(l)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(after), `"ports":["http"]`) {
		t.Errorf("ports missing from the signed bytes:\n%s", after)
	}
}

// TestCanonicalBytes_signedAt: a signing time puts the bytes in version 2
// with a signed_at line after the duration; the time is signed, and a
// version 2 signature never verifies as an undated (version 1) lease.
func TestCanonicalBytes_signedAt(t *testing.T) {
	l := fixture()
	l.SignedAt = time.Date(2025, 1, 2, 3, 4, 6, 120000000, time.FixedZone("x", 3600))
	got, err := CanonicalBytes(l)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(got), "berth-lease-v2\n") || !strings.Contains(string(got), "duration=7200\nsigned_at=2025-01-02T02:04:06.12Z\n") {
		t.Fatalf("version 2 bytes:\n%s", got)
	}
	s, err := Sign(l, testKey())
	if err != nil {
		t.Fatal(err)
	}
	if ok, problems := Verify(s); !ok {
		t.Fatalf("a dated lease does not verify: %q", problems)
	}
	for name, change := range map[string]func(*Lease){
		"signed_at removed": func(l *Lease) { l.SignedAt = time.Time{} },
		"signed_at moved":   func(l *Lease) { l.SignedAt = l.SignedAt.Add(time.Nanosecond) },
	} {
		c := s
		change(&c)
		if ok, _ := Verify(c); ok {
			t.Errorf("%s: still verifies", name)
		}
	}
}

// TestLeaseFromJob_signedAt: signed_at goes through job meta with its
// nanoseconds; a value that is not a time is a foreign change.
func TestLeaseFromJob_signedAt(t *testing.T) {
	l := fixture()
	l.SignedAt = l.CreatedAt.Add(987654321 * time.Nanosecond)
	s := signed(t, l)
	now := l.CreatedAt.Add(time.Second)
	job := nomadCopy(t, BuildJob(s, "", now), now)
	if got := job.Meta[MetaSignedAt]; got != "2025-01-02T03:04:05.987654321Z" {
		t.Fatalf("meta %s = %q", MetaSignedAt, got)
	}
	back, err := LeaseFromJob(job)
	if err != nil {
		t.Fatal(err)
	}
	if ok, problems := Verify(back); !ok || !back.SignedAt.Equal(l.SignedAt) {
		t.Fatalf("read back: signed_at %s, verify %v %q", back.SignedAt, ok, problems)
	}
	job.Meta[MetaSignedAt] = "yesterday"
	if back, _ := LeaseFromJob(job); !containsAny(back.Foreign, "meta berth.signed_at") {
		t.Fatalf("a bad signed_at is not foreign: %q", back.Foreign)
	}
	undated := nomadCopy(t, BuildJob(signed(t, fixture()), "", now), now)
	if _, ok := undated.Meta[MetaSignedAt]; ok {
		t.Fatalf("an undated lease's job has meta %s", MetaSignedAt)
	}
}
