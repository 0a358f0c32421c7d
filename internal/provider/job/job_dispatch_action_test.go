package job

import (
	"fmt"
	"testing"

	"github.com/hashicorp/nomad/api"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
)

// TestAccJobDispatchAction_runsOnce dispatches a parameterized berth_job
// from an action_trigger, waiting for the run: Nomad holds one dispatched
// child of the job, with the meta given, complete; the job itself keeps
// its version and plans no change.
func TestAccJobDispatchAction_runsOnce(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	name := "berth-acc-dispatch-" + acctest.RandomHex(3)
	job := jobConfig(fmt.Sprintf(`
job %q {
  type = "batch"
  parameterized {
    meta_required = ["greeting"]
  }
  group "g" {
    task "say" {
      driver = "raw_exec"
      config {
        command = "/bin/sh"
        args    = ["-c", "echo $NOMAD_META_greeting"]
      }
      resources {
        cpu    = 20
        memory = 16
      }
    }
  }
}`, name), "")
	nomad := acctest.Nomad(t)
	children := func() ([]*api.JobListStub, error) {
		stubs, _, err := nomad.Jobs().PrefixList(name + "/dispatch-")
		return stubs, err
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_14_0)},
		Steps: []resource.TestStep{
			{
				Config: job,
				Check: func(*terraform.State) error {
					if got, err := children(); err != nil || len(got) != 0 {
						return fmt.Errorf("%d runs before any dispatch (%v); a parameterized job only registers", len(got), err)
					}
					return nil
				},
			},
			{
				Config: job + acctest.ActionOnCreate("berth_job_dispatch", "d", `name = berth_job.t.name`, `meta = { greeting = "hello" }`, `wait = true`),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(jobAddr, plancheck.ResourceActionNoop),
				}},
				Check: func(*terraform.State) error {
					got, err := children()
					if err != nil || len(got) != 1 {
						return fmt.Errorf("%d dispatched runs (%v), want 1", len(got), err)
					}
					child, _, err := nomad.Jobs().Info(got[0].ID, nil)
					if err != nil {
						return err
					}
					if child.Meta["greeting"] != "hello" || *child.ParentID != name || *child.Status != "dead" {
						return fmt.Errorf("run %s: meta %v, parent %q, status %q; want greeting=hello, parent %s, dead (complete)",
							got[0].ID, child.Meta, *child.ParentID, *child.Status, name)
					}
					allocs, _, err := nomad.Jobs().Allocations(got[0].ID, false, nil)
					if err != nil || len(allocs) != 1 || allocs[0].ClientStatus != api.AllocClientStatusComplete {
						return fmt.Errorf("run %s allocations %d (%v); want one complete", got[0].ID, len(allocs), err)
					}
					return nil
				},
			},
		},
	})
}
