package instance

import (
	"context"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"sort"
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

// The registration tests run a tiny HTTP server as the task (Python's
// http.server on the allocated port), so http and tcp checks have
// something real to pass or fail against.
const pyServer = "/usr/bin/python3"

// registrationInstance renders an instance whose app service serves HTTP
// on port "http" and registers registrations (HCL list).
func registrationInstance(name, registrations, update string) string {
	if update == "" {
		update = `{ min_healthy_time = "1s", healthy_deadline = "1m", progress_deadline = "2m" }`
	}
	return fmt.Sprintf(`
resource "berth_instance" "t" {
  name     = %q
  replicas = 1
  update   = %s
  services = {
    app = {
      driver        = "raw_exec"
      command       = %q
      args          = ["-m", "http.server", "$${NOMAD_PORT_http}"]
      cpu           = 50
      memory        = 64
      ports         = { http = {} }
      registrations = %s
    }
  }
}
`, name, update, pyServer, registrations)
}

func registrationName(scenario string) string {
	return "berth-acc-reg-" + scenario + "-" + acctest.RandomHex(3)
}

// catalogTags returns the tags Nomad's service catalog holds for service,
// one entry per registered instance.
func catalogTags(t *testing.T, service string) ([][]string, error) {
	regs, _, err := acctest.Nomad(t).Services().Get(service, nil)
	if err != nil {
		return nil, fmt.Errorf("reading service %q from the catalog: %v", service, err)
	}
	out := make([][]string, 0, len(regs))
	for _, r := range regs {
		out = append(out, r.Tags)
	}
	return out, nil
}

func TestAccInstanceRegistration_catalog(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	name := registrationName("catalog")
	cfg := registrationInstance(name, fmt.Sprintf(`[
        {
          name = "%[1]s-web"
          port = "http"
          tags = ["web", "v1"]
          checks = [
            { name = "root", type = "http", path = "/", interval = "1s", timeout = "1s" },
            { name = "listening", type = "tcp", interval = "1s", timeout = "1s" },
          ]
        },
        {
          name        = "%[1]s-admin"
          port        = "http"
          tags        = ["admin"]
          canary_tags = ["canary"]
          meta        = { team = "berth" }
          checks = [
            { name = "index", type = "http", path = "/", method = "GET", header = { X-Probe = ["1"] }, interval = "2s", timeout = "1s",
              check_restart = { limit = 3, grace = "5s" } },
            { name = "tcp", type = "tcp", interval = "2s", timeout = "1s" },
          ]
        },
      ]`, name), "")
	acctest.TestJobSteps(t, name, []resource.TestStep{
		{
			Config: cfg,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(acctest.InstanceAddr, tfjsonpath.New("deployment_status"), knownvalue.StringExact("successful")),
			},
			Check: resource.ComposeAggregateTestCheckFunc(
				func(*terraform.State) error {
					for service, want := range map[string][]string{name + "-web": {"web", "v1"}, name + "-admin": {"admin"}} {
						got, err := catalogTags(t, service)
						if err != nil {
							return err
						}
						if len(got) != 1 || !slices.Equal(got[0], want) {
							return fmt.Errorf("catalog holds %q with tags %q, want one instance tagged %q", service, got, want)
						}
					}
					return nil
				},
				acctest.WithJob(t, name, func(_ *api.Job, allocs []*api.AllocationListStub) error {
					for _, a := range allocs {
						if a.ClientStatus != "running" {
							continue
						}
						checks, err := acctest.Nomad(t).Allocations().Checks(a.ID, nil)
						if err != nil {
							return err
						}
						var passing []string
						for _, c := range checks {
							if c.Status == "success" {
								passing = append(passing, c.Service+"/"+c.Check)
							}
						}
						sort.Strings(passing)
						want := []string{name + "-admin/index", name + "-admin/tcp", name + "-web/listening", name + "-web/root"}
						if !slices.Equal(passing, want) {
							return fmt.Errorf("passing checks of allocation %s: %q, want %q", a.ID, passing, want)
						}
						return nil
					}
					return fmt.Errorf("no running allocation")
				}),
			),
		},
		importVerified(name),
	})
}

func TestAccInstanceRegistration_failingCheck(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	name := registrationName("failing")
	cfg := registrationInstance(name, fmt.Sprintf(`[{
        name = "%s-web"
        port = "http"
        checks = [
          { name = "listening", type = "tcp", interval = "1s", timeout = "1s" },
          { name = "missing-page", type = "http", path = "/no-such-page", interval = "1s", timeout = "1s" },
        ]
      }]`, name), `{ min_healthy_time = "1s", healthy_deadline = "10s", progress_deadline = "15s" }`)
	acctest.TestJobSteps(t, name, []resource.TestStep{{
		Config:      cfg,
		ExpectError: regexp.MustCompile(`check "missing-page" of service "` + name + `-web" \(task "app"\) is\s+(failure|pending)`),
	}})
}

// expectChangeAt is a plan check that the resource at addr would change
// the value at path (state and plan differ there) and that the plan puts
// want there.
type expectChangeAt struct {
	addr string
	path tfjsonpath.Path
	want any
}

