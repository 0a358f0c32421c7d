package lease

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/nomad/api"

	"github.com/berthhq/terraform-provider-berth/internal/apifields"
)

// compareJob names every field where live, the lease job as Nomad holds
// it, differs from want, the job BuildJob writes for the lease read from
// live, under leaseFields: e.g. `group "lease" shutdown_delay is 8760h,
// berth writes none`. Both are compared as Nomad stores them (through
// JSON and canonicalised), so a default Nomad fills in either way is not a
// difference.
func compareJob(live, want *api.Job) []string {
	c := &comparer{}
	c.walkStruct(reflect.ValueOf(normalize(live)).Elem(), reflect.ValueOf(normalize(want)).Elem(), "", "job")
	return c.found
}

// normalize is a copy of j as Nomad hands it back: driver config lists
// are []any, numbers float64, and unset fields carry Nomad's defaults.
func normalize(j *api.Job) *api.Job {
	var out api.Job
	raw, err := json.Marshal(j)
	if err == nil {
		err = json.Unmarshal(raw, &out)
	}
	if err != nil {
		// An api.Job always round-trips; compare as is if it ever does not.
		out = *j
	}
	out.Canonicalize()
	return &out
}

type comparer struct{ found []string }

func (c *comparer) add(format string, args ...any) {
	c.found = append(c.found, fmt.Sprintf(format, args...))
}

func (c *comparer) walkStruct(live, want reflect.Value, path, where string) {
	t := live.Type()
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() || f.Tag.Get("json") == "-" {
			continue // never part of Nomad's API
		}
		c.field(live.Field(i), want.Field(i), apifields.JoinPath(path, f.Name), where, hclName(f))
	}
}

func (c *comparer) field(live, want reflect.Value, path, where, name string) {
	rule, ok := leaseFields[path]
	switch {
	case ok && rule.kind == fieldNomads:
	case ok && rule.kind == fieldMetaKeys:
		meta, _ := live.Interface().(map[string]string)
		for _, k := range sortedKeys(meta) {
			if !slices.Contains(JobMetaKeys, k) {
				c.add("%s meta key %q is set, berth writes none", where, k)
			}
		}
	case ok && rule.kind == fieldFilled:
		if rule.own != nil {
			live = rule.own(live)
		}
		if !same(live, want) && (rule.accept == nil || !rule.accept(live, want)) {
			c.differ(live, want, where, name)
		}
	case ok || !apifields.Composite(live.Type()):
		if !same(live, want) {
			c.differ(live, want, where, name)
		}
	default:
		c.descend(live, want, path, where, name)
	}
}

// descend compares a block berth writes into: a struct field by field,
// a list element by element, matched by name (or label, or position).
func (c *comparer) descend(live, want reflect.Value, path, where, name string) {
	switch live.Kind() {
	case reflect.Pointer:
		if !live.IsNil() || !want.IsNil() {
			c.walkStruct(elemOrZero(live), elemOrZero(want), path, where+" "+name)
		}
	case reflect.Struct:
		c.walkStruct(live, want, path, where+" "+name)
	case reflect.Slice:
		wantByKey := map[string]reflect.Value{}
		var order []string
		for i := 0; i < want.Len(); i++ {
			k := elementKey(want.Index(i), i)
			wantByKey[k] = want.Index(i)
			order = append(order, k)
		}
		seen := map[string]bool{}
		for i := 0; i < live.Len(); i++ {
			k := elementKey(live.Index(i), i)
			w, ok := wantByKey[k]
			if !ok || seen[k] {
				c.add("%s has %s %s, berth writes none", where, name, k)
				continue
			}
			seen[k] = true
			c.walkStruct(reflect.Indirect(live.Index(i)), reflect.Indirect(w), path, elementWhere(where, name, k))
		}
		for _, k := range order {
			if !seen[k] {
				c.add("%s has no %s %s, berth writes one", where, name, k)
			}
		}
	}
}

func elemOrZero(v reflect.Value) reflect.Value {
	if v.IsNil() {
		return reflect.New(v.Type().Elem()).Elem()
	}
	return v.Elem()
}

// elementKey names a list element by its Name or Label, quoted, else by
// its position from 1.
func elementKey(v reflect.Value, i int) string {
	e := reflect.Indirect(v)
	if e.IsValid() && e.Kind() == reflect.Struct {
		for _, field := range []string{"Name", "Label"} {
			if n := reflect.Indirect(e.FieldByName(field)); n.IsValid() && n.Kind() == reflect.String && n.String() != "" {
				return strconv.Quote(n.String())
			}
		}
	}
	return strconv.Itoa(i + 1)
}

func elementWhere(where, name, key string) string {
	if where == "job" {
		return name + " " + key
	}
	return where + " " + name + " " + key
}

