package jobspec

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/hashicorp/nomad/api"
)

// A cluster newer than berth's nomad/api knows fields the api structs do
// not: decoding its job into an api.Job would drop them, and registering
// that job would delete them from Nomad. So every job berth parses or
// reads keeps, beside its api.Job, the fields the structs dropped
// (Extras), and every job berth sends is the api.Job with those fields put
// back (Encode): no field is lost whatever the cluster's version.

// Extra is one field of Nomad's JSON of a job that the api structs do not
// hold.
type Extra struct {
	// Path leads from the job object to the field: object keys as
	// strings, list positions as ints.
	Path []any
	// Name is the field as berth names it to users, blocks by their
	// label: `group "web" / task "app" / Secrets`.
	Name string
	// Value is the field's JSON.
	Value json.RawMessage
}

// Extras are the fields of a job that the api structs do not hold.
type Extras []Extra

// Names lists the extras' names, for a diagnostic.
func (x Extras) Names() []string {
	out := make([]string, len(x))
	for i, e := range x {
		out[i] = e.Name
	}
	return out
}

// splitJob decodes raw, Nomad's JSON of a job, into an api.Job and the
// fields the api.Job cannot hold.
func splitJob(raw []byte) (*api.Job, Extras, error) {
	var job api.Job
	if err := json.Unmarshal(raw, &job); err != nil {
		return nil, nil, fmt.Errorf("decoding the job: %w", err)
	}
	extra, err := extrasOf(raw, &job)
	return &job, extra, err
}

// SplitJob is splitJob for the layers that read a job's JSON from Nomad.
func SplitJob(raw []byte) (*api.Job, Extras, error) { return splitJob(raw) }

// extrasOf lists what raw holds that job, decoded from it, does not.
func extrasOf(raw []byte, job *api.Job) (Extras, error) {
	known, err := json.Marshal(job)
	if err != nil {
		return nil, err
	}
	var rawTree, knownTree any
	if err := decodeTree(raw, &rawTree); err != nil {
		return nil, err
	}
	if err := decodeTree(known, &knownTree); err != nil {
		return nil, err
	}
	var out Extras
	collectExtras(&out, nil, nil, rawTree, knownTree)
	return out, nil
}

func decodeTree(b []byte, into *any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	return dec.Decode(into)
}

func collectExtras(out *Extras, path []any, names []string, raw, known any) {
	switch r := raw.(type) {
	case map[string]any:
		k, _ := known.(map[string]any)
		for _, key := range sortedKeys(r) {
			v := r[key]
			kv, held := k[key]
			if !held || k == nil {
				if v == nil {
					continue // a null the structs would also leave out
				}
				value, _ := json.Marshal(v)
				*out = append(*out, Extra{Path: append(slices.Clone(path), key), Name: joinName(append(slices.Clone(names), key)),
					Value: value})
				continue
			}
			collectExtras(out, append(path, key), append(names, key), v, kv)
		}
	case []any:
		k, _ := known.([]any)
		if len(k) != len(r) {
			return
		}
		// An element's name takes its list's place: `group "web"`, not
		// `TaskGroups / group "web"`.
		base := names
		if len(base) > 0 {
			base = base[:len(base)-1]
		}
		for i, v := range r {
			collectExtras(out, append(path, i), append(slices.Clone(base), listElementName(path, i, v)), v, k[i])
		}
	}
}

// listElementName names a list element: a group or a task by its label,
// others by their position.
func listElementName(path []any, i int, v any) string {
	var field string
	if len(path) > 0 {
		field, _ = path[len(path)-1].(string)
	}
	if m, ok := v.(map[string]any); ok {
		if label, ok := m["Name"].(string); ok && label != "" {
			switch field {
			case "TaskGroups":
				return fmt.Sprintf("group %q", label)
			case "Tasks":
				return fmt.Sprintf("task %q", label)
			default:
				return fmt.Sprintf("%s %q", field, label)
			}
		}
	}
	return fmt.Sprintf("%s[%d]", field, i)
}

// joinName writes a name path.
func joinName(names []string) string { return strings.Join(names, " / ") }

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// Encode is job as Nomad's JSON with extra put back where it was: what
// berth sends to register, plan or validate the job. An extra whose place
// no longer exists in job (a group berth removed) is left out.
func Encode(job *api.Job, extra Extras) (json.RawMessage, error) {
	b, err := json.Marshal(job)
	if err != nil || len(extra) == 0 {
		return b, err
	}
	var tree any
	if err := decodeTree(b, &tree); err != nil {
		return nil, err
	}
	for _, e := range extra {
		var v any
		if err := decodeTree(e.Value, &v); err != nil {
			return nil, err
		}
		putAt(tree, e.Path, v)
	}
	return json.Marshal(tree)
}

func putAt(tree any, path []any, v any) {
	for i, step := range path {
		last := i == len(path)-1
		switch s := step.(type) {
		case string:
			m, ok := tree.(map[string]any)
			if !ok {
				return
			}
			if last {
				m[s] = v
				return
			}
			tree = m[s]
		case int:
			l, ok := tree.([]any)
			if !ok || s >= len(l) {
				return
			}
			tree = l[s]
		}
	}
}

// ExtraDrift lists where live's extras differ from want's, for what want
// sets: one line per field, Nomad's value first (as Drift does).
func ExtraDrift(want, live Extras) []string {
	held := map[string]json.RawMessage{}
	for _, e := range live {
		held[e.Name] = e.Value
	}
	var out []string
	for _, e := range want {
		have, ok := held[e.Name]
		if ok && sameJSON(have, e.Value) {
			continue
		}
		from := "(not set)"
		if ok {
			from = string(have)
		}
		out = append(out, fmt.Sprintf("%s: %s → %s", e.Name, from, e.Value))
	}
	return out
}

func sameJSON(a, b json.RawMessage) bool {
	var x, y any
	if decodeTree(a, &x) != nil || decodeTree(b, &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

// FilledByNomad reports whether e is a field Nomad's server fills in
// itself from the rest of job, so that no user set it: a service's
// Namespace, which Nomad copies from the job's (Nomad 1.10 and 1.11 carry
// it in a job's JSON; the api structs do not hold it). What is listed
// here is accepted; every other extra is a setting of someone's.
func (e Extra) FilledByNomad(job *api.Job) bool {
	n := len(e.Path)
	if n < 3 || e.Path[n-1] != "Namespace" || e.Path[n-3] != "Services" {
		return false
	}
	var v string
	if json.Unmarshal(e.Value, &v) != nil {
		return false
	}
	ns := "default"
	if job != nil && job.Namespace != nil && *job.Namespace != "" {
		ns = *job.Namespace
	}
	return v == ns || v == ""
}
