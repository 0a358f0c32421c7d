package lease

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
	"github.com/berthhq/terraform-provider-berth/internal/lease"
)

// revertLease brings job name back to its previous version in Nomad
// (nomad job revert), checking it goes from duration from to duration to.
func revertLease(t *testing.T, name, from, to string) func() {
	return func() {
		c := acctest.Nomad(t)
		job, _, err := c.Jobs().Info(name, nil)
		if err != nil {
			t.Fatalf("reading job %q: %v", name, err)
		}
		if deref(job.Version) == 0 || job.Meta[lease.MetaDuration] != from {
			t.Fatalf("job %q at version %d with duration %q; want a later version of %s", name, deref(job.Version), job.Meta[lease.MetaDuration], from)
		}
		if _, _, err := c.Jobs().Revert(name, deref(job.Version)-1, nil, nil, "", ""); err != nil {
			t.Fatalf("reverting job %q: %v", name, err)
		}
		job, _, err = c.Jobs().Info(name, nil)
		if err != nil || job.Meta[lease.MetaDuration] != to {
			t.Fatalf("after the revert job %q has duration %q (%v); want %s", name, job.Meta[lease.MetaDuration], err, to)
		}
	}
}

// TestAccLease_revertWithoutRecord: a lease signed for 24h, shortened in
// place to 1h, then reverted in Nomad to the 24h version, is imported into
// a fresh state (no private record of its signings): the import reads
// verified = false, because a later signed version is in the job's
// history in Nomad. The lease in state reads false too, berth_lease_result
// of the reverted version's allocation is not valid, and the next apply
// replaces it with a clean 1h lease.
func TestAccLease_revertWithoutRecord(t *testing.T) {
	key, pub, name := startLeaseTest(t, "lease-revnorec")
	short := leaseConfig(key, name, "1h", "")
	acctest.TestJobSteps(t, name, []resource.TestStep{
		{Config: leaseConfig(key, name, "24h", "")},
		{
			Config: short,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(leaseAddr, plancheck.ResourceActionUpdate),
			}},
			Check: resource.TestCheckResourceAttr(leaseAddr, "verified", "true"),
		},
		{
			PreConfig:     revertLease(t, name, "1h0m0s", "24h0m0s"),
			Config:        short,
			ResourceName:  leaseAddr,
			ImportState:   true,
			ImportStateId: "default/" + name,
			ImportStateCheck: func(states []*terraform.InstanceState) error {
				if len(states) != 1 {
					return fmt.Errorf("imported %d objects, want 1", len(states))
				}
				a := states[0].Attributes
				if a["verified"] != "false" || a["duration"] != "24h0m0s" && a["duration"] != "24h" {
					return fmt.Errorf("imported the reverted lease with verified %q, duration %q; want false and 24h",
						a["verified"], a["duration"])
				}
				return nil
			},
		},
		{
			RefreshState:       true,
			ExpectNonEmptyPlan: true,
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttr(leaseAddr, "verified", "false"),
				// The result of the reverted version's allocation is not
				// valid either: berth_lease_result has no record at all.
				func(s *terraform.State) error {
					waitTimerToken(t, name)
					// The timer may print before Nomad's client reports its
					// allocation running (a loaded machine): wait for that.
					var log string
					acctest.WaitFor(t, "lease "+name+"'s running allocation", 2*time.Minute, func() (bool, error) {
						out, err := acctest.AllocFile(acctest.Nomad(t), name, "alloc/logs/"+lease.TimerTask+".stdout.0")
						log = out
						return err == nil, nil
					})
					token := strings.TrimSpace(strings.SplitN(log, "\n", 2)[0])
					valid, problem := readLeaseResult(t, key, "default/"+name, token)
					if valid || !strings.Contains(problem, "history in Nomad") {
						return fmt.Errorf("berth_lease_result of the reverted lease: valid %v, problem %q; want false naming the history", valid, problem)
					}
					return nil
				},
			),
			RefreshPlanChecks: resource.RefreshPlanChecks{PostRefresh: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(leaseAddr, plancheck.ResourceActionDestroyBeforeCreate),
			}},
		},
		{
			Config: short,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(leaseAddr, plancheck.ResourceActionDestroyBeforeCreate),
			}},
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttr(leaseAddr, "verified", "true"),
				checkLeaseVerifies(t, name, pub),
			),
		},
	})
}
