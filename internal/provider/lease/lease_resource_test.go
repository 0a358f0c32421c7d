package lease

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"regexp"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
	"github.com/berthhq/terraform-provider-berth/internal/lease"
)

const leaseAddr = "berth_reservation.l"

// testSigningKey returns a fresh key as the provider takes it (base64 of
// the seed) and its public key in hex.
func testSigningKey(t *testing.T) (string, string) {
	t.Helper()
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(priv.Seed()), hex.EncodeToString(pub)
}

// startLeaseTest readies an acceptance test on a lease: it runs in
// parallel once the agent is checked, with a fresh signing key (as
// testSigningKey gives it) and a job name "berth-acc-<label>-<random>".
func startLeaseTest(t *testing.T, label string) (key, pub, name string) {
	t.Helper()
	t.Parallel()
	acctest.PreCheck(t)
	key, pub = testSigningKey(t)
	return key, pub, "berth-acc-" + label + "-" + acctest.RandomHex(3)
}

func leaseConfig(key, name, duration, extra string) string {
	return leaseProvider(key) + leaseResourceConfig("l", name, duration, extra)
}

func leaseProvider(key string) string {
	return fmt.Sprintf(`
provider "berth" {
  signing_key = %q
}
`, key)
}

// leaseResourceConfig is a berth_reservation named res running a sleep.
func leaseResourceConfig(res, name, duration, extra string) string {
	return fmt.Sprintf(`
resource "berth_reservation" %q {
  name     = %q
  duration = %q
  workload = {
    driver  = "raw_exec"
    command = "/bin/sleep"
    args    = ["3600"]
    cpu     = 50
    memory  = 32
    disk    = 150
  }
  %s
}
`, res, name, duration, extra)
}

// recordAttr is a check that keeps the attribute key of the resource at
// addr in into, for a later step to compare.
func recordAttr(addr, key string, into *string) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		*into = s.RootModule().Resources[addr].Primary.Attributes[key]
		return nil
	}
}

func withLeaseJob(t *testing.T, name string, f func(*api.Job, []*api.AllocationListStub) error) resource.TestCheckFunc {
	return acctest.WithJob(t, name, f)
}

// waitLeaseEnded waits, without any Terraform action, until Nomad itself
// has ended the lease: the allocation complete and the job dead.
func waitLeaseEnded(t *testing.T, name string) {
	c := acctest.Nomad(t)
	acctest.WaitFor(t, "the lease "+name+" to end on its own", 2*time.Minute, func() (bool, error) {
		job, _, err := c.Jobs().Info(name, nil)
		if err != nil {
			return false, err
		}
		allocs, _, err := c.Jobs().Allocations(name, false, nil)
		if err != nil || len(allocs) == 0 {
			return false, err
		}
		a := allocs[0]
		done := deref(job.Status) == "dead" && a.ClientStatus == "complete"
		if done {
			if w := a.TaskStates[lease.WorkloadTask]; w == nil || w.Failed {
				return false, fmt.Errorf("workload task state at expiry: %+v", w)
			}
		}
		return done, fmt.Errorf("job %s, allocation %s", deref(job.Status), a.ClientStatus)
	})
}

// checkLeaseVerifies reads the lease job from Nomad and checks it is a
// clean lease (the two tasks berth writes, timer as leader) signed by pub.
func checkLeaseVerifies(t *testing.T, name, pub string) resource.TestCheckFunc {
	return withLeaseJob(t, name, func(job *api.Job, _ []*api.AllocationListStub) error {
		if deref(job.Type) != "batch" || len(job.TaskGroups) != 1 || len(job.TaskGroups[0].Tasks) != 2 {
			return fmt.Errorf("job %s: type %s, %d groups, want one batch group with the workload and timer tasks",
				name, deref(job.Type), len(job.TaskGroups))
		}
		live, err := lease.LeaseFromJob(job)
		if err != nil {
			return err
		}
		key, err := hex.DecodeString(pub)
		if err != nil {
			return err
		}
		if status, problems := lease.Check(live, lease.Trust{Key: ed25519.PublicKey(key)}); status != lease.Verified {
			return fmt.Errorf("job %s in Nomad does not verify against %s: %v", name, lease.HexPrefix(pub), problems)
		}
		return nil
	})
}

// TestAccLease_expiresAndRenews: checks on a live lease use one long
// enough to outlast any step; expiry and renewal use a deliberately short
// one whose end is awaited as a condition, never assumed from the clock.
func TestAccLease_expiresAndRenews(t *testing.T) {
	key, pub, name := startLeaseTest(t, "lease")
	short := name + "-short"
	const liveAddr, shortAddr = "berth_reservation.live", "berth_reservation.short"
	live := leaseResourceConfig("live", name, "1h", "")
	var firstCreated string
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy:             resource.ComposeAggregateTestCheckFunc(acctest.CheckInstanceDestroyed(t, name), acctest.CheckInstanceDestroyed(t, short)),
		Steps: []resource.TestStep{
			{
				Config: leaseProvider(key) + live + leaseResourceConfig("short", short, "3s", "wait_for_running = false"),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(liveAddr, tfjsonpath.New("user"), knownvalue.StringExact(pub)),
					statecheck.ExpectKnownValue(liveAddr, tfjsonpath.New("verified"), knownvalue.Bool(true)),
					statecheck.ExpectKnownValue(liveAddr, tfjsonpath.New("expired"), knownvalue.Bool(false)),
					statecheck.ExpectKnownValue(liveAddr, tfjsonpath.New("result").AtMapKey("state"), knownvalue.StringExact("ok")),
					statecheck.ExpectKnownValue(shortAddr, tfjsonpath.New("verified"), knownvalue.Bool(true)),
				},
				Check: resource.ComposeTestCheckFunc(
					checkLeaseVerifies(t, name, pub),
					withLeaseJob(t, name, func(job *api.Job, _ []*api.AllocationListStub) error {
						for _, task := range job.TaskGroups[0].Tasks {
							if task.Name == lease.TimerTask && task.Leader {
								return nil
							}
						}
						return fmt.Errorf("no leader timer task in %s", name)
					}),
					recordAttr(shortAddr, "created_at", &firstCreated),
					// Last: Nomad ends the short lease by itself, so the
					// plans after this step deterministically renew it.
					func(*terraform.State) error { waitLeaseEnded(t, short); return nil },
				),
				ExpectNonEmptyPlan: true,
				ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPostRefresh: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(shortAddr, plancheck.ResourceActionDestroyBeforeCreate),
					plancheck.ExpectResourceAction(liveAddr, plancheck.ResourceActionNoop),
				}},
			},
			{
				RefreshState: true,
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(shortAddr, "expired", "true"),
					resource.TestCheckResourceAttr(shortAddr, "result.state", "expired"),
					resource.TestCheckResourceAttr(shortAddr, "verified", "true"),
					resource.TestCheckResourceAttr(liveAddr, "expired", "false"),
				),
				ExpectNonEmptyPlan: true,
				RefreshPlanChecks: resource.RefreshPlanChecks{PostRefresh: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(shortAddr, plancheck.ResourceActionDestroyBeforeCreate),
				}},
			},
			{
				// The renewal. The new lease is long, so it is still running
				// when checked (the expired lease renews whatever its new
				// duration: renewal wins over an in-place duration change).
				Config: leaseProvider(key) + live + leaseResourceConfig("short", short, "1h", ""),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(shortAddr, plancheck.ResourceActionDestroyBeforeCreate),
					plancheck.ExpectResourceAction(liveAddr, plancheck.ResourceActionNoop),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(shortAddr, tfjsonpath.New("expired"), knownvalue.Bool(false)),
					statecheck.ExpectKnownValue(shortAddr, tfjsonpath.New("verified"), knownvalue.Bool(true)),
					statecheck.ExpectKnownValue(shortAddr, tfjsonpath.New("result").AtMapKey("state"), knownvalue.StringExact("ok")),
				},
				Check: resource.ComposeAggregateTestCheckFunc(
					checkLeaseVerifies(t, short, pub),
					func(s *terraform.State) error {
						got := s.RootModule().Resources[shortAddr].Primary.Attributes["created_at"]
						if got == firstCreated {
							return fmt.Errorf("renewed lease kept created_at %s", got)
						}
						return nil
					},
					withLeaseJob(t, short, func(job *api.Job, _ []*api.AllocationListStub) error {
						if deref(job.Status) == "dead" {
							return fmt.Errorf("renewed lease %s is dead in Nomad", short)
						}
						return nil
					}),
				),
			},
		},
	})
}

// TestAccLease_expiredWithoutRenewStays: a short lease without renew
// ends on its own; the refreshed state says so and no change is planned.
func TestAccLease_expiredWithoutRenewStays(t *testing.T) {
	key, _, name := startLeaseTest(t, "lease-norenew")
	// Nothing checks the lease while it runs, so it may end at any point
	// of the first step without changing any outcome.
	cfg := leaseConfig(key, name, "3s", "renew = false\n  wait_for_running = false")
	acctest.TestJobSteps(t, name, []resource.TestStep{
		{Config: cfg},
		{
			PreConfig:    func() { waitLeaseEnded(t, name) },
			RefreshState: true,
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttr(leaseAddr, "expired", "true"),
				resource.TestCheckResourceAttr(leaseAddr, "result.state", "expired"),
				resource.TestCheckResourceAttr(leaseAddr, "verified", "true"),
			),
		},
		{Config: cfg, PlanOnly: true},
	})
}

