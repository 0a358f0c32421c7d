package instance

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
)

// handWrittenJob is a job as a team writes it by hand for Nomad: one task
// group with placement, restart and reschedule policies and an update
// block, a raw_exec task with a kill timeout. groups > 1 makes a job
// berth_instance cannot represent.
func handWrittenJob(id string, groups int) *api.Job {
	job := &api.Job{
		ID: acctest.Ptr(id), Name: acctest.Ptr(id), Type: acctest.Ptr(api.JobTypeService), Datacenters: []string{"*"},
		Meta: map[string]string{"team": "payments"},
	}
	for i := range groups {
		name := "app"
		if i > 0 {
			name = "worker"
		}
		job.TaskGroups = append(job.TaskGroups, &api.TaskGroup{
			Name: acctest.Ptr(name), Count: acctest.Ptr(1),
			Update: &api.UpdateStrategy{MinHealthyTime: acctest.Ptr(time.Second), HealthyDeadline: acctest.Ptr(30 * time.Second), ProgressDeadline: acctest.Ptr(time.Minute)},
			// What real jobs carry: placement, restart and reschedule
			// policies, a kill timeout.
			Constraints:      []*api.Constraint{api.NewConstraint("${attr.kernel.name}", "=", "linux")},
			Affinities:       []*api.Affinity{api.NewAffinity("${node.datacenter}", "=", "dc1", 40)},
			RestartPolicy:    &api.RestartPolicy{Attempts: acctest.Ptr(1), Interval: acctest.Ptr(10 * time.Minute), Delay: acctest.Ptr(5 * time.Second), Mode: acctest.Ptr("fail")},
			ReschedulePolicy: &api.ReschedulePolicy{Attempts: acctest.Ptr(0), Unlimited: acctest.Ptr(false)},
			Tasks: []*api.Task{{
				Name: "server", Driver: "raw_exec",
				Config:      map[string]any{"command": "/bin/sleep", "args": []string{"3600"}},
				Env:         map[string]string{"PORT": "8080"},
				Resources:   &api.Resources{CPU: acctest.Ptr(30), MemoryMB: acctest.Ptr(24)},
				KillTimeout: acctest.Ptr(20 * time.Second),
			}},
		})
	}
	return job
}

// TestAccInstanceQuery_generateConfig runs `terraform query
// -generate-config-out` over three hand-written jobs: the two berth_instance
// can represent come back with their identities and configurations that,
// with their import blocks, plan no change (and change nothing in Nomad);
// the one it cannot (two task groups) is skipped with a warning naming it.
func TestAccInstanceQuery_generateConfig(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	c, ctx := acctest.NewQueryCLI(t)
	prefix := "berth-acc-query-" + acctest.RandomHex(3)
	web, api2, multi := prefix+"-web", prefix+"-api", prefix+"-multi"
	for id, groups := range map[string]int{web: 1, api2: 1, multi: 2} {
		if _, _, err := acctest.Nomad(t).Jobs().Register(handWrittenJob(id, groups), (&api.WriteOptions{}).WithContext(ctx)); err != nil {
			t.Fatalf("registering %s: %v", id, err)
		}
		t.Cleanup(func() { acctest.PurgeOutsideJob(t, "", id) })
	}

	c.Init(ctx, `provider "berth" {}`)
	res := acctest.RunQuery(ctx, t, c, `list "berth_instance" "found" {
  provider         = berth
  include_resource = true
  config {
    name_prefix = "`+prefix+`"
    node_pool   = "default"
    meta        = { team = "payments" }
  }
}
`)
	slices.Sort(res.Found)
	if want := []string{"default/" + api2, "default/" + web}; !slices.Equal(res.Found, want) {
		t.Fatalf("query found %v, want %v", res.Found, want)
	}
	if w := strings.Join(res.Warnings, "\n"); !strings.Contains(w, multi) || !strings.Contains(w, "2 task groups") {
		t.Fatalf("want a warning that skips %s for its two task groups, got:\n%s", multi, w)
	}
	acctest.ExpectImportsOnly(ctx, t, c, 2)
	// Nomad still runs the jobs as written: nothing was registered again.
	for _, id := range []string{web, api2} {
		job, _, err := acctest.Nomad(t).Jobs().Info(id, nil)
		if err != nil || *job.Version != 0 {
			t.Fatalf("job %s after query and plan: version %v, err %v; want the version registered by hand", id, job.Version, err)
		}
	}
}

// TestAccInstanceQuery_generateConfigEveryType registers a minimal service,
// batch and system job through the HTTP API, as a team does with
// `nomad job run`, leaving every default to Nomad. What `terraform query
// -generate-config-out` writes for them must validate and plan as imports
// only: berth must not write back a value Nomad filled in that its own
// validation refuses (a system job's zero update deadlines).
func TestAccInstanceQuery_generateConfigEveryType(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	c, ctx := acctest.NewQueryCLI(t)
	prefix := "berth-acc-qtype-" + acctest.RandomHex(3)
	var want []string
	for _, typ := range []string{api.JobTypeService, api.JobTypeBatch, api.JobTypeSystem} {
		id := prefix + "-" + typ
		job := &api.Job{ID: acctest.Ptr(id), Name: acctest.Ptr(id), Type: acctest.Ptr(typ), Datacenters: []string{"*"},
			TaskGroups: []*api.TaskGroup{{Name: acctest.Ptr("app"), Tasks: []*api.Task{{
				Name: "main", Driver: "raw_exec",
				Config: map[string]any{"command": "/bin/sleep", "args": []string{"3600"}},
			}}}}}
		if typ == api.JobTypeService {
			// A port and a Nomad service with a check, each with the
			// settings Nomad fills in (address mode, check interval…).
			g := job.TaskGroups[0]
			g.Networks = []*api.NetworkResource{{DynamicPorts: []api.Port{{Label: "http"}}}}
			g.Tasks[0].Services = []*api.Service{{Name: id, PortLabel: "http", Provider: "nomad",
				Checks: []api.ServiceCheck{{Type: "tcp", Interval: 10 * time.Second, Timeout: 2 * time.Second}}}}
		}
		if _, _, err := acctest.Nomad(t).Jobs().Register(job, (&api.WriteOptions{}).WithContext(ctx)); err != nil {
			t.Fatalf("registering %s: %v", id, err)
		}
		t.Cleanup(func() { acctest.PurgeOutsideJob(t, "", id) })
		want = append(want, "default/"+id)
	}
	slices.Sort(want)

	c.Init(ctx, `provider "berth" {}`)
	res := acctest.RunQuery(ctx, t, c, `list "berth_instance" "found" {
  provider         = berth
  include_resource = true
  config {
    name_prefix = "`+prefix+`"
  }
}
`)
	slices.Sort(res.Found)
	if !slices.Equal(res.Found, want) {
		t.Fatalf("query found %v, want %v; warnings %v", res.Found, want, res.Warnings)
	}
	acctest.ExpectImportsOnly(ctx, t, c, len(want))
	for _, id := range want {
		job, _, err := acctest.Nomad(t).Jobs().Info(strings.TrimPrefix(id, "default/"), nil)
		if err != nil || *job.Version != 0 {
			t.Fatalf("job %s after query and plan: version %v, err %v; want the version registered through the API", id, job.Version, err)
		}
	}
}
