package instance

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
)

func expectRunning(t *testing.T, name string, n int) resource.TestCheckFunc {
	return acctest.WithJob(t, name, func(_ *api.Job, allocs []*api.AllocationListStub) error {
		if got := acctest.RunningAllocs(allocs); got != n {
			return fmt.Errorf("%d running allocations in Nomad, want %d", got, n)
		}
		return nil
	})
}

func TestAccInstance_scale(t *testing.T) {
	name := startInstanceTest(t)
	at := func(n int) string {
		return acctest.InstanceConfig{Name: name, Extra: fmt.Sprintf("replicas = %d", n)}.String()
	}
	acctest.TestJobSteps(t, name, []resource.TestStep{
		{Config: at(1), Check: expectRunning(t, name, 1)},
		{
			Config: at(3),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(acctest.InstanceAddr, plancheck.ResourceActionUpdate),
			}},
			Check: expectRunning(t, name, 3),
		},
		{Config: at(1), Check: expectRunning(t, name, 1)},
	})
}

func TestAccInstance_stopAndStart(t *testing.T) {
	name := startInstanceTest(t)
	cfg := func(running bool) string {
		return acctest.InstanceConfig{Name: name, Extra: fmt.Sprintf("replicas = 1\n  running = %v", running)}.String()
	}
	stopped := acctest.WithJob(t, name, func(job *api.Job, allocs []*api.AllocationListStub) error {
		if job.Stop == nil || !*job.Stop {
			return fmt.Errorf("job is not stopped in Nomad")
		}
		if n := acctest.RunningAllocs(allocs); n != 0 {
			return fmt.Errorf("%d allocations still running", n)
		}
		return nil
	})
	acctest.TestJobSteps(t, name, []resource.TestStep{
		{Config: cfg(true), Check: expectRunning(t, name, 1)},
		{
			Config: cfg(false),
			Check:  stopped,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(acctest.InstanceAddr, tfjsonpath.New("running"), knownvalue.Bool(false)),
			},
		},
		{
			Config: cfg(true),
			Check:  expectRunning(t, name, 1),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(acctest.InstanceAddr, tfjsonpath.New("running"), knownvalue.Bool(true)),
			},
		},
	})
}

func TestAccInstance_restartTrigger(t *testing.T) {
	name := startInstanceTest(t)
	cfg := func(v string) string {
		return acctest.InstanceConfig{Name: name, Extra: fmt.Sprintf("replicas = 1\n  restart_triggers = { config = %q }", v)}.String()
	}
	var version uint64
	var restarts uint64
	record := acctest.WithJob(t, name, func(job *api.Job, allocs []*api.AllocationListStub) error {
		version = *job.Version
		for _, a := range allocs {
			if a.ClientStatus == "running" {
				restarts = a.TaskStates["app"].Restarts
			}
		}
		return nil
	})
	restarted := acctest.WithJob(t, name, func(job *api.Job, allocs []*api.AllocationListStub) error {
		if *job.Version != version {
			return fmt.Errorf("job version moved from %d to %d: a restart must not re-register", version, *job.Version)
		}
		for _, a := range allocs {
			if a.ClientStatus == "running" {
				ts := a.TaskStates["app"]
				if ts.Restarts <= restarts || ts.State != "running" {
					return fmt.Errorf("task app: restarts %d (was %d), state %s: not restarted", ts.Restarts, restarts, ts.State)
				}
				return nil
			}
		}
		return fmt.Errorf("no running allocation after restart")
	})
	acctest.TestJobSteps(t, name, []resource.TestStep{
		{Config: cfg("1"), Check: record},
		{Config: cfg("2"), Check: restarted},
	})
}

func TestAccInstance_import(t *testing.T) {
	name := startInstanceTest(t)
	cfg := acctest.InstanceConfig{Name: name, Extra: "replicas = 1", App: httpServerApp}.String()
	acctest.TestJobSteps(t, name, []resource.TestStep{
		{Config: cfg},
		importVerified("default/" + name),
	})
}

