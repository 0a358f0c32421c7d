package lease

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
)

// TestAccLease_deletedBeforeExpiry: a lease whose job is stopped, then
// purged, through Nomad's API long before its end reads result.state
// "deleted" (expired, so it ends here) and stays in state; with renew =
// false the next plan keeps it, with renew = true it is replaced.
func TestAccLease_deletedBeforeExpiry(t *testing.T) {
	key, pub, name := startLeaseTest(t, "lease-deleted")
	cfg := leaseConfig(key, name, "1h", "renew = false")
	nomad := acctest.Nomad(t)
	deleted := resource.ComposeAggregateTestCheckFunc(
		resource.TestCheckResourceAttr(leaseAddr, "expired", "true"),
		resource.TestCheckResourceAttr(leaseAddr, "result.state", "deleted"),
	)
	acctest.TestJobSteps(t, name, []resource.TestStep{
		{Config: cfg, Check: resource.TestCheckResourceAttr(leaseAddr, "result.state", "ok")},
		{
			PreConfig: func() {
				if _, _, err := nomad.Jobs().Deregister(name, false, nil); err != nil {
					t.Fatal(err)
				}
			},
			RefreshState: true,
			Check:        deleted,
		},
		{
			PreConfig: func() {
				if _, _, err := nomad.Jobs().Deregister(name, true, nil); err != nil {
					t.Fatal(err)
				}
			},
			RefreshState: true,
			Check: resource.ComposeAggregateTestCheckFunc(deleted,
				resource.TestCheckResourceAttrSet(leaseAddr, "result.allocation_id")),
		},
		{Config: cfg, PlanOnly: true},
		{
			Config: leaseConfig(key, name, "1h", "renew = true"),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(leaseAddr, plancheck.ResourceActionReplace),
			}},
			Check: checkLeaseVerifies(t, name, pub),
		},
	})
}
