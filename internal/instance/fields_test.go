package instance

import (
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"
)

// apiLeaves lists every field path reachable from api.Job, as jobFields
// spells them: Go field names joined by dots, lists and maps transparent,
// down to leaves (scalars, maps and lists of scalars). Fields Nomad's API
// never carries (json:"-") are left out.
func apiLeaves() []string {
	var out []string
	var walk func(t reflect.Type, path string, seen map[reflect.Type]bool)
	walk = func(t reflect.Type, path string, seen map[reflect.Type]bool) {
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			if !f.IsExported() || f.Tag.Get("json") == "-" {
				continue
			}
			p := joinPath(path, f.Name)
			if !composite(f.Type) {
				out = append(out, p)
				continue
			}
			e := f.Type
			for e.Kind() == reflect.Pointer || e.Kind() == reflect.Slice || e.Kind() == reflect.Map {
				e = e.Elem()
			}
			if seen[e] {
				out = append(out, p) // a cycle: the path itself must be covered
				continue
			}
			seen[e] = true
			walk(e, p, seen)
			delete(seen, e)
		}
	}
	walk(reflect.TypeOf(api.Job{}), "", map[reflect.Type]bool{reflect.TypeOf(api.Job{}): true})
	return out
}

// uncoveredFields returns the api.Job fields rules says nothing about, and
// the rules that name no field (stale after a Nomad upgrade) or that mark
// a non-leaf as modeled (a field added inside it would be dropped).
func uncoveredFields(rules map[string]fieldRule) (uncovered, stale []string) {
	leaves := apiLeaves()
	used := map[string]bool{}
	for _, leaf := range leaves {
		covered := false
		for p := leaf; p != ""; p = parentPath(p) {
			r, ok := rules[p]
			if !ok {
				continue
			}
			used[p] = true
			covered = p == leaf || r.handling != fieldModeled
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

func parentPath(p string) string {
	i := strings.LastIndexByte(p, '.')
	if i < 0 {
		return ""
	}
	return p[:i]
}

// TestJobFieldsCoverEveryAPIField is the guard of "modeled or refused,
// never dropped": every field of api.Job, at any depth, is in jobFields.
func TestJobFieldsCoverEveryAPIField(t *testing.T) {
	leaves := apiLeaves()
	if len(leaves) < 500 {
		t.Fatalf("walked %d api.Job fields; the walk is broken", len(leaves))
	}
	uncovered, stale := uncoveredFields(jobFields)
	for _, f := range uncovered {
		t.Errorf("api.Job field %s is neither modeled, Nomad's nor refused: add it to jobFields", f)
	}
	for _, p := range stale {
		t.Errorf("jobFields names %s, which api.Job does not have", p)
	}
	counts := map[fieldHandling]int{}
	for _, r := range jobFields {
		counts[r.handling]++
	}
	t.Logf("%d api.Job fields; rules: %d modeled, %d Nomad's, %d refused", len(leaves), counts[fieldModeled], counts[fieldNomads], counts[fieldRefused])
}

// The guard fails, naming the field, when one is in neither list.
func TestJobFieldsGuardNamesAMissingField(t *testing.T) {
	for _, missing := range []string{"TaskGroups.Tasks.Leader", "TaskGroups.Tasks.Resources.CPU", "TaskGroups.Meta"} {
		rules := mergeRules(jobFields)
		delete(rules, missing)
		uncovered, _ := uncoveredFields(rules)
		if !slices.Equal(uncovered, []string{missing}) {
			t.Errorf("without %s, uncovered = %q", missing, uncovered)
		}
	}
	// A modeled rule on a block (not a leaf) does not cover the block's
	// fields: a field Nomad adds inside it would be dropped.
	rules := mergeRules(jobFields, map[string]fieldRule{"TaskGroups.Disconnect": modeled})
	if uncovered, _ := uncoveredFields(rules); len(uncovered) == 0 {
		t.Error("a modeled non-leaf covered its fields")
	}
	rules = mergeRules(jobFields, map[string]fieldRule{"TaskGroups.Nope": refused})
	if _, stale := uncoveredFields(rules); !slices.Equal(stale, []string{"TaskGroups.Nope"}) {
		t.Errorf("stale = %q", stale)
	}
}

// A job berth builds, as Nomad returns it, holds nothing refused.
func TestRefusedFieldsNoneInBerthsJobs(t *testing.T) {
	for name, spec := range map[string]Spec{"full": fullSpec(), "minimal": minimalSpec()} {
		if got := refusedFields(simulateNomad(t, BuildJob(spec, 1))); len(got) > 0 {
			t.Errorf("%s: refused %q", name, got)
		}
	}
}

func TestRefusedFieldsNamesEachField(t *testing.T) {
	job := simulateNomad(t, BuildJob(fullSpec(), 1))
	g := job.TaskGroups[0]
	job.AllAtOnce = ptr(true)
	g.Meta = map[string]string{"team": "a"}
	g.Disconnect = &api.DisconnectStrategy{LostAfter: ptr(time.Minute)}
	g.PreventRescheduleOnLost = ptr(true) //nolint:staticcheck // still in api.TaskGroup, so still refused
	task(job, "web").Leader = true
	task(job, "web").Identity = &api.WorkloadIdentity{Name: "default", Audience: []string{"nomadproject.io"}, Env: true}
	task(job, "proxy").Identity = &api.WorkloadIdentity{Name: "default", Audience: []string{"nomadproject.io"}} // Nomad's default
	task(job, "web").Services[0].Checks[0].Advertise = "10.0.0.1"
	got := refusedFields(job)
	grp := `group "` + *g.Name + `"`
	want := []string{
		"job sets all_at_once",
		grp + " sets disconnect",
		grp + " sets meta",
		grp + " sets prevent_reschedule_on_lost",
		grp + ` task "web" sets leader`,
		grp + ` task "web" sets identity`,
		grp + ` task "web" service "shop-web" check ` + strconv.Quote(task(job, "web").Services[0].Checks[0].Name) + ` sets advertise`,
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("refused:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
