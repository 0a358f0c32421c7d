package lease

import (
	"crypto/ed25519"
	"crypto/rand"
	"fmt"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
	"github.com/berthhq/terraform-provider-berth/internal/lease"
)

// TestAccLease_revertToEarlierSignedVersion: a lease signed for 24h,
// shortened in place to 1h (signed again, same created_at), then brought
// back to the 24h version in Nomad (nomad job revert): its signature is
// valid and by the provider's key, but older than the one berth recorded,
// so the refresh reads verified = false, the next plan replaces the lease
// and Nomad ends up holding a clean 1h lease.
func TestAccLease_revertToEarlierSignedVersion(t *testing.T) {
	key, pub, name := startLeaseTest(t, "lease-revert")
	var created string
	revert := revertLease(t, name, "1h0m0s", "24h0m0s")
	acctest.TestJobSteps(t, name, []resource.TestStep{
		{
			Config: leaseConfig(key, name, "24h", ""),
			Check:  recordAttr(leaseAddr, "created_at", &created),
		},
		{
			Config: leaseConfig(key, name, "1h", ""),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(leaseAddr, plancheck.ResourceActionUpdate),
			}},
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttr(leaseAddr, "verified", "true"),
				resource.TestCheckResourceAttrPtr(leaseAddr, "created_at", &created),
			),
		},
		{
			PreConfig:          revert,
			RefreshState:       true,
			ExpectNonEmptyPlan: true,
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttr(leaseAddr, "verified", "false"),
				resource.TestCheckResourceAttr(leaseAddr, "user", pub),
			),
			RefreshPlanChecks: resource.RefreshPlanChecks{PostRefresh: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(leaseAddr, plancheck.ResourceActionDestroyBeforeCreate),
			}},
		},
		{
			Config: leaseConfig(key, name, "1h", ""),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(leaseAddr, plancheck.ResourceActionDestroyBeforeCreate),
			}},
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttr(leaseAddr, "verified", "true"),
				resource.TestCheckResourceAttr(leaseAddr, "duration", "1h"),
				checkLeaseVerifies(t, name, pub),
				withLeaseJob(t, name, func(job *api.Job, _ []*api.AllocationListStub) error {
					c, err := time.Parse(time.RFC3339, job.Meta[lease.MetaCreatedAt])
					if err != nil {
						return err
					}
					if job.Meta[lease.MetaDuration] != "1h0m0s" || job.Meta[lease.MetaCreatedAt] == created {
						return fmt.Errorf("Nomad holds duration %q created %s; want a new 1h lease (not created %s)",
							job.Meta[lease.MetaDuration], c.Format(time.RFC3339), created)
					}
					if job.Meta[lease.MetaSignedAt] == "" {
						return fmt.Errorf("the new lease has no meta %s", lease.MetaSignedAt)
					}
					return nil
				}),
			),
		},
	})
}

// TestAccLease_strangerSignatureOnUnsignedLease: without a provider
// signing_key, a lease berth wrote unsigned that is then changed in Nomad
// and signed with someone else's key reads verified = false (it changed
// behind Terraform's back), never true, and the stranger's key never
// becomes user; the next plan replaces it with an unsigned lease again.
func TestAccLease_strangerSignatureOnUnsignedLease(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	_, stranger, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	name := "berth-acc-lease-tofu-" + acctest.RandomHex(3)
	cfg := `provider "berth" {}` + leaseResourceConfig("l", name, "1h", "")
	acctest.TestJobSteps(t, name, []resource.TestStep{
		{
			Config: cfg,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(leaseAddr, tfjsonpath.New("verified"), knownvalue.Null()),
				statecheck.ExpectKnownValue(leaseAddr, tfjsonpath.New("user"), knownvalue.Null()),
			},
		},
		{
			PreConfig: acctest.MutateJob(t, name, func(j *api.Job) {
				leaseTask(j, lease.WorkloadTask).Env = map[string]string{"SNEAKY": "1"}
				l, err := lease.LeaseFromJob(j)
				if err != nil {
					t.Fatal(err)
				}
				if l, err = lease.Sign(l, stranger); err != nil {
					t.Fatal(err)
				}
				j.Meta[lease.MetaUser], j.Meta[lease.MetaSignature] = l.User, l.Signature
			}),
			RefreshState:       true,
			ExpectNonEmptyPlan: true,
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttr(leaseAddr, "verified", "false"),
				resource.TestCheckNoResourceAttr(leaseAddr, "user"),
			),
			RefreshPlanChecks: resource.RefreshPlanChecks{PostRefresh: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(leaseAddr, plancheck.ResourceActionDestroyBeforeCreate),
			}},
		},
		{
			Config: cfg,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(leaseAddr, plancheck.ResourceActionDestroyBeforeCreate),
			}},
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(leaseAddr, tfjsonpath.New("verified"), knownvalue.Null()),
				statecheck.ExpectKnownValue(leaseAddr, tfjsonpath.New("user"), knownvalue.Null()),
			},
			Check: withLeaseJob(t, name, func(job *api.Job, _ []*api.AllocationListStub) error {
				if job.Meta[lease.MetaUser] != "" || job.Meta[lease.MetaSignature] != "" || leaseTask(job, lease.WorkloadTask).Env["SNEAKY"] != "" {
					return fmt.Errorf("Nomad still holds the stranger's lease: user %q, env %v",
						job.Meta[lease.MetaUser], leaseTask(job, lease.WorkloadTask).Env)
				}
				return nil
			}),
		},
	})
}
