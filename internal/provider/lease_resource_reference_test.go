package provider

import (
	"fmt"
	"regexp"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/berthhq/terraform-provider-berth/internal/lease"
)

// TestAccLease_referenceEndsWithReferenced: a lease that refers to another
// ends, in Nomad and with no Terraform run, when the other is stopped
// (as its expiry or destroy would stop it); the next refresh reads it
// expired. A reference to a lease that does not exist is refused.
func TestAccLease_referenceEndsWithReferenced(t *testing.T) {
	t.Parallel()
	testAccPreCheck(t)
	key, pub := testSigningKey(t)
	parent, child := "berth-acc-lease-parent-"+randomHex(3), "berth-acc-lease-child-"+randomHex(3)
	nomad := testNomad(t)
	// renew = false: both stay ended, so the plans after this test's
	// steps are empty.
	cfg := leaseProvider(key) + leaseResourceConfig("parent", parent, "1h", "renew = false") +
		leaseResourceConfig("child", child, "1h", "renew = false\n  reference = berth_reservation.parent.id")
	childAddr := "berth_reservation.child"
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             checkInstanceDestroyed(t, child),
		Steps: []resource.TestStep{
			{
				Config:      leaseProvider(key) + leaseResourceConfig("child", child, "1h", `reference = "default/berth-acc-nope"`),
				ExpectError: regexp.MustCompile(`Referenced lease not found`),
			},
			{
				Config: cfg,
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(childAddr, "reference", "default/"+parent),
					resource.TestCheckResourceAttr(childAddr, "result.state", "ok"),
					checkLeaseVerifies(t, child, pub),
					func(*terraform.State) error {
						job, _, err := nomad.Jobs().Info(parent, nil)
						if err != nil {
							return err
						}
						if !lease.RegistersService(job) {
							return fmt.Errorf("lease %s registers no service for referring leases", parent)
						}
						// The referenced lease ends in Nomad; nothing runs
						// Terraform until the child has ended.
						if _, _, err := nomad.Jobs().Deregister(parent, false, nil); err != nil {
							return err
						}
						waitFor(t, "lease "+child+" to end with "+parent, 2*time.Minute, func() (bool, error) {
							j, _, err := nomad.Jobs().Info(child, nil)
							if err != nil {
								return false, err
							}
							allocs, _, err := nomad.Jobs().Allocations(child, true, nil)
							if err != nil {
								return false, err
							}
							return *j.Status == "dead" && len(allocs) > 0 &&
								allocs[0].ClientStatus == api.AllocClientStatusComplete, nil
						})
						return nil
					},
				),
			},
			{
				RefreshState: true,
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(childAddr, "expired", "true"),
					resource.TestCheckResourceAttr("berth_reservation.parent", "result.state", "deleted"),
				),
			},
		},
	})
}
