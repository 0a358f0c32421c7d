package jobspec

import (
	"encoding/json"
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
// label (groups, tasks) are matched by their label, other lists of blocks
// element by element, constraints as a set (Nomad adds its own), maps and
// lists of values whole. want and live must both be as Nomad's JSON API carries
// them (Parse returns that).
func Drift(want, live *api.Job) []string {
	var out []string
	walk(&out, nil, reflect.ValueOf(asNomadHolds(want)), reflect.ValueOf(withDefaultIdentities(live)))
	return out
}

// withDefaultIdentities is job with each task's default workload identity
// (the `identity` block without a name, or named "default", which Nomad
// keeps apart from the others) first among its identities, named
// "default": so it is compared as the others are, by name. job is not
// modified.
func withDefaultIdentities(job *api.Job) *api.Job {
	if job == nil {
		return nil
	}
	j := *job
	j.TaskGroups = make([]*api.TaskGroup, len(job.TaskGroups))
	for i, g := range job.TaskGroups {
		tg := *g
		tg.Tasks = make([]*api.Task, len(g.Tasks))
		for k, t := range g.Tasks {
			task := *t
			if t.Identity != nil {
				id := *t.Identity
				if id.Name == "" {
					id.Name = "default"
				}
				task.Identities = append([]*api.WorkloadIdentity{&id}, t.Identities...)
			}
			tg.Tasks[k] = &task
		}
		j.TaskGroups[i] = &tg
	}
	return &j
}

// asNomadHolds moves what the jobspec sets where Nomad keeps it once
// registered: a job-level update, migrate or reschedule block is folded
// into every group (a group's own values win), leaving only the job-wide
// stagger and max_parallel of update at the job level; a task's
// resources.disk (the pre-0.5 spelling) becomes the group's ephemeral
// disk, compared as if the jobspec did not set it (what Nomad drops
// altogether is in notKept); a service's
// check_restart goes into each of its checks. want is not modified.
func asNomadHolds(want *api.Job) *api.Job {
	want = withDefaultIdentities(want)
	j := *want
	j.TaskGroups = make([]*api.TaskGroup, len(want.TaskGroups))
	for i, g := range want.TaskGroups {
		tg := *g
		if want.Update != nil {
			u := want.Update.Copy()
			u.Merge(g.Update)
			tg.Update = u
		}
		if want.Reschedule != nil {
			r := want.Reschedule.Copy()
			r.Merge(g.ReschedulePolicy)
			tg.ReschedulePolicy = r
		}
		if want.Migrate != nil {
			m := want.Migrate.Copy()
			if g.Migrate != nil {
				m.Merge(g.Migrate) // unlike UpdateStrategy's, it takes no nil
			}
			tg.Migrate = m
		}
		tg.Services = servicesAsNomadHolds(g.Services)
		tg.Tasks = make([]*api.Task, len(g.Tasks))
		for k, t := range g.Tasks {
			task := *t
			task.Services = servicesAsNomadHolds(t.Services)
			if t.Resources != nil && t.Resources.DiskMB != nil {
				r := *t.Resources
				r.DiskMB = nil
				task.Resources = &r
			}
			tg.Tasks[k] = &task
		}
		j.TaskGroups[i] = &tg
	}
	if want.Update != nil {
		j.Update = &api.UpdateStrategy{Stagger: want.Update.Stagger, MaxParallel: want.Update.MaxParallel}
	}
	j.Migrate, j.Reschedule = nil, nil
	return &j
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
			if !ok || !kept(want.Type(), want.Type().Field(i).Name) {
				continue
			}
			var lf reflect.Value
			if live.IsValid() {
				lf = live.Field(i)
			}
			if isSensitive(want.Type(), want.Type().Field(i).Name) {
				if want.Field(i).Len() > 0 {
					compareShown(out, append(at, name), want.Field(i), lf, true)
				}
				continue
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
		if key, ok := keyedBy[want.Type().Elem()]; ok {
			walkKeyed(out, at, key, want, live)
			return
		}
		if implied[at[len(at)-1]] {
			walkSubset(out, at, want, live)
			return
		}
		if isBlock(want.Type().Elem()) && live.IsValid() && live.Len() == want.Len() {
			// Unlabeled blocks (network, service, template, …): element by
			// element, so what Nomad fills in inside each does not count.
			last := len(at) - 1
			for i := range want.Len() {
				here := append(slices.Clone(at[:last]), fmt.Sprintf("%s[%d]", at[last], i))
				walk(out, here, want.Index(i), live.Index(i))
			}
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
		if want.Kind() == reflect.String && strings.HasSuffix(at[len(at)-1], "signal") && live.IsValid() &&
			strings.EqualFold(want.String(), live.String()) {
			return // Nomad spells signals in capitals
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

// walkKeyed matches blocks by their field key (keyedBy): each of want's
// must be in live; live's others are Nomad's own.
func walkKeyed(out *[]string, at []string, key string, want, live reflect.Value) {
	keyOf := func(v reflect.Value) string { return fmt.Sprint(reflect.Indirect(v).FieldByName(key).Interface()) }
	block := at[len(at)-1]
	for i := range want.Len() {
		k := keyOf(want.Index(i))
		here := append(slices.Clone(at[:len(at)-1]), fmt.Sprintf("%s %q", block, k))
		var got reflect.Value
		for n := 0; live.IsValid() && n < live.Len() && !got.IsValid(); n++ {
			if !live.Index(n).IsNil() && keyOf(live.Index(n)) == k {
				got = live.Index(n)
			}
		}
		if !got.IsValid() {
			*out = append(*out, path(here)+": missing in Nomad")
			continue
		}
		walk(out, here, want.Index(i), got)
	}
}

// compare reports want and live when they differ.
func compare(out *[]string, at []string, want, live reflect.Value) {
	compareShown(out, at, want, live, false)
}

// compareShown is compare; sensitive says want and live are values of a
// sensitive field (drift_sensitive.go), shown by their keys alone.
func compareShown(out *[]string, at []string, want, live reflect.Value, sensitive bool) {
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
	was, is := show(hideIn(live, sensitive)), show(hideIn(want, sensitive))
	if was == is {
		is += " " + sensitiveChanged
	}
	*out = append(*out, fmt.Sprintf("%s: %s → %s", path(at), was, is))
}

func hideIn(v reflect.Value, sensitive bool) reflect.Value {
	if !v.IsValid() {
		return v
	}
	return hideSensitive(v, sensitive)
}

// path joins names: blocks with a " / ", a block's attributes with "."; a
// map key written as ".key" follows its map as it is.
func path(at []string) string {
	var b strings.Builder
	for i, n := range at {
		switch {
		case i == 0 || strings.HasPrefix(n, "."):
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
	if !v.IsValid() || ((v.Kind() == reflect.Slice || v.Kind() == reflect.Map) && v.IsNil()) {
		return "(unset)"
	}
	if v.Kind() == reflect.String {
		return fmt.Sprintf("%q", v.String())
	}
	if d, ok := v.Interface().(time.Duration); ok {
		return d.String()
	}
	switch v.Kind() {
	case reflect.Slice, reflect.Map, reflect.Struct:
		if b, err := json.Marshal(v.Interface()); err == nil {
			return string(b)
		}
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

// implied are the blocks Nomad adds to on its own (a constraint for a
// kill signal, a CNI plugin, a service provider's Nomad version): each one
// the jobspec sets must be in Nomad, and those Nomad added are not drift.
var implied = map[string]bool{"constraint": true}

// walkSubset reports the entries of want that live lacks.
func walkSubset(out *[]string, at []string, want, live reflect.Value) {
	for i := range want.Len() {
		w := want.Index(i).Interface()
		found := false
		for k := 0; live.IsValid() && k < live.Len() && !found; k++ {
			found = reflect.DeepEqual(w, live.Index(k).Interface())
		}
		if !found {
			*out = append(*out, fmt.Sprintf("%s: %s missing in Nomad", path(at), show(want.Index(i))))
		}
	}
}

// servicesAsNomadHolds folds a service's check_restart into each of its
// checks (a check's own values win), as Nomad does.
func servicesAsNomadHolds(services []*api.Service) []*api.Service {
	out := make([]*api.Service, len(services))
	for i, svc := range services {
		s := *svc
		if svc.CheckRestart != nil {
			s.Checks = make([]api.ServiceCheck, len(svc.Checks))
			for k, c := range svc.Checks {
				c.CheckRestart = svc.CheckRestart.Merge(c.CheckRestart)
				s.Checks[k] = c
			}
			s.CheckRestart = nil
		}
		out[i] = &s
	}
	return out
}

// isBlock reports a struct type (or a pointer to one): a block.
func isBlock(t reflect.Type) bool {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t.Kind() == reflect.Struct
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
