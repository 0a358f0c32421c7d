// Package variable holds berth's rules for Nomad Variables, as plain Go:
// what a Variable is (path, namespace, items, indexes), which paths Nomad
// accepts, how the items of berth_variable split into plain and secret
// ones, and how large they may be. It knows nothing of Terraform or of
// Nomad's API types.
package variable

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"time"
)

// DefaultNamespace is the namespace of a Variable that names none.
const DefaultNamespace = "default"

// MaxSize is the most a Variable's items may hold, keys and values
// together (Nomad's maxVariableSize).
const MaxSize = 64 * 1024

// Meta is what Nomad says of a Variable besides its items.
type Meta struct {
	Namespace, Path          string
	CreateIndex, ModifyIndex uint64
	CreateTime, ModifyTime   time.Time
}

// Variable is a Nomad Variable: its metadata and its items.
type Variable struct {
	Meta
	Items map[string]string
}

// Keys are the item keys of v, sorted: what may be shown of a Variable
// whose values are secret.
func (v Variable) Keys() []string { return SortedKeys(v.Items) }

// SortedKeys returns the keys of m, sorted.
func SortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// pathChars is Nomad's rule for the characters and length of a path
// (nomad/structs validVariablePath).
var pathChars = regexp.MustCompile(`^[a-zA-Z0-9\-_~/]{1,128}$`)

// CheckPath reports whether Nomad accepts path, in Nomad's words where it
// has them: 1 to 128 of [a-zA-Z0-9-_~/], and under the reserved top-level
// "nomad" only nomad/jobs (and below) or nomad/job-templates/<name>.
func CheckPath(path string) error {
	if !pathChars.MatchString(path) {
		return fmt.Errorf("%q is not a Variable path Nomad accepts: it must be 1 to 128 characters, each a letter, digit, "+
			"'-', '_', '~' or '/'", path)
	}
	parts := strings.Split(path, "/")
	if parts[0] != "nomad" {
		return nil
	}
	switch {
	case len(parts) == 1:
		return fmt.Errorf(`"nomad" is a reserved top-level path; Variables may be written at "nomad/jobs", ` +
			`"nomad/job-templates/<name>" or below "nomad/jobs"`)
	case parts[1] == "jobs":
		return nil
	case parts[1] == "job-templates" && len(parts) == 3:
		return nil
	case parts[1] == "job-templates":
		return fmt.Errorf(`%q: under "nomad/job-templates" Nomad takes exactly one more path segment, `+
			`for example "nomad/job-templates/<name>"`, path)
	default:
		return fmt.Errorf(`%q: under the reserved top-level "nomad" only "nomad/jobs" (and below) and `+
			`"nomad/job-templates/<name>" are valid paths`, path)
	}
}

// CheckSecretPath is CheckPath for a Variable that holds a credential
// (berth_acl_token's secret_variable_path): it also refuses "nomad/jobs"
// and every path below it. Nomad lets workloads read those with no ACL
// policy at all: every job in the namespace reads "nomad/jobs", and job J
// reads "nomad/jobs/J" and below, so whoever may submit a job with a
// matching name would read the secret.
func CheckSecretPath(path string) error {
	if err := CheckPath(path); err != nil {
		return err
	}
	if path == "nomad/jobs" || strings.HasPrefix(path, "nomad/jobs/") {
		return fmt.Errorf(`%q is readable by workloads with no ACL policy: Nomad lets every job in the namespace `+
			`read "nomad/jobs", and a job read "nomad/jobs/<its name>" and below, so anyone who may submit a job `+
			`with a matching name would read this token's secret. Choose a path outside "nomad/jobs" and give it `+
			`an ACL policy of its own`, path)
	}
	return nil
}

// Size is what items count toward MaxSize: every key and value, in bytes.
func Size(items ...map[string]string) int {
	n := 0
	for _, m := range items {
		for k, v := range m {
			n += len(k) + len(v)
		}
	}
	return n
}

// Merge is the items to write: the plain items and the secret ones, which
// share no key (Overlap refuses that before anything is written).
func Merge(plain, secret map[string]string) map[string]string {
	out := make(map[string]string, len(plain)+len(secret))
	for k, v := range plain {
		out[k] = v
	}
	for k, v := range secret {
		out[k] = v
	}
	return out
}

// Overlap lists, sorted, the keys both maps hold.
func Overlap(plain, secret map[string]string) []string {
	var both []string
	for k := range secret {
		if _, ok := plain[k]; ok {
			both = append(both, k)
		}
	}
	sort.Strings(both)
	return both
}

// Classify divides the items Nomad holds into those whose values may be
// kept (plain) and those known by key only (secret, sorted). An item is
// plain only when known holds it with the same value: berth received that
// value as a plain item. Every other key is secret and its value dropped:
// the keys berth wrote write-only, and also the ones it cannot place
// (withheld, sorted): a key added in Nomad, a known key whose value
// changed. A write whose reply was lost, an import, or a write by someone
// else may have put a secret under any key, so only a value berth already
// had as plain is safe to store and show.
func Classify(items, known map[string]string, secretKeys []string) (plain map[string]string, secret, withheld []string) {
	isSecret := make(map[string]bool, len(secretKeys))
	for _, k := range secretKeys {
		isSecret[k] = true
	}
	plain = map[string]string{}
	for k, v := range items {
		switch was, ok := known[k]; {
		case isSecret[k]:
			secret = append(secret, k)
		case ok && was == v:
			plain[k] = v
		default:
			secret = append(secret, k)
			withheld = append(withheld, k)
		}
	}
	sort.Strings(secret)
	sort.Strings(withheld)
	return plain, secret, withheld
}

// Ref names a Variable: its namespace and path.
type Ref struct{ Namespace, Path string }

// ImportCandidates are the Variables an import ID may name, in the order
// to try them: "<namespace>/<path>" first, then the whole ID as a path in
// fallback's namespace. Paths hold slashes too, so "apps/db" is either the
// Variable "db" in namespace "apps" or "apps/db" in the default one; the
// importer takes the first that exists.
func ImportCandidates(id, fallback string) []Ref {
	first, rest, ok := strings.Cut(id, "/")
	if !ok || first == "" || rest == "" {
		return []Ref{{Namespace: fallback, Path: id}}
	}
	return []Ref{{Namespace: first, Path: rest}, {Namespace: fallback, Path: id}}
}
