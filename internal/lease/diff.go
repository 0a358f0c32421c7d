package lease

import (
	"encoding/json"
	"maps"
	"slices"
	"strconv"
	"time"
)

// Mismatch is one thing that no longer matches between a signed lease and
// what actually runs.
type Mismatch struct {
	Field  string // e.g. "workload.env.FOO", "expires_at", "job"
	Detail string // e.g. `"a" -> "b"`
}

func (m Mismatch) String() string { return m.Field + ": " + m.Detail }

// Mismatches compares the lease berth signed with the one read back from
// Nomad, field by field, so a failed Verify can say what changed. Values
// Nomad substitutes (namespace "", disk 0) compare equal to their defaults.
// actual.Foreign entries are reported under Field "job".
func Mismatches(signed, actual Lease) []Mismatch {
	s, a := signed.effective(), actual.effective()
	var out []Mismatch
	add := func(field, detail string) { out = append(out, Mismatch{field, detail}) }
	str := func(field, x, y string) {
		if x != y {
			add(field, strconv.Quote(x)+" -> "+strconv.Quote(y))
		}
	}
	num := func(field string, x, y int) {
		if x != y {
			add(field, strconv.Itoa(x)+" -> "+strconv.Itoa(y))
		}
	}

	str("name", s.Name, a.Name)
	str("namespace", s.Namespace, a.Namespace)
	str("node", s.NodeID, a.NodeID)
	str("user", s.User, a.User)

	sw, aw := s.Workload, a.Workload
	str("workload.driver", sw.Driver, aw.Driver)
	str("workload.image", sw.Image, aw.Image)
	str("workload.command", sw.Command, aw.Command)
	if !slices.Equal(sw.Args, aw.Args) {
		add("workload.args", jsonList(sw.Args)+" -> "+jsonList(aw.Args))
	}
	keys := slices.Sorted(maps.Keys(sw.Env))
	for k := range aw.Env {
		if _, ok := sw.Env[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		sv, sok := sw.Env[k]
		av, aok := aw.Env[k]
		if sok != aok || sv != av {
			add("workload.env."+k, optQuote(sv, sok)+" -> "+optQuote(av, aok))
		}
	}
	num("workload.cpu", sw.CPU, aw.CPU)
	num("workload.memory", sw.Memory, aw.Memory)
	num("workload.disk", sw.Disk, aw.Disk)

	if !s.CreatedAt.Equal(a.CreatedAt) {
		add("created_at", stamp(s.CreatedAt)+" -> "+stamp(a.CreatedAt))
	}
	if s.Duration != a.Duration {
		add("duration", s.Duration.String()+" -> "+a.Duration.String())
	}
	// Redundant with the two above, but it is the number people care about.
	if !s.ExpiresAt().Equal(a.ExpiresAt()) {
		add("expires_at", stamp(s.ExpiresAt())+" -> "+stamp(a.ExpiresAt()))
	}
	if s.Signature != a.Signature {
		add("signature", "changed")
	}
	for _, f := range a.Foreign {
		add("job", f)
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

func optQuote(v string, ok bool) string {
	if !ok {
		return "(unset)"
	}
	return strconv.Quote(v)
}

func jsonList(l []string) string {
	if l == nil {
		l = []string{}
	}
	b, _ := json.Marshal(l) // a []string always marshals
	return string(b)
}

func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }
