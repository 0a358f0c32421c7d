package server

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/hashicorp/nomad/api"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	tfresource "github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
)

// jobRequests counts, in front of the test agent, the listings of jobs and
// the reads of each job of a test (by name prefix).
type jobRequests struct {
	prefix string

	mu       sync.Mutex
	listings int
	reads    map[string]int
}

func (c *jobRequests) watch(_ http.ResponseWriter, r *http.Request) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case r.Method == http.MethodGet && r.URL.Path == "/v1/jobs":
		c.listings++
	case r.Method == http.MethodGet && strings.HasPrefix(r.URL.Path, "/v1/job/"+c.prefix) && strings.Count(r.URL.Path, "/") == 3:
		c.reads[strings.TrimPrefix(r.URL.Path, "/v1/job/")]++
	}
	return false
}

// take returns the counts since the last take and starts new ones.
func (c *jobRequests) take() (listings int, reads map[string]int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	listings, reads = c.listings, c.reads
	c.listings, c.reads = 0, map[string]int{}
	return listings, reads
}

// planCheckFunc is a plan check made of a function.
type planCheckFunc func() error

func (f planCheckFunc) CheckPlan(_ context.Context, _ plancheck.CheckPlanRequest, resp *plancheck.CheckPlanResponse) {
	resp.Error = f()
}

// Against a real agent and the real CLI, with the shortcuts on and not
// verified (verification reads every job itself): the refresh of N
// unchanged jobs and instances reads no job of its own, only the
// namespace's listing; a job changed in Nomad between two plans is found
// by the second plan, which reads that job alone in full and plans its
// update, and the apply puts the jobspec's value back in Nomad.
func TestAccRefresh_sharedListingFindsTheOneChangedJob(t *testing.T) {
	acctest.PreCheck(t)
	prefix := "berth-acc-listing-" + acctest.RandomHex(3) + "-"
	counts := &jobRequests{prefix: prefix, reads: map[string]int{}}
	addr := acctest.NomadProxy(t, counts.watch, nil)
	const jobs, instances = 4, 2
	cfg := fmt.Sprintf(`
provider "berth" {
  address = %[1]q
}

resource "berth_job" "t" {
  count            = %[2]d
  wait_for_healthy = false
  jobspec = <<-EOT
job "%[3]sjob-${count.index}" {
  meta { owner = "platform" }
  group "web" {
    constraint {
      attribute = "$${meta.berth_never_set}"
      operator  = "is_set"
    }
    task "app" {
      driver = "raw_exec"
      config {
        command = "/bin/sleep"
        args    = ["3600"]
      }
      resources {
        cpu    = 20
        memory = 16
      }
    }
  }
}
  EOT
}

resource "berth_instance" "t" {
  count            = %[4]d
  name             = "%[3]sinst-${count.index}"
  replicas         = 1
  wait_for_healthy = false
  services = {
    app = {
      driver  = "raw_exec"
      command = "/bin/sleep"
      args    = ["3600"]
      cpu     = 20
      memory  = 16
    }
  }
  placement = {
    constraints = [{
      attribute = "$${meta.berth_never_set}"
      operator  = "is_set"
    }]
  }
}
`, addr, jobs, prefix, instances)
	changed := prefix + "job-2"
	noJobRead := func(what string) planCheckFunc {
		return func() error {
			listings, reads := counts.take()
			if len(reads) > 0 || listings == 0 {
				return fmt.Errorf("%s: %d listings and reads of single jobs %v; want a listing and no job read", what, listings, reads)
			}
			return nil
		}
	}
	tfresource.Test(t, tfresource.TestCase{
		// Not the verifying server: verification reads every job.
		ProtoV6ProviderFactories: map[string]func() (tfprotov6.ProviderServer, error){"berth": newServer("test", false)},
		CheckDestroy: func(*terraform.State) error {
			list, _, err := acctest.Nomad(t).Jobs().PrefixList(prefix)
			if err != nil || len(list) > 0 {
				return fmt.Errorf("after destroy: %d jobs %s* in Nomad (err %v)", len(list), prefix, err)
			}
			return nil
		},
		Steps: []tfresource.TestStep{
			{Config: cfg},
			{
				PreConfig: func() { counts.take() },
				Config:    cfg,
				ConfigPlanChecks: tfresource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectEmptyPlan(),
					noJobRead("the refresh of the unchanged configuration"),
				}},
			},
			{
				PreConfig: func() {
					acctest.MutateJob(t, changed, func(j *api.Job) { j.Meta["owner"] = "someone-else" })()
					counts.take()
				},
				Config: cfg,
				ConfigPlanChecks: tfresource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("berth_job.t[2]", plancheck.ResourceActionUpdate),
					plancheck.ExpectResourceAction("berth_job.t[0]", plancheck.ResourceActionNoop),
					plancheck.ExpectResourceAction("berth_instance.t[1]", plancheck.ResourceActionNoop),
					planCheckFunc(func() error {
						_, reads := counts.take()
						if reads[changed] == 0 || len(reads) != 1 {
							return fmt.Errorf("reads of single jobs %v; want the changed job %s alone", reads, changed)
						}
						return nil
					}),
				}},
				Check: acctest.WithJob(t, changed, func(job *api.Job, _ []*api.AllocationListStub) error {
					if got := job.Meta["owner"]; got != "platform" {
						return fmt.Errorf("meta.owner in Nomad is %q after the apply, want the jobspec's \"platform\"", got)
					}
					return nil
				}),
			},
			{
				PreConfig: func() { counts.take() },
				Config:    cfg,
				ConfigPlanChecks: tfresource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectEmptyPlan(),
					noJobRead("the refresh after the update"),
				}},
			},
		},
	})
}
