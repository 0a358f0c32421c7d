package provider

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/nomad/api"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

// instanceConfig renders a berth_instance with short deployment timings.
// extra is spliced into the resource block; app holds the main service's
// extra attributes.
type instanceConfig struct {
	name   string
	extra  string
	app    string
	more   string // more services
	update string // the update block; a quick one when empty
}

func (c instanceConfig) String() string {
	update := c.update
	if update == "" {
		update = `{ min_healthy_time = "1s", healthy_deadline = "30s", progress_deadline = "1m" }`
	}
	return fmt.Sprintf(`
resource "berth_instance" "t" {
  name   = %q
  update = %s
  %s
  services = {
    app = {
      driver  = "raw_exec"
      command = "/bin/sleep"
      args    = ["3600"]
      cpu     = 50
      memory  = 32
      %s
    }
    %s
  }
}
`, c.name, update, c.extra, c.app, c.more)
}

const instanceAddr = "berth_instance.t"

func testInstanceName(t *testing.T) string {
	return "berth-acc-" + strings.ToLower(strings.ReplaceAll(strings.TrimPrefix(t.Name(), "TestAccInstance_"), "_", "-")) + "-" + randomHex(3)
}

// checkInstanceDestroyed asserts in Nomad that the job is purged.
// checkInstanceDestroyed checks that the job is purged and that Nomad's
// scheduler had stopped every allocation of it by the time destroy
// returned (their room is free); a purged job's allocations stay readable
// until Nomad's garbage collection.
func checkInstanceDestroyed(t *testing.T, name string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		c := testNomad(t)
		_, _, err := c.Jobs().Info(name, nil)
		if err == nil {
			return fmt.Errorf("job %q still exists in Nomad after destroy", name)
		}
		var ure api.UnexpectedResponseError
		if !errors.As(err, &ure) || ure.StatusCode() != 404 {
			return fmt.Errorf("reading job %q after destroy: %v", name, err)
		}
		allocs, _, err := c.Jobs().Allocations(name, true, nil)
		if err != nil {
			return fmt.Errorf("listing the allocations of job %q after destroy: %v", name, err)
		}
		for _, a := range allocs {
			if a.DesiredStatus == api.AllocDesiredStatusRun {
				return fmt.Errorf("allocation %s of job %q is still desired running after destroy returned (client status %s)",
					a.ID, name, a.ClientStatus)
			}
		}
		return nil
	}
}

// withJob reads the job from Nomad and runs f on it.
func withJob(t *testing.T, name string, f func(*api.Job, []*api.AllocationListStub) error) resource.TestCheckFunc {
	return func(*terraform.State) error {
		c := testNomad(t)
		job, _, err := c.Jobs().Info(name, nil)
		if err != nil {
			return fmt.Errorf("reading job %q: %v", name, err)
		}
		allocs, _, err := c.Jobs().Allocations(name, false, nil)
		if err != nil {
			return err
		}
		return f(job, allocs)
	}
}

func runningAllocs(allocs []*api.AllocationListStub) int {
	n := 0
	for _, a := range allocs {
		if a.ClientStatus == "running" && a.DesiredStatus == "run" {
			n++
		}
	}
	return n
}

