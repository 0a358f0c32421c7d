// Package apifields walks the fields of Nomad's API job, for the guards
// that keep an allow-list complete: internal/instance (every field is
// modeled, Nomad's or refused) and internal/lease (every field is compared,
// Nomad's or filled by Nomad). A path is Go field names joined by dots,
// lists and maps transparent ("TaskGroups.Tasks.Config").
package apifields

import (
	"reflect"
	"slices"
	"strings"

	"github.com/hashicorp/nomad/api"
)

var apiPkg = reflect.TypeOf(api.Job{}).PkgPath()

// Composite reports whether t holds api structs a walk descends into.
func Composite(t reflect.Type) bool {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Map {
		t = t.Elem()
	}
	return t.Kind() == reflect.Struct && t.PkgPath() == apiPkg
}

// JoinPath appends a field name to a path.
func JoinPath(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// ParentPath is path without its last name ("" at the top).
func ParentPath(path string) string {
	i := strings.LastIndexByte(path, '.')
	if i < 0 {
		return ""
	}
	return path[:i]
}

// JobLeaves lists every field path reachable from api.Job, down to leaves
// (scalars, maps and lists of scalars). Fields Nomad's API never carries
// (json:"-") are left out; a type met again on its own path (a cycle) is a
// leaf, so the path itself must be covered.
func JobLeaves() []string {
	var out []string
	var walk func(t reflect.Type, path string, seen map[reflect.Type]bool)
	walk = func(t reflect.Type, path string, seen map[reflect.Type]bool) {
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			if !f.IsExported() || f.Tag.Get("json") == "-" {
				continue
			}
			p := JoinPath(path, f.Name)
			if !Composite(f.Type) {
				out = append(out, p)
				continue
			}
			e := f.Type
			for e.Kind() == reflect.Pointer || e.Kind() == reflect.Slice || e.Kind() == reflect.Map {
				e = e.Elem()
			}
			if seen[e] {
				out = append(out, p)
				continue
			}
			seen[e] = true
			walk(e, p, seen)
			delete(seen, e)
		}
	}
	job := reflect.TypeOf(api.Job{})
	walk(job, "", map[reflect.Type]bool{job: true})
	return out
}

// Uncovered checks a table of rules keyed by path against JobLeaves. The
// rule nearest a leaf (the leaf's own, else its closest ancestor's) decides
// whether it covers the leaf; uncovered lists the leaves no rule covers,
// stale the rules that name no field (after a Nomad upgrade, say).
func Uncovered[R any](rules map[string]R, covers func(rulePath, leaf string, rule R) bool) (uncovered, stale []string) {
	used := map[string]bool{}
	for _, leaf := range JobLeaves() {
		covered := false
		for p := leaf; p != ""; p = ParentPath(p) {
			r, ok := rules[p]
			if !ok {
				continue
			}
			used[p] = true
			covered = covers(p, leaf, r)
			break
		}
		if !covered {
			uncovered = append(uncovered, leaf)
		}
	}
	for p := range rules {
		if !used[p] {
			stale = append(stale, p)
		}
	}
	slices.Sort(stale)
	return uncovered, stale
}
