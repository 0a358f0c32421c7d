package instance

import (
	"fmt"
	"regexp"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
)

// revertConfig is an instance whose app task has env REV = rev.
func revertConfig(name, rev string) string {
	return acctest.InstanceConfig{Name: name, App: fmt.Sprintf(`env = { REV = %q }`, rev)}.String()
}

// withRevertAction adds to cfg a berth_instance_revert whose config block
// holds name and more ("" for no more), run once from an action_trigger.
func withRevertAction(cfg, more string) string {
	return cfg + acctest.ActionOnCreate("berth_instance_revert", "r", "name = berth_instance.t.name", more)
}

// revertSteps: version 0 runs REV = "a", version 1 REV = "b"; the action
// (with actionConfig) returns the job to version 0's REV as version 2,
// which the instance's next plan wants to update back to the configuration.
func revertSteps(t *testing.T, name, actionConfig string) []resource.TestStep {
	return []resource.TestStep{
		{Config: revertConfig(name, "a")},
		{Config: revertConfig(name, "b")},
		{
			Config: withRevertAction(revertConfig(name, "b"), actionConfig),
			ConfigPlanChecks: resource.ConfigPlanChecks{
				PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(acctest.InstanceAddr, plancheck.ResourceActionNoop)},
				// The revert is drift from the configuration: the next plan
				// puts the configuration back.
				PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectResourceAction(acctest.InstanceAddr, plancheck.ResourceActionUpdate)},
			},
			ExpectNonEmptyPlan: true,
			Check:              checkReverted(t, name, 2, 0),
		},
		{
			Config: withRevertAction(revertConfig(name, "b"), actionConfig),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(acctest.InstanceAddr, plancheck.ResourceActionUpdate),
			}},
			Check: acctest.WithJob(t, name, func(job *api.Job, _ []*api.AllocationListStub) error {
				if got := appTask(job).Env["REV"]; got != "b" || *job.Version != 3 {
					return fmt.Errorf("after applying the configuration: job version %d runs REV=%q, want version 3 with REV=b", *job.Version, got)
				}
				return nil
			}),
		},
	}
}

// checkReverted asserts in Nomad that the job's newest version is want
// and holds version from's REV, and that the allocation running now runs it.
func checkReverted(t *testing.T, name string, want, from uint64) resource.TestCheckFunc {
	return func(*terraform.State) error {
		c := acctest.Nomad(t)
		versions, _, _, err := c.Jobs().Versions(name, false, nil)
		if err != nil {
			return err
		}
		byNumber := map[uint64]*api.Job{}
		newest := uint64(0)
		for _, v := range versions {
			byNumber[*v.Version] = v
			newest = max(newest, *v.Version)
		}
		if newest != want || byNumber[from] == nil {
			return fmt.Errorf("job versions up to %d (version %d kept: %v), want a new version %d", newest, from, byNumber[from] != nil, want)
		}
		rev, old := appTask(byNumber[newest]).Env["REV"], appTask(byNumber[from]).Env["REV"]
		if rev != old || rev != "a" {
			return fmt.Errorf("version %d has REV=%q, version %d REV=%q; want both \"a\"", newest, rev, from, old)
		}
		var running string
		acctest.WaitFor(t, "one running allocation of version "+fmt.Sprint(want), time.Minute, func() (bool, error) {
			allocs, _, err := c.Jobs().Allocations(name, false, nil)
			if err != nil {
				return false, err
			}
			running = ""
			for _, a := range allocs {
				if a.ClientStatus == "running" && a.DesiredStatus == "run" {
					if running != "" || a.JobVersion != want {
						return false, fmt.Errorf("running allocation %s of version %d", a.ID, a.JobVersion)
					}
					running = a.ID
				}
			}
			return running != "", nil
		})
		a, _, err := c.Allocations().Info(running, nil)
		if err != nil {
			return err
		}
		if got := appTask(a.Job).Env["REV"]; got != "a" {
			return fmt.Errorf("running allocation %s has REV=%q, want the reverted \"a\"", a.ID, got)
		}
		return nil
	}
}

// testRevert runs revertSteps on instance name with actionConfig
// (Terraform 1.14+, for actions).
func testRevert(t *testing.T, name, actionConfig string) {
	t.Helper()
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_14_0)},
		CheckDestroy:             acctest.CheckInstanceDestroyed(t, name),
		Steps:                    revertSteps(t, name, actionConfig),
	})
}

// TestAccInstanceRevertAction_toVersionZero reverts to version = 0.
func TestAccInstanceRevertAction_toVersionZero(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	testRevert(t, "berth-acc-revert-zero-"+acctest.RandomHex(3), "version = 0")
}

// TestAccInstanceRevertAction_previousStable reverts without a version:
// version 1 is current, so the previous stable version is 0.
func TestAccInstanceRevertAction_previousStable(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	testRevert(t, "berth-acc-revert-stable-"+acctest.RandomHex(3), "")
}

// TestAccInstanceRevertAction_refusedVersions: a version Nomad does not
// have, and the current one, are refused with one error each, and the job
// keeps its version.
func TestAccInstanceRevertAction_refusedVersions(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	name := "berth-acc-revert-refused-" + acctest.RandomHex(3)
	unchanged := acctest.WithJob(t, name, func(job *api.Job, _ []*api.AllocationListStub) error {
		if *job.Version != 0 {
			return fmt.Errorf("job version %d after a refused revert, want 0", *job.Version)
		}
		return nil
	})
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_14_0)},
		CheckDestroy:             acctest.CheckInstanceDestroyed(t, name),
		Steps: []resource.TestStep{
			{Config: revertConfig(name, "a")},
			{
				Config:      withRevertAction(revertConfig(name, "a"), "version = 7"),
				ExpectError: regexp.MustCompile(`(?s)Cannot revert to that version.*has\s+no\s+version\s+7:\s+Nomad\s+keeps\s+versions\s+0`),
			},
			{Config: revertConfig(name, "a"), Check: unchanged},
			{
				Config:      withRevertAction(revertConfig(name, "a"), "version = 0"),
				ExpectError: regexp.MustCompile(`(?s)Cannot revert to that version.*version\s+0\s+is\s+the\s+job's\s+current\s+version`),
			},
			{Config: revertConfig(name, "a"), Check: unchanged},
		},
	})
}