// TestAccInstance_importForeignJob imports a job written by hand (not by
// berth) by its bare name; the plan is then empty, and destroy purges it.
// A job with two task groups is refused with the reason.
func TestAccInstance_importForeignJob(t *testing.T) {
	name := startInstanceTest(t)
	c := acctest.Nomad(t)
	job := &api.Job{
		ID: acctest.Ptr(name), Name: acctest.Ptr(name), Type: acctest.Ptr("service"), Datacenters: []string{"*"},
		TaskGroups: []*api.TaskGroup{{
			Name: acctest.Ptr("app"), Count: acctest.Ptr(1),
			// berth always sends an update block; without one here the plan
			// would rightly show it being added.
			Update: &api.UpdateStrategy{MaxParallel: acctest.Ptr(1), MinHealthyTime: acctest.Ptr(10 * time.Second),
				HealthyDeadline: acctest.Ptr(5 * time.Minute), ProgressDeadline: acctest.Ptr(10 * time.Minute)},
			Tasks: []*api.Task{{
				Name: "app", Driver: "raw_exec",
				Config:    map[string]any{"command": "/bin/sleep", "args": []string{"3600"}},
				Resources: &api.Resources{CPU: acctest.Ptr(50), MemoryMB: acctest.Ptr(32)},
			}},
		}},
	}
	if _, _, err := c.Jobs().Register(job, nil); err != nil {
		t.Fatal(err)
	}
	twoGroups := name + "-two"
	job2 := *job
	job2.ID, job2.Name = acctest.Ptr(twoGroups), acctest.Ptr(twoGroups)
	g2 := *job.TaskGroups[0]
	g2.Name = acctest.Ptr("other")
	job2.TaskGroups = []*api.TaskGroup{job.TaskGroups[0], &g2}
	if _, _, err := c.Jobs().Register(&job2, nil); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _, _ = c.Jobs().Deregister(twoGroups, true, nil) })

	cfg := sleeperConfig(name, 1)
	acctest.TestJobSteps(t, name, slices.Concat([]resource.TestStep{
		{
			Config:        strings.Replace(cfg, fmt.Sprintf("%q", name), fmt.Sprintf("%q", twoGroups), 1),
			ResourceName:  acctest.InstanceAddr,
			ImportState:   true,
			ImportStateId: twoGroups,
			ExpectError:   regexp.MustCompile(`(?s)cannot be represented.*2 task groups`),
		},
	}, adoptSteps(cfg, name, nil)))
}

// httpServerApp overrides the app service with a tiny HTTP server on the
// "http" port (perl is on every Debian machine), so checks can pass.
const httpServerApp = `command = "/usr/bin/perl"
      args    = ["-MIO::Socket::INET", "-e", "$s=IO::Socket::INET->new(LocalPort=>$ENV{NOMAD_PORT_http},Listen=>5,ReuseAddr=>1) or die; while($c=$s->accept){<$c>; print $c qq(HTTP/1.0 200 OK\\r\\n\\r\\nok); close $c}"]
      env     = { A = "b" }
      ports   = { http = {} }
      check   = { type = "http", port = "http", path = "/health", interval = "1s", timeout = "1s" }`