func TestAccLease_durationInPlaceAndImport(t *testing.T) {
	key, pub, name := startLeaseTest(t, "lease-dur")
	var created, sig string
	var jobVersion uint64
	timeouts := `timeouts = { create = "5m", update = "5m", delete = "5m" }`
	nodeDS := `
data "berth_node" "n" {
  id = berth_reservation.l.result.node_id
}`
	acctest.TestJobSteps(t, name, []resource.TestStep{
		{
			Config: leaseConfig(key, name, "1h", timeouts) + nodeDS,
			Check: resource.ComposeAggregateTestCheckFunc(
				func(s *terraform.State) error {
					a := s.RootModule().Resources[leaseAddr].Primary.Attributes
					created, sig = a["created_at"], a["signature"]
					return nil
				},
				// The node data source lists the lease running there.
				resource.TestCheckTypeSetElemNestedAttrs("data.berth_node.n", "leases.*", map[string]string{
					"name": name, "namespace": "default", "user": pub, "resources.cpu": fmt.Sprint(50 + lease.TimerCPU), "resources.memory": fmt.Sprint(32 + lease.TimerMemoryMB),
				}),
			),
		},
		{
			Config: leaseConfig(key, name, "2h", timeouts) + nodeDS,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(leaseAddr, plancheck.ResourceActionUpdate),
			}},
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(leaseAddr, tfjsonpath.New("verified"), knownvalue.Bool(true)),
			},
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttrWith(leaseAddr, "created_at", func(v string) error {
					if v != created {
						return fmt.Errorf("created_at moved from %s to %s", created, v)
					}
					return nil
				}),
				resource.TestCheckResourceAttrWith(leaseAddr, "signature", func(v string) error {
					if v == sig {
						return fmt.Errorf("the lease was not signed again")
					}
					return nil
				}),
				withLeaseJob(t, name, func(job *api.Job, _ []*api.AllocationListStub) error {
					c, _ := time.Parse(time.RFC3339, created)
					if want := c.Add(2 * time.Hour).UTC().Format(time.RFC3339); job.Meta[lease.MetaExpiresAt] != want {
						return fmt.Errorf("expires_at in Nomad = %q, want %q", job.Meta[lease.MetaExpiresAt], want)
					}
					return nil
				}),
				func(s *terraform.State) error {
					job, _, err := acctest.Nomad(t).Jobs().Info(name, nil)
					if err != nil {
						return err
					}
					return acctest.CheckAttrInt(s, leaseAddr, "job_modify_index", int64(deref(job.JobModifyIndex)))
				},
				func(*terraform.State) error {
					job, _, err := acctest.Nomad(t).Jobs().Info(name, nil)
					jobVersion = deref(job.Version)
					return err
				},
			),
		},
		{
			// Settings berth keeps to itself change in place without a
			// new job version (which would restart the workload).
			Config: leaseConfig(key, name, "2h", `timeouts = { create = "5m", update = "7m", delete = "5m" }`) + nodeDS,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(leaseAddr, plancheck.ResourceActionUpdate),
			}},
			Check: withLeaseJob(t, name, func(job *api.Job, _ []*api.AllocationListStub) error {
				if deref(job.Version) != jobVersion {
					return fmt.Errorf("job version %d after changing only timeouts, want %d", deref(job.Version), jobVersion)
				}
				return nil
			}),
		},
		{
			ResourceName:            leaseAddr,
			ImportState:             true,
			ImportStateId:           "default/" + name,
			ImportStateVerify:       true,
			ImportStateVerifyIgnore: []string{"result", "timeouts"},
		},
	})
}

func TestAccLease_workloadThatCannotStart(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	name := "berth-acc-lease-fail-" + acctest.RandomHex(3)
	acctest.TestJobSteps(t, name, []resource.TestStep{{
		Config: fmt.Sprintf(`
resource "berth_reservation" "l" {
  name     = %q
  duration = "5m"
  workload = { driver = "raw_exec", command = "/bin/sh", args = ["-c", "echo no >&2; exit 3"], cpu = 50, memory = 32, disk = 150 }
}`, name),
		ExpectError: regexp.MustCompile(`(?s)workload did not start.*Exit Code: 3`),
	}})
}

// deref is *p, or the zero value when p is nil.
func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}