// differ reports one field that differs: a map key by key (without
// values, which may be secrets), anything else with both values.
func (c *comparer) differ(live, want reflect.Value, where, name string) {
	if live.Kind() == reflect.Map && live.Type().Key().Kind() == reflect.String {
		keys := map[string]bool{}
		for _, k := range live.MapKeys() {
			keys[k.String()] = true
		}
		for _, k := range want.MapKeys() {
			keys[k.String()] = true
		}
		for _, k := range sortedKeys(keys) {
			lv, wv := live.MapIndex(reflect.ValueOf(k)), want.MapIndex(reflect.ValueOf(k))
			switch {
			case !wv.IsValid():
				c.add("%s %s key %q is set, berth writes none", where, name, k)
			case !lv.IsValid():
				c.add("%s %s key %q is missing, berth writes it", where, name, k)
			case !same(lv, wv):
				c.add("%s %s key %q differs from what berth writes", where, name, k)
			}
		}
		return
	}
	c.add("%s %s is %s, berth writes %s", where, name, show(live), show(want))
}

// show formats a value for a message: scalars as written, blocks only as
// set (they may hold credentials), "none" for nothing.
func show(v reflect.Value) string {
	for v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface {
		if v.IsNil() {
			return "none"
		}
		v = v.Elem()
	}
	if d, ok := v.Interface().(time.Duration); ok {
		if d == 0 {
			return "none"
		}
		return shortDuration(d)
	}
	switch v.Kind() {
	case reflect.String:
		if v.String() == "" {
			return "none"
		}
		s := v.String()
		if len(s) > 80 {
			s = s[:77] + "..."
		}
		return strconv.Quote(s)
	case reflect.Bool, reflect.Int, reflect.Int64, reflect.Uint64, reflect.Float64:
		return fmt.Sprint(v.Interface())
	case reflect.Slice:
		if v.Len() == 0 {
			return "none"
		}
		if cs, ok := v.Interface().([]*api.Constraint); ok {
			parts := make([]string, 0, len(cs))
			for _, c := range cs {
				parts = append(parts, fmt.Sprintf("%s %s %q", c.LTarget, c.Operand, c.RTarget))
			}
			return "[" + strings.Join(parts, ", ") + "]"
		}
		if !apifields.Composite(v.Type()) {
			raw, _ := json.Marshal(v.Interface())
			return string(raw)
		}
		return fmt.Sprintf("%d blocks", v.Len())
	}
	if empty(v) {
		return "none"
	}
	return "set"
}

// shortDuration is d without trailing zero units: 8760h, 1m, 5s.
func shortDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// same reports whether two values mean the same to Nomad: an unset
// scalar equals its zero and an empty list or map equals none, but a
// block that is there is set, even when empty (periodic {}).
func same(a, b reflect.Value) bool {
	switch a.Kind() {
	case reflect.Pointer:
		if a.IsNil() != b.IsNil() {
			set := a
			if a.IsNil() {
				set = b
			}
			return set.Elem().Kind() != reflect.Struct && set.Elem().IsZero()
		}
		return a.IsNil() || same(a.Elem(), b.Elem())
	case reflect.Interface:
		if a.IsNil() || b.IsNil() {
			return a.IsNil() == b.IsNil()
		}
		return reflect.DeepEqual(a.Interface(), b.Interface())
	case reflect.Slice:
		if a.Len() != b.Len() {
			return false
		}
		for i := 0; i < a.Len(); i++ {
			if !same(a.Index(i), b.Index(i)) {
				return false
			}
		}
		return true
	case reflect.Map:
		if a.Len() != b.Len() {
			return false
		}
		for _, k := range a.MapKeys() {
			bv := b.MapIndex(k)
			if !bv.IsValid() || !same(a.MapIndex(k), bv) {
				return false
			}
		}
		return true
	case reflect.Struct:
		for i := 0; i < a.NumField(); i++ {
			if a.Type().Field(i).IsExported() && !same(a.Field(i), b.Field(i)) {
				return false
			}
		}
		return true
	default:
		return a.Equal(b)
	}
}

func empty(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		return v.IsNil()
	case reflect.Slice, reflect.Map:
		return v.Len() == 0
	default:
		return v.IsZero()
	}
}

// hclName names a field as a jobspec does (its hcl or mapstructure tag),
// else in snake case.
func hclName(f reflect.StructField) string {
	for _, tag := range []string{"hcl", "mapstructure"} {
		if name, _, _ := strings.Cut(f.Tag.Get(tag), ","); name != "" {
			return name
		}
	}
	var b strings.Builder
	for i, r := range f.Name {
		if r >= 'A' && r <= 'Z' {
			if i > 0 && f.Name[i-1] >= 'a' && f.Name[i-1] <= 'z' {
				b.WriteByte('_')
			}
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return b.String()
}
