// Package drift lists the differences between two values of one plain-Go
// struct type, field by field, named by their `tf` tags: the one drift
// mechanism behind berth_instance's and berth_reservation's "changed
// outside Terraform" messages. A new tagged field is compared, and named,
// by its tag alone.
package drift

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Unset is how a map entry or pointer that exists on one side only reads.
const Unset = "(unset)"

// Sensitive stands for the value of a field tagged `diff:"sensitive"` (of
// each entry, for a map: its keys are shown), and SensitiveChanged ends a
// line whose only difference is in such values.
const (
	Sensitive        = "(sensitive value)"
	SensitiveChanged = "(a sensitive value differs)"
)

var (
	durationType = reflect.TypeOf(time.Duration(0))
	timeType     = reflect.TypeOf(time.Time{})
)

// Diff lists the tagged fields that differ between a and b (values of one
// struct type), one line per field, as `path: <a> -> <b>`, e.g.
// `services.web.env.LOG_LEVEL: "info" -> "debug"`. Fields are visited in
// declaration order, map entries by key, so the order is deterministic.
// Tags refine the comparison (see walk). nil when nothing differs.
func Diff(a, b any) []string {
	d := &differ{}
	d.walk("", reflect.ValueOf(a), reflect.ValueOf(b))
	return d.lines
}

// walk compares a and b, which have the same type, field by field. Struct
// fields are named by their `tf` tag (untagged fields are not compared) and
// visited in declaration order; maps are compared entry by entry in key
// order, an entry of structs on one side only being one "added"/"removed"
// line; a pointer to a struct likewise; a pointer to a plain value only when
// both sides set it (nil means "not managed", or "Nomad decides" inside a
// policy), unless its field is tagged `diff:"presence"`: then unset and set
// differ (nil means "Nomad's default", which a value may change), and
// skipped entirely when tagged `diff:"-"`; a slice is one line, since an
// element-wise diff of a reordered list would only be noise. A field tagged
// `diff:"sensitive"` (also inside a list's elements) is compared by its
// value but shown as sensitiveText. So a new field is compared, and named,
// by its tag alone.
func (d *differ) walk(at string, a, b reflect.Value) {
	if a.Type() == timeType {
		d.val(at, scalarText(a), scalarText(b))
		return
	}
	switch a.Kind() {
	case reflect.Struct:
		t := a.Type()
		for i := range t.NumField() {
			f := t.Field(i)
			name := f.Tag.Get("tf")
			if name == "" || f.Tag.Get("diff") == "-" {
				continue
			}
			if f.Tag.Get("diff") == "presence" && f.Type.Kind() == reflect.Pointer {
				d.val(join(at, name), pointerText(a.Field(i)), pointerText(b.Field(i)))
				continue
			}
			if f.Tag.Get("diff") == "sensitive" {
				d.shown(join(at, name), jsonText(a.Field(i).Interface()), jsonText(b.Field(i).Interface()),
					sensitiveText(a.Field(i)), sensitiveText(b.Field(i)))
				continue
			}
			if f.Tag.Get("diff") == "elements" && a.Field(i).Len() == b.Field(i).Len() {
				d.walkElements(join(at, name), a.Field(i), b.Field(i))
				continue
			}
			d.walk(join(at, name), a.Field(i), b.Field(i))
		}
		return
	case reflect.Pointer:
		if a.Type().Elem().Kind() == reflect.Struct {
			if !d.presence(at, !a.IsNil(), !b.IsNil()) && !a.IsNil() {
				d.walk(at, a.Elem(), b.Elem())
			}
		} else if !a.IsNil() && !b.IsNil() {
			d.walk(at, a.Elem(), b.Elem())
		}
		return
	case reflect.Map:
		d.walkMap(at, a, b)
		return
	case reflect.Slice:
		d.shown(at, listText(a, true), listText(b, true), listText(a, false), listText(b, false))
		return
	}
	d.val(at, scalarText(a), scalarText(b))
}

func (d *differ) walkMap(at string, a, b reflect.Value) {
	keys := map[string]bool{}
	for _, m := range []reflect.Value{a, b} {
		for _, k := range m.MapKeys() {
			keys[k.String()] = true
		}
	}
	nested := a.Type().Elem().Kind() == reflect.Struct
	for _, k := range slices.Sorted(maps.Keys(keys)) {
		key := reflect.ValueOf(k).Convert(a.Type().Key())
		va, vb := a.MapIndex(key), b.MapIndex(key)
		p := at + "." + k
		switch {
		case nested:
			if !d.presence(p, va.IsValid(), vb.IsValid()) {
				d.walk(p, va, vb)
			}
		default:
			d.val(p, optionalText(va), optionalText(vb))
		}
	}
}

