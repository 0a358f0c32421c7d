package acctest

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/nomad/api"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
)

// InstanceConfig renders a berth_instance with short deployment timings.
// extra is spliced into the resource block; app holds the main service's
// extra attributes.
type InstanceConfig struct {
	Name   string
	Extra  string
	App    string
	More   string // more services
	Update string // the update block; a quick one when empty
}

func (c InstanceConfig) String() string {
	update := c.Update
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
`, c.Name, update, c.Extra, c.App, c.More)
}

const InstanceAddr = "berth_instance.t"

func InstanceName(t *testing.T) string {
	return "berth-acc-" + strings.ToLower(strings.ReplaceAll(strings.TrimPrefix(t.Name(), "TestAccInstance_"), "_", "-")) + "-" + RandomHex(3)
}

// CheckInstanceDestroyed asserts in Nomad that the job is purged.
// checkInstanceDestroyed checks that the job is purged and that Nomad's
// scheduler had stopped every allocation of it by the time destroy
// returned (their room is free); a purged job's allocations stay readable
// until Nomad's garbage collection.
func CheckInstanceDestroyed(t *testing.T, name string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		c := Nomad(t)
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

// WithJob reads the job from Nomad and runs f on it.
func WithJob(t *testing.T, name string, f func(*api.Job, []*api.AllocationListStub) error) resource.TestCheckFunc {
	return func(*terraform.State) error {
		c := Nomad(t)
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

func RunningAllocs(allocs []*api.AllocationListStub) int {
	n := 0
	for _, a := range allocs {
		if a.ClientStatus == "running" && a.DesiredStatus == "run" {
			n++
		}
	}
	return n
}
