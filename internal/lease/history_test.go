package lease

import (
	"crypto/ed25519"
	"encoding/hex"
	"strings"
	"testing"
	"time"
)

func TestNextSignedAt(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		name  string
		known []time.Time
		want  time.Time
	}{
		{"nothing known: now", nil, now},
		{"known earlier: now", []time.Time{now.Add(-time.Hour)}, now},
		{"zero known: now", []time.Time{{}}, now},
		{"clock behind the replaced generation: just after it", []time.Time{now.Add(time.Hour)}, now.Add(time.Hour + time.Nanosecond)},
		{"equal: just after it", []time.Time{now}, now.Add(time.Nanosecond)},
		{"the latest of several wins", []time.Time{now.Add(time.Minute), now.Add(time.Hour), now.Add(-time.Hour)},
			now.Add(time.Hour + time.Nanosecond)},
	} {
		if got := NextSignedAt(now, tt.known...); !got.Equal(tt.want) {
			t.Errorf("%s: NextSignedAt = %s, want %s", tt.name, got, tt.want)
		}
	}
	// Whatever the clock says, a signing is dated after what it follows.
	prev := now
	for _, clock := range []time.Time{now.Add(-24 * time.Hour), now, now.Add(-time.Nanosecond)} {
		next := NextSignedAt(clock, prev)
		if !next.After(prev) {
			t.Fatalf("NextSignedAt(%s, %s) = %s, not after the previous signing", clock, prev, next)
		}
		prev = next
	}
}

// versionsOf signs fixture at each date, as the job's versions in Nomad.
func versionsOf(t *testing.T, dates ...time.Time) []Lease {
	var out []Lease
	for i, d := range dates {
		l := fixture()
		l.Duration = time.Duration(i+1) * time.Hour
		l.SignedAt = d
		out = append(out, signed(t, l))
	}
	return out
}

func TestNewestSigned(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 11, 28, 10, 0, 0, 0, time.UTC)
	key := PublicKey(testKey())
	vs := versionsOf(t, t0, t0.Add(2*time.Hour), t0.Add(time.Hour))
	if got := NewestSigned(vs, Trust{Key: key}); got != SigningOf(vs[1]) {
		t.Errorf("NewestSigned = %+v, want the version signed at t0+2h", got)
	}
	if got := NewestSigned(vs, Trust{Signer: hex.EncodeToString(key)}); got != SigningOf(vs[1]) {
		t.Errorf("NewestSigned by the recorded signer = %+v, want the version signed at t0+2h", got)
	}
	if got := NewestSigned(vs, Trust{}); got != (Signing{}) {
		t.Errorf("NewestSigned with no key = %+v, want none: nothing vouches for any version", got)
	}
	// A version signed by another key, or changed after signing, or
	// forged with a far later date, is not berth's and counts for nothing.
	forged := vs[0]
	forged.SignedAt = t0.Add(100 * time.Hour)
	forged, err := Sign(forged, ed25519.NewKeyFromSeed(seed(1)))
	if err != nil {
		t.Fatal(err)
	}
	changed := vs[2]
	changed.Workload.CPU++
	if got := NewestSigned([]Lease{vs[0], forged, changed}, Trust{Key: key}); got != SigningOf(vs[0]) {
		t.Errorf("NewestSigned = %+v, want only the intact version signed at t0", got)
	}
}

func TestCheck_rollbackInHistory(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 11, 28, 10, 0, 0, 0, time.UTC)
	key := PublicKey(testKey())
	// v0 signed for 1h, v1 changed in place to 2h, v2 a revert to v0.
	vs := versionsOf(t, t0, t0.Add(time.Minute))
	revert := vs[0]
	history := append(vs, revert)
	for _, tt := range []struct {
		name     string
		live     Lease
		trust    Trust
		verified bool
	}{
		{"newest version, no record", vs[1], Trust{Key: key}, true},
		{"revert, no record (import, fresh state)", revert, Trust{Key: key}, false},
		{"revert, record of the revert itself (state from an older berth)", revert, Trust{Key: key, Last: SigningOf(revert)}, false},
		{"revert, no key: berth's signer recorded", revert, Trust{Signer: hex.EncodeToString(key), Signed: true, Recorded: true}, false},
	} {
		tt.trust.Newest = NewestSigned(history, tt.trust)
		status, problems := Check(tt.live, tt.trust)
		if (status == Verified) != tt.verified {
			t.Errorf("%s: status %v (%v), want verified %v", tt.name, status, problems, tt.verified)
		}
		if !tt.verified && !containsAny(problems, "history in Nomad") && !containsAny(problems, "rolled back") {
			t.Errorf("%s: problems %v do not name the rollback", tt.name, problems)
		}
	}
	// Undated versions of earlier berths never count as later.
	old := fixture()
	old = signed(t, old)
	if s, p := Check(old, Trust{Key: key, Newest: NewestSigned([]Lease{old}, Trust{Key: key})}); s != Verified {
		t.Errorf("undated lease with undated history: %v %v", s, p)
	}
	if !strings.Contains(rolledBackInHistory(revert, SigningOf(vs[1])), "earlier than the version signed at") {
		t.Error("rolledBackInHistory does not say what it found")
	}
}