// TestAccInstance_countBackDuringForeignDeployment scales an instance
// through Nomad's HTTP API (as `nomad job scale` or an autoscaler would),
// which starts a deployment, and applies at once. Nomad refuses its scale
// endpoint while that deployment is active; berth registers the job
// instead, which supersedes it. The deployment is paused right after the
// scale so it is still active when berth acts, however slow the machine.
// Then the plan is empty, and a restart_triggers change restarts in place
// without a new job version.
func TestAccInstance_countBackDuringForeignDeployment(t *testing.T) {
	name := startInstanceTest(t)
	c := acctest.Nomad(t)
	cfg := func(trigger string) string {
		// A long min_healthy_time keeps the out-of-band deployment from
		// completing on its own before the test pauses it: Nomad marks even
		// a paused deployment successful once its allocations are healthy.
		return acctest.InstanceConfig{Name: name, Update: `{ min_healthy_time = "30s", healthy_deadline = "2m", progress_deadline = "3m" }`,
			Extra: fmt.Sprintf("replicas = 1\n  restart_triggers = { config = %q }", trigger)}.String()
	}
	var foreign string        // the out-of-band deployment
	var foreignVersion uint64 // the job version it deploys
	var versionAfter uint64   // job version after berth set the count back
	scaleOutOfBand := func() {
		job, _, err := c.Jobs().Info(name, nil)
		if err != nil {
			t.Fatal(err)
		}
		count := 2
		if _, _, err := c.Jobs().ScaleWithRequest(name, &api.ScalingRequest{
			Count: acctest.Ptr(int64(count)), Target: map[string]string{"Job": name, "Group": "app"},
			Message: "out of band", JobModifyIndex: *job.JobModifyIndex,
		}, nil); err != nil {
			t.Fatalf("scaling through the API: %v", err)
		}
		var dep *api.Deployment
		acctest.WaitFor(t, "the scale's deployment", time.Minute, func() (bool, error) {
			d, _, err := c.Jobs().LatestDeployment(name, nil)
			if err != nil || d == nil {
				return false, err
			}
			dep = d
			return d.JobVersion == *job.Version+1, nil
		})
		if _, _, err := c.Deployments().Pause(dep.ID, true, nil); err != nil {
			t.Fatalf("pausing deployment %s: %v", dep.ID, err)
		}
		foreign, foreignVersion = dep.ID, dep.JobVersion
		// What berth used to hit: the scale endpoint refuses now.
		if _, _, err := c.Jobs().Scale(name, "app", acctest.Ptr(1), "probe", false, nil, nil); err == nil {
			t.Fatal("Nomad accepted a scale during an active deployment; the test does not exercise the case")
		}
	}
	countBack := acctest.WithJob(t, name, func(job *api.Job, allocs []*api.AllocationListStub) error {
		if n := *job.TaskGroups[0].Count; n != 1 {
			return fmt.Errorf("group count in Nomad is %d, want 1", n)
		}
		// One registration on top of the out-of-band version: the job was
		// neither recreated nor written twice.
		if *job.Version != foreignVersion+1 {
			return fmt.Errorf("job version %d, want %d (one registration after the out-of-band version %d)", *job.Version, foreignVersion+1, foreignVersion)
		}
		if n := acctest.RunningAllocs(allocs); n != 1 {
			return fmt.Errorf("%d running allocations, want 1", n)
		}
		// Superseded: canceled, or already gone from Nomad's state (seen
		// once on a loaded machine); never still active.
		d, _, err := c.Deployments().Info(foreign, nil)
		if err != nil && strings.Contains(err.Error(), "404") {
			d, err = &api.Deployment{Status: api.DeploymentStatusCancelled}, nil
		}
		if err != nil {
			return err
		}
		if d.Status != api.DeploymentStatusCancelled {
			return fmt.Errorf("the out-of-band deployment is %s (%s), want it superseded by berth's registration", d.Status, d.StatusDescription)
		}
		latest, _, err := c.Jobs().LatestDeployment(name, nil)
		if err != nil {
			return err
		}
		if latest == nil || latest.JobVersion != *job.Version || latest.Status != api.DeploymentStatusSuccessful {
			return fmt.Errorf("latest deployment %+v is not the successful one of version %d", latest, *job.Version)
		}
		versionAfter = *job.Version
		return nil
	})
	restartedInPlace := acctest.WithJob(t, name, func(job *api.Job, _ []*api.AllocationListStub) error {
		if *job.Version != versionAfter {
			return fmt.Errorf("job version moved from %d to %d on a restart_triggers change", versionAfter, *job.Version)
		}
		return nil
	})
	acctest.TestJobSteps(t, name, []resource.TestStep{
		{Config: cfg("1"), Check: expectRunning(t, name, 1)},
		{
			PreConfig: scaleOutOfBand,
			Config:    cfg("1"),
			ConfigPlanChecks: resource.ConfigPlanChecks{
				PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction(acctest.InstanceAddr, plancheck.ResourceActionUpdate)},
				PostApplyPostRefresh: []plancheck.PlanCheck{acctest.ExpectNoChanges{}},
			},
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(acctest.InstanceAddr, tfjsonpath.New("replicas"), knownvalue.Int64Exact(1)),
			},
			Check: resource.ComposeTestCheckFunc(countBack, checkStateIndexMatchesNomad(t, name)),
		},
		{
			Config: cfg("2"),
			ConfigPlanChecks: resource.ConfigPlanChecks{
				PostApplyPostRefresh: []plancheck.PlanCheck{acctest.ExpectNoChanges{}},
			},
			Check: resource.ComposeTestCheckFunc(restartedInPlace, checkStateIndexMatchesNomad(t, name)),
		},
	})
}

// checkStateIndexMatchesNomad compares job_modify_index in state with the
// job's in Nomad.
func checkStateIndexMatchesNomad(t *testing.T, name string) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		job, _, err := acctest.Nomad(t).Jobs().Info(name, nil)
		if err != nil {
			return err
		}
		return acctest.CheckAttrInt(s, acctest.InstanceAddr, "job_modify_index", int64(*job.JobModifyIndex))
	}
}
