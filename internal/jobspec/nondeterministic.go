package jobspec

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/hashicorp/nomad/api"
)

// A jobspec may call a function whose result differs on every parse
// (uuidv4(), the salt of bcrypt()): each parse is another job, so every
// refresh finds drift and every apply registers a new version. That is
// what the jobspec says, so berth does not hide it; it names the fields,
// so a user learns why at plan rather than by reading drift.

// DescribeUnstable is Describe, plus the fields whose values differ
// between two parses of s (nil when s parses to the same job twice),
// named as the jobspec names them, down to a map's key:
// `group "web" / task "app" / meta.run_id`. It costs one parse more than
// Describe.
func DescribeUnstable(s Spec, p Parser) (Summary, []string, error) {
	job, _, err := Parse(s, p)
	if err != nil {
		return Summary{}, nil, err
	}
	return summarize(job), unstableFields(s, p, job), nil
}

// unstableFields parses s again and names where it differs from first.
// Only HCL2 is evaluated: JSON is decoded, and the same text is the same
// job. A difference counts only when Drift would report it (what Drift
// ignores never shows in a plan); a second parse that fails names
// nothing: the apply's parse reports it.
func unstableFields(s Spec, p Parser, first *api.Job) []string {
	if s.FormatOf() != FormatHCL2 {
		return nil
	}
	second, _, err := Parse(s, p)
	if err != nil || len(Drift(first, second)) == 0 && len(Drift(second, first)) == 0 {
		return nil
	}
	var out []string
	differing(&out, nil, reflect.ValueOf(first), reflect.ValueOf(second))
	return out
}

// differing appends the names of the fields where a and b, two parses of
// one jobspec and so of one shape, differ. Unlike Drift (which compares
// a map or a list of values whole, as the apply writes it back), it goes
// down to the key, where the call is; it shows no value, as a
// non-deterministic one is noise and may be a secret (a bcrypt hash).
func differing(out *[]string, at []string, a, b reflect.Value) {
	for a.Kind() == reflect.Pointer || a.Kind() == reflect.Interface {
		if a.IsNil() || b.IsNil() {
			if a.IsNil() != b.IsNil() {
				*out = append(*out, path(at))
			}
			return
		}
		a, b = a.Elem(), b.Elem()
	}
	if a.Type() != b.Type() { // values of a map[string]any of another kind
		*out = append(*out, path(at))
		return
	}
	switch {
	case a.Kind() == reflect.Struct:
		for i := range a.NumField() {
			if name, ok := jobspecName(a.Type().Field(i)); ok {
				differing(out, append(slices.Clip(at), name), a.Field(i), b.Field(i))
			}
		}
	case a.Kind() == reflect.Slice && a.Len() == b.Len() && blockType(a.Type().Elem()):
		for i := range a.Len() {
			here := append(slices.Clone(at[:len(at)-1]), elementName(at[len(at)-1], i, a.Index(i)))
			differing(out, here, a.Index(i), b.Index(i))
		}
	case a.Kind() == reflect.Map:
		keys := map[string]reflect.Value{}
		for _, k := range append(a.MapKeys(), b.MapKeys()...) {
			keys[fmt.Sprint(k.Interface())] = k
		}
		names := make([]string, 0, len(keys))
		for name := range keys {
			names = append(names, name)
		}
		slices.Sort(names)
		for _, name := range names {
			va, vb := a.MapIndex(keys[name]), b.MapIndex(keys[name])
			if !va.IsValid() || !vb.IsValid() {
				*out = append(*out, path(append(slices.Clip(at), "."+name)))
				continue
			}
			differing(out, append(slices.Clip(at), "."+name), va, vb)
		}
	default:
		if !reflect.DeepEqual(a.Interface(), b.Interface()) {
			*out = append(*out, path(at))
		}
	}
}

// jobspecName is the name a jobspec gives field f (its hcl tag); false
// for fields a jobspec cannot set and for block labels.
func jobspecName(f reflect.StructField) (string, bool) {
	name, kind, _ := strings.Cut(f.Tag.Get("hcl"), ",")
	return name, name != "" && name != "-" && kind != "label"
}

// elementName names element i of a list of blocks: by its label
// (`group "web"`), or by its place (`template[0]`).
func elementName(block string, i int, v reflect.Value) string {
	for v.Kind() == reflect.Pointer && !v.IsNil() {
		v = v.Elem()
	}
	if v.Kind() == reflect.Struct {
		for k := range v.NumField() {
			if _, kind, _ := strings.Cut(v.Type().Field(k).Tag.Get("hcl"), ","); kind == "label" {
				return fmt.Sprintf("%s %q", block, fmt.Sprint(reflect.Indirect(v.Field(k)).Interface()))
			}
		}
	}
	return fmt.Sprintf("%s[%d]", block, i)
}

func blockType(t reflect.Type) bool {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t.Kind() == reflect.Struct
}
