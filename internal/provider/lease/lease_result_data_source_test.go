package lease

import (
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/config"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
)

// TestAccLeaseResult_signatureVerifies: a running lease's result carries
// the cluster's signature (a JWT Nomad's keyring signed for its timer);
// berth_lease_result verifies it against Nomad's key set, naming the
// allocation the result names; the same signature with its signature part
// changed, or checked against another lease, does not verify.
func TestAccLeaseResult_signatureVerifies(t *testing.T) {
	key, _, name := startLeaseTest(t, "lease-sig")
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
	acctest.TestJobSteps(t, name, []resource.TestStep{
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
	})
}

// waitTimerToken waits until the lease's timer has printed its result
// token (a line with three dot-separated parts) to its log, in the newest
// allocation (a replaced lease's job keeps its name, and Nomad lists the
// allocations of the one before until it collects them).
func waitTimerToken(t *testing.T, name string) {
	t.Helper()
	nomad := acctest.Nomad(t)
	acctest.WaitFor(t, "lease "+name+"'s timer to print its result token", 2*time.Minute, func() (bool, error) {
		allocs, _, err := nomad.Jobs().Allocations(name, false, nil)
		if err != nil || len(allocs) == 0 {
			return false, err
		}
		newest := allocs[0]
		for _, a := range allocs {
			if a.CreateIndex > newest.CreateIndex {
				newest = a
			}
		}
		alloc, _, err := nomad.Allocations().Info(newest.ID, nil)
		if err != nil {
			return false, err
		}
		r, err := nomad.AllocFS().Cat(alloc, "alloc/logs/lease-timer.stdout.0", nil)
		if err != nil {
			return false, nil // no log yet
		}
		defer r.Close()
		b, err := io.ReadAll(r)
		return err == nil && jwtLine.MatchString(strings.SplitN(string(b), "\n", 2)[0]), nil
	})
}

// TestAccLeaseResult_boundToTheCurrentLease: a result signature is valid
// only for the lease in Nomad now. A signature recorded before an in-place
// duration change (the allocation of the earlier version is still in
// Nomad) says it belongs to an earlier version; one recorded before the
// lease is replaced (same name: every renewal and replacement keeps it)
// is not valid either (its allocation went with the purged job, or it ran
// an earlier lease). Each is a genuine token of the cluster's for an
// allocation of a job of that name. The current lease's own is valid.
func TestAccLeaseResult_boundToTheCurrentLease(t *testing.T) {
	key, _, name := startLeaseTest(t, "lease-bound")
	lease := func(duration, args string) string {
		return leaseProvider(key) + strings.Replace(leaseResourceConfig("l", name, duration, ""), `["3600"]`, args, 1) + `
variable "old_signature" {
  type    = string
  default = ""
}
data "berth_lease_result" "old" {
  count     = var.old_signature == "" ? 0 : 1
  lease_id  = berth_reservation.l.id
  signature = var.old_signature
}
data "berth_lease_result" "new" {
  lease_id  = berth_reservation.l.id
  signature = berth_reservation.l.result.signature
}
`
	}
	var oldSig, oldAlloc string
	record := func(s *terraform.State) error {
		a := s.RootModule().Resources[leaseAddr].Primary.Attributes
		oldSig, oldAlloc = a["result.signature"], a["result.allocation_id"]
		if oldSig == "" {
			return fmt.Errorf("the running lease has no result signature")
		}
		return nil
	}
	// The old signature is known only once an earlier step ran.
	old := config.Variables{"old_signature": lateString(func() string { return oldSig })}
	check := func(wantOld string) resource.TestCheckFunc {
		return func(s *terraform.State) error {
			res := s.RootModule().Resources
			l := res[leaseAddr].Primary.Attributes
			if l["result.signature"] == "" || l["result.signature"] == oldSig || l["result.allocation_id"] == oldAlloc {
				return fmt.Errorf("the lease's result: signature %q, allocation %s; want a new one", l["result.signature"], l["result.allocation_id"])
			}
			o := res["data.berth_lease_result.old.0"].Primary.Attributes
			if o["valid"] != "false" || !regexp.MustCompile(wantOld).MatchString(o["problem"]) {
				return fmt.Errorf("the earlier signature: valid %s, problem %q; want false, matching %q", o["valid"], o["problem"], wantOld)
			}
			cur := res["data.berth_lease_result.new"].Primary.Attributes
			if cur["valid"] != "true" || cur["allocation_id"] != l["result.allocation_id"] {
				return fmt.Errorf("the current lease's signature %q: valid %s (%s), allocation %q; want true and %q",
					l["result.signature"], cur["valid"], cur["problem"], cur["allocation_id"], l["result.allocation_id"])
			}
			return nil
		}
	}
	acctest.TestJobSteps(t, name, []resource.TestStep{
		{Config: lease("1h", `["3600"]`)},
		{PreConfig: func() { waitTimerToken(t, name) }, Config: lease("1h", `["3600"]`), Check: record},
		{
			Config: lease("2h", `["3600"]`), ConfigVariables: old,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(leaseAddr, plancheck.ResourceActionUpdate),
			}},
		},
		{
			PreConfig: func() { waitTimerToken(t, name) }, Config: lease("2h", `["3600"]`), ConfigVariables: old,
			Check: resource.ComposeAggregateTestCheckFunc(check("issued to an earlier version of this lease"), record),
		},
		{
			// A workload change replaces the lease.
			Config: lease("2h", `["3599"]`), ConfigVariables: old,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(leaseAddr, plancheck.ResourceActionReplace),
			}},
		},
		{
			PreConfig: func() { waitTimerToken(t, name) }, Config: lease("2h", `["3599"]`), ConfigVariables: old,
			Check: check(`issued to an earlier lease of the same name|is no longer in Nomad`),
		},
	})
}

// jwtLine is a line holding a JWT (three base64url parts), not an error
// text that happens to have dots.
var jwtLine = regexp.MustCompile(`^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$`)

// lateString is a config variable whose value is read when the step runs,
// for a value an earlier step records.
type lateString func() string

func (f lateString) MarshalJSON() ([]byte, error) { return json.Marshal(f()) }