func (e expectChangeAt) CheckPlan(_ context.Context, req plancheck.CheckPlanRequest, resp *plancheck.CheckPlanResponse) {
	rc := plannedChange(req, e.addr)
	if rc == nil {
		resp.Error = fmt.Errorf("no change planned for %s", e.addr)
		return
	}
	before, errB := tfjsonpath.Traverse(rc.Change.Before, e.path)
	after, errA := tfjsonpath.Traverse(rc.Change.After, e.path)
	switch {
	case errB != nil || errA != nil:
		resp.Error = fmt.Errorf("%s: %v / %v", e.path, errB, errA)
	case reflect.DeepEqual(before, after):
		resp.Error = fmt.Errorf("%s does not change in the plan (%v)", e.path, before)
	case !reflect.DeepEqual(after, e.want):
		resp.Error = fmt.Errorf("plan puts %v at %s, want %v", after, e.path, e.want)
	}
}

// TestAccInstanceRegistration_driftAndImport imports a hand-written job
// whose task registers two services with two checks each: the plan is
// empty. A tag edited through the HTTP API then shows in the next plan at
// its attribute, and an apply puts it back in Nomad.
func TestAccInstanceRegistration_driftAndImport(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	name := registrationName("import")
	check := func(name, typ, path string) api.ServiceCheck {
		return api.ServiceCheck{Name: name, Type: typ, Path: path, Interval: 2 * time.Second, Timeout: time.Second}
	}
	unnamedTCP := check("", "tcp", "")
	restarting := check("index", "http", "/")
	restarting.Method = "GET"
	restarting.CheckRestart = &api.CheckRestart{Limit: 2}
	job := &api.Job{
		ID: acctest.Ptr(name), Name: acctest.Ptr(name), Type: acctest.Ptr("service"), Datacenters: []string{"*"},
		TaskGroups: []*api.TaskGroup{{
			Name: acctest.Ptr("app"), Count: acctest.Ptr(1),
			Update: &api.UpdateStrategy{MaxParallel: acctest.Ptr(1), MinHealthyTime: acctest.Ptr(time.Second),
				HealthyDeadline: acctest.Ptr(time.Minute), ProgressDeadline: acctest.Ptr(2 * time.Minute)},
			Networks: []*api.NetworkResource{{DynamicPorts: []api.Port{{Label: "http"}}}},
			Tasks: []*api.Task{{
				Name: "app", Driver: "raw_exec",
				Config:    map[string]any{"command": pyServer, "args": []string{"-m", "http.server", "${NOMAD_PORT_http}"}},
				Resources: &api.Resources{CPU: acctest.Ptr(50), MemoryMB: acctest.Ptr(64)},
				Services: []*api.Service{
					{Name: name + "-web", Provider: "nomad", PortLabel: "http", Tags: []string{"web"},
						Checks: []api.ServiceCheck{check("root", "http", "/"), check("listening", "tcp", "")}},
					{Name: name + "-admin", Provider: "nomad", PortLabel: "http", Tags: []string{"admin", "internal"},
						Checks: []api.ServiceCheck{restarting, unnamedTCP}},
				},
			}},
		}},
	}
	if _, _, err := acctest.Nomad(t).Jobs().Register(job, nil); err != nil {
		t.Fatal(err)
	}
	cfg := registrationInstance(name, fmt.Sprintf(`[
        {
          name = "%[1]s-web"
          port = "http"
          tags = ["web"]
          checks = [
            { name = "root", type = "http", path = "/", interval = "2s", timeout = "1s" },
            { name = "listening", type = "tcp", interval = "2s", timeout = "1s" },
          ]
        },
        {
          name = "%[1]s-admin"
          port = "http"
          tags = ["admin", "internal"]
          checks = [
            { name = "index", type = "http", path = "/", method = "GET", interval = "2s", timeout = "1s", check_restart = { limit = 2 } },
            { type = "tcp", interval = "2s", timeout = "1s" },
          ]
        },
      ]`, name), "")
	tags := tfjsonpath.New("services").AtMapKey("app").AtMapKey("registrations").AtSliceIndex(1).AtMapKey("tags")
	acctest.TestJobSteps(t, name, slices.Concat(adoptSteps(cfg, name, nil), []resource.TestStep{
		{
			PreConfig: acctest.MutateJob(t, name, func(j *api.Job) { appTask(j).Services[1].Tags = []string{"admin", "public"} }),
			Config:    cfg,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(acctest.InstanceAddr, plancheck.ResourceActionUpdate),
				expectChangeAt{addr: acctest.InstanceAddr, path: tags, want: []any{"admin", "internal"}},
			}},
			Check: func(*terraform.State) error {
				got, err := catalogTags(t, name+"-admin")
				if err != nil {
					return err
				}
				if len(got) != 1 || !slices.Equal(got[0], []string{"admin", "internal"}) {
					return fmt.Errorf("after the apply the catalog holds %q, want [admin internal]", got)
				}
				return nil
			},
		},
	}))
}
