package provider

import (
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
)

// TestAccLeaseResult_signatureVerifies: a running lease's result carries
// the cluster's signature (a JWT Nomad's keyring signed for its timer);
// berth_lease_result verifies it against Nomad's key set, naming the
// allocation the result names; the same signature with its signature part
// changed, or checked against another lease, does not verify.
func TestAccLeaseResult_signatureVerifies(t *testing.T) {
	t.Parallel()
	testAccPreCheck(t)
	key, _ := testSigningKey(t)
	name := "berth-acc-lease-sig-" + randomHex(3)
	lease := leaseProvider(key) + leaseResourceConfig("l", name, "1h", "")
	checks := lease + `
locals {
  sig   = berth_reservation.l.result.signature
  parts = split(".", local.sig)
}
data "berth_lease_result" "genuine" {
  lease_id  = berth_reservation.l.id
  signature = local.sig
}
data "berth_lease_result" "tampered" {
  lease_id  = berth_reservation.l.id
  signature = join(".", [local.parts[0], local.parts[1], strrev(local.parts[2])])
}
data "berth_lease_result" "other_lease" {
  lease_id  = "default/someone-else"
  signature = local.sig
}
`
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             checkInstanceDestroyed(t, name),
		Steps: []resource.TestStep{
			{Config: lease},
			{
				// Once the timer has printed its token, the refresh reads it.
				PreConfig: func() { waitTimerToken(t, name) },
				Config:    checks,
				Check: func(s *terraform.State) error {
					res := s.RootModule().Resources
					l := res[leaseAddr].Primary.Attributes
					if l["result.signature"] == "" {
						return fmt.Errorf("the running lease has no result signature")
					}
					genuine := res["data.berth_lease_result.genuine"].Primary.Attributes
					if genuine["valid"] != "true" || genuine["allocation_id"] != l["result.allocation_id"] {
						return fmt.Errorf("genuine: valid %s (%s), allocation %q, want true and %q", genuine["valid"], genuine["problem"],
							genuine["allocation_id"], l["result.allocation_id"])
					}
					for _, bad := range []string{"tampered", "other_lease"} {
						a := res["data.berth_lease_result."+bad].Primary.Attributes
						if a["valid"] != "false" || a["problem"] == "" {
							return fmt.Errorf("%s: valid %s, problem %q; want false with a reason", bad, a["valid"], a["problem"])
						}
					}
					return nil
				},
			},
		},
	})
}

// waitTimerToken waits until the lease's timer has printed its result
// token (a line with three dot-separated parts) to its log.
func waitTimerToken(t *testing.T, name string) {
	t.Helper()
	nomad := testNomad(t)
	waitFor(t, "lease "+name+"'s timer to print its result token", 2*time.Minute, func() (bool, error) {
		allocs, _, err := nomad.Jobs().Allocations(name, false, nil)
		if err != nil || len(allocs) == 0 {
			return false, err
		}
		alloc, _, err := nomad.Allocations().Info(allocs[0].ID, nil)
		if err != nil {
			return false, err
		}
		r, err := nomad.AllocFS().Cat(alloc, "alloc/logs/lease-timer.stdout.0", nil)
		if err != nil {
			return false, nil // no log yet
		}
		defer r.Close()
		b, err := io.ReadAll(r)
		return err == nil && strings.Count(strings.SplitN(string(b), "\n", 2)[0], ".") == 2, nil
	})
}
