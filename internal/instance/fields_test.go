package instance

import (
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"

	"github.com/berthhq/terraform-provider-berth/internal/apifields"
)

// TestJobFieldsCoverEveryAPIField is the guard of "modeled or refused,
// never dropped": every field of api.Job, at any depth, is in jobFields.
func TestJobFieldsCoverEveryAPIField(t *testing.T) {
	leaves := apifields.JobLeaves()
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

// uncoveredFields returns the api.Job leaves no rule covers (a rule covers
// its subtree unless it marks a non-leaf as modeled, where a field
// added inside would be dropped), and the rules that name no field.
func uncoveredFields(table map[string]fieldRule) (uncovered, stale []string) {
	return apifields.Uncovered(table, func(p, leaf string, r fieldRule) bool { return p == leaf || r.handling != fieldModeled })
}
