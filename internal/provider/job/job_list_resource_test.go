package job

import (
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/nomad/api"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
)

// TestAccJobQuery_adoptWhatInstancesCannot registers, through the HTTP
// API as `nomad job run` would, a two-group job, a periodic job and a
// one-group service job. The berth_job list finds the first two (the third
// is berth_instance's), and the configuration `terraform query` generates
// plans as imports with no change; the jobs are untouched in Nomad.
func TestAccJobQuery_adoptWhatInstancesCannot(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	c, ctx := acctest.NewQueryCLI(t)
	prefix := "berth-acc-jq-" + acctest.RandomHex(3)
	task := func() *api.Task {
		return &api.Task{Name: "main", Driver: "raw_exec", Config: map[string]any{"command": "/bin/sleep", "args": []string{"3600"}},
			Resources: &api.Resources{CPU: acctest.Ptr(20), MemoryMB: acctest.Ptr(16)}}
	}
	group := func(name string) *api.TaskGroup {
		return &api.TaskGroup{Name: acctest.Ptr(name), Tasks: []*api.Task{task()}}
	}
	jobs := map[string]*api.Job{
		prefix + "-two":      {Type: acctest.Ptr("service"), TaskGroups: []*api.TaskGroup{group("web"), group("worker")}},
		prefix + "-cron":     {Type: acctest.Ptr("batch"), Periodic: &api.PeriodicConfig{Specs: []string{"0 4 * * *"}}, TaskGroups: []*api.TaskGroup{group("run")}},
		prefix + "-instance": {Type: acctest.Ptr("service"), TaskGroups: []*api.TaskGroup{group("app")}},
	}
	for id, job := range jobs {
		job.ID, job.Name, job.Datacenters = acctest.Ptr(id), acctest.Ptr(id), []string{"*"}
		if _, _, err := acctest.Nomad(t).Jobs().Register(job, (&api.WriteOptions{}).WithContext(ctx)); err != nil {
			t.Fatalf("registering %s: %v", id, err)
		}
		t.Cleanup(func() { acctest.PurgeOutsideJob(t, "", id) })
	}
	before := map[string]uint64{}
	for id := range jobs {
		j, _, err := acctest.Nomad(t).Jobs().Info(id, nil)
		if err != nil {
			t.Fatal(err)
		}
		before[id] = *j.JobModifyIndex
	}

	c.Init(ctx, `provider "berth" {}`)
	res := acctest.RunQuery(ctx, t, c, `list "berth_job" "found" {
  provider         = berth
  include_resource = true
  config {
    name_prefix = "`+prefix+`"
  }
}
`)
	want := []string{"default/" + prefix + "-cron", "default/" + prefix + "-two"}
	slices.Sort(res.Found)
	if !slices.Equal(res.Found, want) {
		t.Fatalf("query found %v, want %v (the one-group service is berth_instance's); warnings %v", res.Found, want, res.Warnings)
	}
	acctest.ExpectImportsOnly(ctx, t, c, len(want))
	for id, index := range before {
		j, _, err := acctest.Nomad(t).Jobs().Info(id, nil)
		if err != nil || *j.JobModifyIndex != index {
			t.Errorf("job %s after query and plan: modify index %v (was %d), err %v", strings.TrimPrefix(id, prefix), j.JobModifyIndex, index, err)
		}
	}
}
