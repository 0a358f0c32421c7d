package jobspec

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/hashicorp/nomad/api"
)

// Drift lists where live differs from want in what want sets, one line
// per field, named as the jobspec names it: `group "web" / task "app" /
// resources.memory: 256 → 512` (Nomad's value first, then the jobspec's).
//
// Only what the jobspec sets is compared, so a field Nomad fills in (a
// default, an index, a status) never drifts, and any field the jobspec
// sets that differs in Nomad does. Fields are those with an `hcl` tag in
// Nomad's API types (what a jobspec can say); blocks that repeat with a
// label (groups, tasks) are matched by their label, other lists and maps
// compare whole. want and live must both be as Nomad's JSON API carries
// them (Parse returns that).
func Drift(want, live *api.Job) []string {
	var out []string
	walk(&out, nil, reflect.ValueOf(want), reflect.ValueOf(live))
	return out
}

func walk(out *[]string, at []string, want, live reflect.Value) {
	for want.Kind() == reflect.Pointer || want.Kind() == reflect.Interface {
		if want.IsNil() {
			return // not set by the jobspec
		}
		want = want.Elem()
		if live.IsValid() && (live.Kind() == reflect.Pointer || live.Kind() == reflect.Interface) {
			if live.IsNil() {
				live = reflect.Value{}
			} else {
				live = live.Elem()
			}
		}
	}
	switch want.Kind() {
	case reflect.Struct:
		if want.Type() == reflect.TypeOf(time.Time{}) {
			compare(out, at, want, live)
			return
		}
		for i := range want.NumField() {
			name, ok := hclName(want.Type().Field(i))
			if !ok {
				continue
			}
			var lf reflect.Value
			if live.IsValid() {
				lf = live.Field(i)
			}
			walk(out, append(at, name), want.Field(i), lf)
		}
	case reflect.Slice:
		if want.Len() == 0 {
			return // an empty list is what an unset one reads as
		}
		if labeled(want.Type().Elem()) {
			walkLabeled(out, at, want, live)
			return
		}
		compare(out, at, want, live)
	case reflect.Map:
		if want.Len() == 0 {
			return
		}
		compare(out, at, want, live)
	default:
		if want.IsZero() {
			return // a non-pointer zero value cannot be told from unset
		}
		compare(out, at, want, live)
	}
}

// walkLabeled matches blocks such as groups and tasks by their label.
func walkLabeled(out *[]string, at []string, want, live reflect.Value) {
	byLabel := map[string]reflect.Value{}
	if live.IsValid() {
		for i := range live.Len() {
			byLabel[label(live.Index(i))] = live.Index(i)
		}
	}
	block := at[len(at)-1]
	for i := range want.Len() {
		l := label(want.Index(i))
		here := append(slices.Clone(at[:len(at)-1]), fmt.Sprintf("%s %q", block, l))
		got, ok := byLabel[l]
		if !ok {
			*out = append(*out, strings.Join(here, " / ")+": missing in Nomad")
			continue
		}
		walk(out, here, want.Index(i), got)
	}
}

// compare reports want and live when they differ.
func compare(out *[]string, at []string, want, live reflect.Value) {
	var w, l any
	if want.IsValid() {
		w = want.Interface()
	}
	if live.IsValid() {
		l = live.Interface()
	}
	if reflect.DeepEqual(w, l) {
		return
	}
	*out = append(*out, fmt.Sprintf("%s: %s → %s", path(at), show(live), show(want)))
}

// path joins names: blocks with a " / ", a block's attributes with ".".
func path(at []string) string {
	var b strings.Builder
	for i, n := range at {
		switch {
		case i == 0:
		case strings.Contains(n, `"`) || strings.Contains(at[i-1], `"`):
			b.WriteString(" / ")
		default:
			b.WriteString(".")
		}
		b.WriteString(n)
	}
	return b.String()
}

func show(v reflect.Value) string {
	for v.IsValid() && (v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface) {
		if v.IsNil() {
			return "(unset)"
		}
		v = v.Elem()
	}
	if !v.IsValid() {
		return "(unset)"
	}
	if v.Kind() == reflect.String {
		return fmt.Sprintf("%q", v.String())
	}
	if d, ok := v.Interface().(time.Duration); ok {
		return d.String()
	}
	return fmt.Sprintf("%v", v.Interface())
}

// hclName is the name a jobspec gives field f; false for fields a jobspec
// cannot set (no hcl tag) and for block labels.
func hclName(f reflect.StructField) (string, bool) {
	tag, ok := f.Tag.Lookup("hcl")
	if !ok {
		return "", false
	}
	name, kind, _ := strings.Cut(tag, ",")
	if name == "" || kind == "label" || name == "-" {
		return "", false
	}
	return name, true
}

// labeled reports a block type with a label (hcl:"…,label"), such as a
// group or a task, whose instances are matched by it.
func labeled(t reflect.Type) bool {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return false
	}
	for i := range t.NumField() {
		if _, kind, _ := strings.Cut(t.Field(i).Tag.Get("hcl"), ","); kind == "label" {
			return true
		}
	}
	return false
}

func label(v reflect.Value) string {
	for v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return ""
		}
		v = v.Elem()
	}
	for i := range v.NumField() {
		if _, kind, _ := strings.Cut(v.Type().Field(i).Tag.Get("hcl"), ","); kind == "label" {
			return fmt.Sprint(reflect.Indirect(v.Field(i)).Interface())
		}
	}
	return ""
}