// walkElements compares two lists of the same length element by element
// (fields tagged `diff:"elements"`), naming each element by its index.
func (d *differ) walkElements(at string, a, b reflect.Value) {
	for i := range a.Len() {
		d.walk(fmt.Sprintf("%s[%d]", at, i), a.Index(i), b.Index(i))
	}
}

func join(at, name string) string {
	if at == "" {
		return name
	}
	return at + "." + name
}

// pointerText formats a pointer to a plain value, unset when nil.
func pointerText(v reflect.Value) string {
	if v.IsNil() {
		return Unset
	}
	return scalarText(v.Elem())
}

func optionalText(v reflect.Value) string {
	if !v.IsValid() {
		return Unset
	}
	return scalarText(v)
}

// scalarText formats one value: strings quoted, durations as Go writes them,
// instants in RFC 3339 (UTC), anything else (driver config values) as compact JSON.
func scalarText(v reflect.Value) string {
	if v.Kind() == reflect.Interface {
		return jsonText(v.Interface())
	}
	if d, ok := v.Interface().(time.Duration); ok {
		return d.String()
	}
	if t, ok := v.Interface().(time.Time); ok {
		return t.UTC().Format(time.RFC3339)
	}
	switch v.Kind() {
	case reflect.String:
		return strconv.Quote(v.String())
	case reflect.Int, reflect.Int64, reflect.Int32:
		return strconv.FormatInt(v.Int(), 10)
	case reflect.Bool:
		return strconv.FormatBool(v.Bool())
	}
	return jsonText(v.Interface())
}

type differ struct {
	lines []string
}

// val records a difference between two already formatted values.
func (d *differ) val(path, a, b string) {
	if a != b {
		d.lines = append(d.lines, fmt.Sprintf("%s: %s -> %s", path, a, b))
	}
}

// shown records a difference found between a and b (formatted with every
// value) as showA and showB, which hide sensitive values; when hiding
// them makes the two read alike, the line says a sensitive value differs.
func (d *differ) shown(path, a, b, showA, showB string) {
	if a == b {
		return
	}
	if showA == showB {
		showB += " " + SensitiveChanged
	}
	d.lines = append(d.lines, fmt.Sprintf("%s: %s -> %s", path, showA, showB))
}

// presence records an object that exists on one side only and reports
// whether it did, in which case its fields are not compared.
func (d *differ) presence(path string, inA, inB bool) bool {
	switch {
	case inA && !inB:
		d.lines = append(d.lines, path+": removed")
	case !inA && inB:
		d.lines = append(d.lines, path+": added")
	default:
		return false
	}
	return true
}

// jsonText formats a value compactly; encoding/json sorts map keys, so equal
// values always format the same.
func jsonText(v any) string {
	raw, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%v", v)
	}
	return string(raw)
}

// listText formats a list as JSON, [] when empty since Normalize turns
// empty lists into nil; struct elements (also behind pointers) become
// objects with their `tf` names in declaration order, durations Go
// duration strings, and fields tagged `diff:"sensitive"` sensitiveText
// unless reveal (for comparing, never for showing).
func listText(l reflect.Value, reveal bool) string {
	parts := make([]string, 0, l.Len())
	for i := range l.Len() {
		parts = append(parts, elemJSON(l.Index(i), reveal))
	}
	return "[" + strings.Join(parts, ",") + "]"
}

// sensitiveText shows a sensitive value: a map as its keys, each with
// Sensitive for its value (a git SSH key or a token is in the value; the
// key says which option changed), anything else as Sensitive.
func sensitiveText(v reflect.Value) string {
	if v.Kind() != reflect.Map {
		return strconv.Quote(Sensitive)
	}
	if v.IsNil() {
		return "null"
	}
	keys := make([]string, 0, v.Len())
	for _, k := range v.MapKeys() {
		keys = append(keys, strconv.Quote(k.String())+":"+strconv.Quote(Sensitive))
	}
	slices.Sort(keys)
	return "{" + strings.Join(keys, ",") + "}"
}

func elemJSON(v reflect.Value, reveal bool) string {
	switch {
	case v.Kind() == reflect.Pointer && v.IsNil():
		return "null"
	case v.Kind() == reflect.Pointer:
		return elemJSON(v.Elem(), reveal)
	case v.Type() == durationType:
		return strconv.Quote(time.Duration(v.Int()).String())
	case v.Kind() != reflect.Struct:
		return jsonText(v.Interface())
	}
	var fields []string
	for i := range v.NumField() {
		f := v.Type().Field(i)
		name := f.Tag.Get("tf")
		switch {
		case name == "", f.Tag.Get("diff") == "-":
		case f.Tag.Get("diff") == "sensitive" && !reveal:
			fields = append(fields, strconv.Quote(name)+":"+sensitiveText(v.Field(i)))
		default:
			fields = append(fields, strconv.Quote(name)+":"+elemJSON(v.Field(i), reveal))
		}
	}
	return "{" + strings.Join(fields, ",") + "}"
}
