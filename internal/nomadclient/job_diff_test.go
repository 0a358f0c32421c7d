package nomadclient

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"testing"

	"github.com/hashicorp/nomad/api"

	"github.com/berthhq/terraform-provider-berth/internal/jobspec"
)

// Every change Nomad's diff names becomes one path; an object Nomad marks
// edited with nothing changed inside (a scaling policy's new ID) does not.
func TestDiffPaths(t *testing.T) {
	edited := func(name string, fields ...*api.FieldDiff) *api.ObjectDiff {
		return &api.ObjectDiff{Type: "Edited", Name: name, Fields: fields}
	}
	field := func(typ, name string) *api.FieldDiff { return &api.FieldDiff{Type: typ, Name: name} }
	d := &api.JobDiff{Type: "Edited",
		Fields:  []*api.FieldDiff{field("Edited", "Meta[owner]"), field("None", "Priority")},
		Objects: []*api.ObjectDiff{{Type: "Added", Name: "Periodic"}},
		TaskGroups: []*api.TaskGroupDiff{
			{Type: "Edited", Name: "web", Fields: []*api.FieldDiff{field("Edited", "Count")},
				Objects: []*api.ObjectDiff{edited("Scaling")},
				Tasks: []*api.TaskDiff{{Type: "Edited", Name: "app",
					Objects: []*api.ObjectDiff{edited("Resources", field("Edited", "CPU"), field("None", "MemoryMB"))}}}},
			{Type: "Added", Name: "new"},
			{Type: "None", Name: "same", Objects: []*api.ObjectDiff{edited("Scaling")}},
		}}
	want := []string{`Meta[owner]`, `Periodic`, `group "web" / Count`, `group "web" / task "app" / Resources.CPU`, `group "new" (added)`}
	if got := DiffPaths(d); !slices.Equal(got, want) {
		t.Errorf("DiffPaths = %q, want %q", got, want)
	}
	if got := DiffPaths(&api.JobDiff{Type: "None", TaskGroups: []*api.TaskGroupDiff{{Type: "Edited", Name: "g",
		Objects: []*api.ObjectDiff{edited("Scaling")}}}}); len(got) != 0 {
		t.Errorf("Nomad's bookkeeping alone reads as changes: %q", got)
	}
}

// confirmJob is JSON, which berth reads itself: HCL2 is the cluster's
// to parse, and this fake has no parser.
const confirmJob = `{"ID": "j", "Name": "j", "TaskGroups": [{"Name": "g", "Tasks": [{"Name": "t", "Driver": "raw_exec",
  "Config": {"command": "/bin/true"}, "Env": {"A": "1"}}]}]}`

// Drift berth's comparison finds is reported only when Nomad's diff
// confirms a change; a job that reads back unchanged asks nothing, and a
// plan Nomad refuses leaves berth's comparison standing.
func TestConfirmedDrift(t *testing.T) {
	spec := jobspec.Spec{Source: confirmJob}
	live, _, err := jobspec.Parse(spec, nil)
	if err != nil {
		t.Fatal(err)
	}
	live.Namespace = ptr("default")
	live.Constraints = []*api.Constraint{api.NewConstraint("${node.unique.id}", "=", "pinned")}
	same := jobOf(live)
	changed, _, _ := jobspec.Parse(spec, nil)
	changed.Namespace, changed.Constraints = live.Namespace, live.Constraints
	changed.TaskGroups[0].Tasks[0].Env["A"] = "2"

	f := newFakeNomad(t)
	c := f.client()
	var diff *api.JobDiff
	var status int
	f.handle("PUT /v1/job/j/plan", func(w http.ResponseWriter, r *http.Request) {
		var req api.JobPlanRequest
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || !req.Diff {
			t.Errorf("plan request without diff (%v)", err)
		}
		if len(req.Job.Constraints) != 1 {
			t.Errorf("the pin Nomad holds is not submitted: %v", req.Job.Constraints)
		}
		if status != 0 {
			http.Error(w, "Permission denied", status)
			return
		}
		replyJSON(api.JobPlanResponse{Diff: diff})(w, r)
	})
	ctx := context.Background()
	if d, err := c.ConfirmedDrift(ctx, same, spec); err != nil || len(d) != 0 || f.total() != 0 {
		t.Fatalf("unchanged job: drift %q, err %v, %d requests", d, err, f.total())
	}
	diff = &api.JobDiff{Type: "None"}
	if d, err := c.ConfirmedDrift(ctx, jobOf(changed), spec); err != nil || len(d) != 0 {
		t.Errorf("Nomad says no change: drift %q, err %v", d, err)
	}
	diff = &api.JobDiff{Type: "Edited", TaskGroups: []*api.TaskGroupDiff{{Type: "Edited", Name: "g",
		Tasks: []*api.TaskDiff{{Type: "Edited", Name: "t", Fields: []*api.FieldDiff{{Type: "Edited", Name: "Env[A]"}}}}}}}
	want := []string{`group "g" / task "t" / env: {"A":"2"} → {"A":"1"}`}
	if d, err := c.ConfirmedDrift(ctx, jobOf(changed), spec); err != nil || !slices.Equal(d, want) {
		t.Errorf("Nomad confirms: drift %q, err %v; want %q", d, err, want)
	}
	status = http.StatusForbidden
	if d, err := c.ConfirmedDrift(ctx, jobOf(changed), spec); err != nil || !slices.Equal(d, want) {
		t.Errorf("plan refused: drift %q, err %v; want berth's %q", d, err, want)
	}
}