func TestAccInstance_lifecycleAndUpdate(t *testing.T) {
	t.Parallel()
	testAccPreCheck(t)
	name := testInstanceName(t)
	cfg := instanceConfig{
		name: name,
		extra: `replicas = 1
  meta = { team = "acc" }`,
		app: `env = { LOG_LEVEL = "info" }`,
		more: `migrate = { role = "init", driver = "raw_exec", command = "/bin/sh", args = ["-c", "echo migrated"], cpu = 50, memory = 32 }
    shipper = { role = "sidecar", driver = "raw_exec", command = "/bin/sleep", args = ["3600"], cpu = 50, memory = 32 }`,
	}
	updated := cfg
	updated.app = `env = { LOG_LEVEL = "debug" }`

	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             checkInstanceDestroyed(t, name),
		Steps: []resource.TestStep{
			{
				Config: cfg.String(),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(instanceAddr, plancheck.ResourceActionCreate),
					plancheck.ExpectKnownValue(instanceAddr, tfjsonpath.New("id"), knownvalue.StringExact("default/"+name)),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(instanceAddr, tfjsonpath.New("job_version"), knownvalue.Int64Exact(0)),
					statecheck.ExpectKnownValue(instanceAddr, tfjsonpath.New("deployment_status"), knownvalue.StringExact("successful")),
				},
				Check: withJob(t, name, func(job *api.Job, allocs []*api.AllocationListStub) error {
					if job.Meta["berth.kind"] != "instance" || job.Meta["team"] != "acc" {
						return fmt.Errorf("job meta = %v", job.Meta)
					}
					hooks := map[string]string{}
					for _, task := range job.TaskGroups[0].Tasks {
						if task.Lifecycle == nil {
							hooks[task.Name] = "none"
						} else {
							hooks[task.Name] = fmt.Sprintf("%s/sidecar=%v", task.Lifecycle.Hook, task.Lifecycle.Sidecar)
						}
					}
					want := map[string]string{"app": "none", "migrate": "prestart/sidecar=false", "shipper": "poststart/sidecar=true"}
					if fmt.Sprint(hooks) != fmt.Sprint(want) {
						return fmt.Errorf("lifecycle hooks = %v, want %v", hooks, want)
					}
					if runningAllocs(allocs) != 1 {
						return fmt.Errorf("%d running allocations, want 1", runningAllocs(allocs))
					}
					ts := allocs[0].TaskStates
					if ts["migrate"] == nil || ts["migrate"].State != "dead" || ts["migrate"].Failed {
						return fmt.Errorf("init task should have completed: %+v", ts["migrate"])
					}
					if ts["shipper"] == nil || ts["shipper"].State != "running" {
						return fmt.Errorf("sidecar should run: %+v", ts["shipper"])
					}
					return nil
				}),
			},
			{
				Config: updated.String(),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(instanceAddr, plancheck.ResourceActionUpdate),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(instanceAddr, tfjsonpath.New("job_version"), knownvalue.Int64Exact(1)),
					statecheck.ExpectKnownValue(instanceAddr, tfjsonpath.New("deployment_status"), knownvalue.StringExact("successful")),
				},
				Check: withJob(t, name, func(job *api.Job, _ []*api.AllocationListStub) error {
					if v := job.TaskGroups[0].Tasks[0].Env["LOG_LEVEL"]; v != "debug" {
						return fmt.Errorf("env LOG_LEVEL in Nomad = %q", v)
					}
					dep, _, err := testNomad(t).Jobs().LatestDeployment(name, nil)
					if err != nil || dep == nil || dep.JobVersion != 1 || dep.Status != "successful" {
						return fmt.Errorf("latest deployment = %+v (err %v), want version 1 successful", dep, err)
					}
					return nil
				}),
			},
		},
	})
}

// A name Nomad already has a job under is refused at apply with the import
// hint, and the job is left as it was: the registration is check-and-set
// at index 0, so berth never looks the name up first when it writes
// nothing before the job.
func TestAccInstance_nameTakenByOutsideJob(t *testing.T) {
	testAccPreCheck(t)
	name := registerOutsideJob(t, "", readyNodeID(t), 20, 16)
	before, _, err := testNomad(t).Jobs().Info(name, nil)
	if err != nil {
		t.Fatal(err)
	}
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config:      instanceConfig{name: name}.String(),
			ExpectError: regexp.MustCompile(`(?s)Job already exists.*not managed by berth.*terraform import`),
		}},
		CheckDestroy: withJob(t, name, func(job *api.Job, _ []*api.AllocationListStub) error {
			if *job.JobModifyIndex != *before.JobModifyIndex || *job.TaskGroups[0].Name != "outside" {
				return fmt.Errorf("the outside job changed: modify index %d -> %d, group %s",
					*before.JobModifyIndex, *job.JobModifyIndex, *job.TaskGroups[0].Name)
			}
			return nil
		}),
	})
}
