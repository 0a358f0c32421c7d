package lease

import (
	"strings"
	"time"

	"github.com/berthhq/terraform-provider-berth/internal/drift"
)

// Mismatch is one thing that no longer matches between a signed lease and
// what actually runs.
type Mismatch struct {
	Field  string // e.g. "workload.env.FOO", "expires_at", "job"
	Detail string // e.g. `"a" -> "b"`
}

func (m Mismatch) String() string { return m.Field + ": " + m.Detail }

// Mismatches compares the lease berth signed with the one read back from
// Nomad, field by field (drift.Diff over the tagged fields, then the end,
// the signature and what berth never writes), so a failed Verify can say
// what changed. Values Nomad substitutes (namespace "", disk 0) compare
// equal to their defaults. actual.Foreign entries are reported under Field
// "job".
func Mismatches(signed, actual Lease) []Mismatch {
	s, a := signed.effective(), actual.effective()
	var out []Mismatch
	for _, line := range drift.Diff(s, a) {
		field, detail, _ := strings.Cut(line, ": ")
		out = append(out, Mismatch{field, detail})
	}
	// Redundant with created_at and duration, but it is the number people
	// care about.
	if !s.ExpiresAt().Equal(a.ExpiresAt()) {
		out = append(out, Mismatch{"expires_at", stamp(s.ExpiresAt()) + " -> " + stamp(a.ExpiresAt())})
	}
	if s.Signature != a.Signature {
		out = append(out, Mismatch{"signature", "changed"})
	}
	for _, f := range a.Foreign {
		out = append(out, Mismatch{"job", f})
	}
	return out
}

// Diff is Mismatches as human-readable lines, e.g.
// `workload.env.FOO: "a" -> "b"`.
func Diff(signed, actual Lease) []string {
	var out []string // nil when nothing differs
	for _, m := range Mismatches(signed, actual) {
		out = append(out, m.String())
	}
	return out
}

func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }
