package lease

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
	"github.com/berthhq/terraform-provider-berth/internal/lease"
)

// TestAccLease_pausedTimerDoesNotOutliveItsEnd: a signed lease whose timer
// is paused through Nomad's API (SIGSTOP to lease-timer, what namespace
// write allows) runs on past its end. Once past expires_at plus the
// allowance, a refresh reads verified = false, not expired, result.state
// overrun, berth_lease_result for its token is not valid, and the next
// apply replaces the lease: the paused allocation no longer runs in Nomad.
func TestAccLease_pausedTimerDoesNotOutliveItsEnd(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	key, pub := testSigningKey(t)
	name := "berth-acc-lease-paused-" + acctest.RandomHex(3)
	cfg := leaseConfig(key, name, "20s", "renew = false") + `
data "berth_lease_result" "r" {
  lease_id  = berth_reservation.l.id
  signature = berth_reservation.l.result.signature
}
`
	nomad := acctest.Nomad(t)
	var paused *api.Allocation
	t.Cleanup(func() {
		if paused != nil { // let it go, whatever the test left
			_ = nomad.Allocations().Signal(paused, nil, lease.TimerTask, "SIGCONT")
			_, _ = nomad.Allocations().Stop(paused, nil)
		}
	})
	pause := func() {
		waitTimerToken(t, name)
		alloc, err := acctest.RunningAlloc(nomad, name)
		if err != nil {
			t.Fatal(err)
		}
		if err := nomad.Allocations().Signal(alloc, nil, lease.TimerTask, "SIGSTOP"); err != nil {
			t.Fatalf("pausing the timer of allocation %s: %v", alloc.ID, err)
		}
		paused = alloc
		job, _, err := nomad.Jobs().Info(name, nil)
		if err != nil {
			t.Fatal(err)
		}
		end, err := time.Parse(time.RFC3339, job.Meta[lease.MetaExpiresAt])
		if err != nil {
			t.Fatal(err)
		}
		// The condition is the allowance passing by this clock (the
		// provider's), with the allocation still running all along.
		acctest.WaitFor(t, "lease "+name+" to be past its end and the allowance", 5*time.Minute, func() (bool, error) {
			a, _, err := nomad.Allocations().Info(alloc.ID, nil)
			if err != nil {
				return false, err
			}
			if a.ClientStatus != "running" {
				return false, fmt.Errorf("allocation %s is %s although its timer is paused", a.ID, a.ClientStatus)
			}
			return time.Now().After(end.Add(lease.OverrunAllowance + time.Second)), nil
		})
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy:             acctest.CheckInstanceDestroyed(t, name),
		Steps: []resource.TestStep{
			{Config: cfg},
			{
				PreConfig:          pause,
				RefreshState:       true,
				ExpectNonEmptyPlan: true,
				RefreshPlanChecks: resource.RefreshPlanChecks{PostRefresh: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(leaseAddr, plancheck.ResourceActionDestroyBeforeCreate),
				}},
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(leaseAddr, "verified", "false"),
					resource.TestCheckResourceAttr(leaseAddr, "expired", "false"),
					resource.TestCheckResourceAttr(leaseAddr, "user", pub),
					resource.TestCheckResourceAttr(leaseAddr, "result.state", resultOverrun),
					func(s *terraform.State) error {
						r := s.RootModule().Resources["data.berth_lease_result.r"]
						if r == nil {
							return fmt.Errorf("no berth_lease_result in state")
						}
						a := r.Primary.Attributes
						if a["valid"] != "false" || !strings.Contains(a["problem"], "has not ended") ||
							!strings.Contains(a["problem"], "timer paused") {
							return fmt.Errorf("berth_lease_result: valid %s, problem %q; want false naming the paused timer", a["valid"], a["problem"])
						}
						return nil
					},
				),
			},
			{
				Config: cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(leaseAddr, plancheck.ResourceActionDestroyBeforeCreate),
				}},
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(leaseAddr, "verified", "true"),
					func(*terraform.State) error {
						a, _, err := nomad.Allocations().Info(paused.ID, nil)
						if err == nil && a.ClientStatus == "running" {
							return fmt.Errorf("the paused allocation %s still runs after the replacement", a.ID)
						}
						return nil // stopped, or already collected with its purged job
					},
				),
			},
		},
	})
}
