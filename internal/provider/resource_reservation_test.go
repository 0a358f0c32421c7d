package provider

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

func leaseConfig(key, name, duration, extra string) string {
	return fmt.Sprintf(`
provider "berth" {
  signing_key = %q
}
resource "berth_reservation" "l" {
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
}`, key, name, duration, extra)
}

func withLeaseJob(t *testing.T, name string, f func(*api.Job, []*api.AllocationListStub) error) resource.TestCheckFunc {
	return withJob(t, name, f)
}

// waitLeaseEnded waits, without any Terraform action, until Nomad itself
// has ended the lease: the allocation complete and the job dead.
func waitLeaseEnded(t *testing.T, name string) {
	c := testNomad(t)
	waitFor(t, "the lease "+name+" to end on its own", 2*time.Minute, func() (bool, error) {
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

func TestAccReservation_expiresAndRenews(t *testing.T) {
	t.Parallel()
	testAccPreCheck(t)
	key, pub := testSigningKey(t)
	name := "berth-acc-lease-" + randomHex(3)
	cfg := leaseConfig(key, name, "45s", "") // long enough to outlast step 1 on a busy machine
	var firstCreated string
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             checkInstanceDestroyed(t, name),
		Steps: []resource.TestStep{
			{
				Config: cfg,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(leaseAddr, tfjsonpath.New("user"), knownvalue.StringExact(pub)),
					statecheck.ExpectKnownValue(leaseAddr, tfjsonpath.New("verified"), knownvalue.Bool(true)),
					statecheck.ExpectKnownValue(leaseAddr, tfjsonpath.New("expired"), knownvalue.Bool(false)),
					statecheck.ExpectKnownValue(leaseAddr, tfjsonpath.New("result").AtMapKey("state"), knownvalue.StringExact("ok")),
				},
				Check: resource.ComposeAggregateTestCheckFunc(
					withLeaseJob(t, name, func(job *api.Job, allocs []*api.AllocationListStub) error {
						if deref(job.Type) != "batch" || job.Meta[lease.MetaSignature] == "" || job.Meta[lease.MetaUser] != pub {
							return fmt.Errorf("job type %s, meta %v", deref(job.Type), job.Meta)
						}
						var leader bool
						for _, task := range job.TaskGroups[0].Tasks {
							if task.Name == lease.TimerTask && task.Leader {
								leader = true
							}
						}
						if !leader {
							return fmt.Errorf("no leader timer task in %s", name)
						}
						return nil
					}),
					func(s *terraform.State) error {
						firstCreated = s.RootModule().Resources[leaseAddr].Primary.Attributes["created_at"]
						return nil
					},
				),
			},
			{
				// Nomad ends the lease by itself; the next plan renews it. The
				// new lease is longer so it is still running when checked (a
				// duration change alone would be an in-place update, so the
				// replacement below is the renewal).
				PreConfig: func() { waitLeaseEnded(t, name) },
				Config:    leaseConfig(key, name, "5m", ""),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(leaseAddr, plancheck.ResourceActionDestroyBeforeCreate),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(leaseAddr, tfjsonpath.New("result").AtMapKey("state"), knownvalue.StringExact("ok")),
				},
				Check: func(s *terraform.State) error {
					if got := s.RootModule().Resources[leaseAddr].Primary.Attributes["created_at"]; got == firstCreated {
						return fmt.Errorf("renewed lease kept created_at %s", got)
					}
					return nil
				},
			},
		},
	})
}

func TestAccReservation_expiredWithoutRenewStays(t *testing.T) {
	t.Parallel()
	testAccPreCheck(t)
	key, _ := testSigningKey(t)
	name := "berth-acc-lease-norenew-" + randomHex(3)
	cfg := leaseConfig(key, name, "15s", "renew = false")
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             checkInstanceDestroyed(t, name),
		Steps: []resource.TestStep{
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
		},
	})
}

func TestAccReservation_tamperingIsDetected(t *testing.T) {
	t.Parallel()
	testAccPreCheck(t)
	key, _ := testSigningKey(t)
	name := "berth-acc-lease-tamper-" + randomHex(3)
	cfg := leaseConfig(key, name, "10m", "")
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             checkInstanceDestroyed(t, name),
		Steps: []resource.TestStep{
			{Config: cfg},
			{
				PreConfig: mutateJob(t, name, func(j *api.Job) {
					for _, task := range j.TaskGroups[0].Tasks {
						if task.Name == lease.WorkloadTask {
							if task.Env == nil {
								task.Env = map[string]string{}
							}
							task.Env["SNEAKY"] = "1"
						}
					}
				}),
				RefreshState:       true,
				ExpectNonEmptyPlan: true, // the replacement, checked by the next step
				Check:              resource.TestCheckResourceAttr(leaseAddr, "verified", "false"),
			},
			{
				Config: cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(leaseAddr, plancheck.ResourceActionDestroyBeforeCreate),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(leaseAddr, tfjsonpath.New("verified"), knownvalue.Bool(true)),
				},
			},
		},
	})
}

func TestAccReservation_durationInPlaceAndImport(t *testing.T) {
	t.Parallel()
	testAccPreCheck(t)
	key, pub := testSigningKey(t)
	name := "berth-acc-lease-dur-" + randomHex(3)
	var created, sig string
	nodeDS := `
data "berth_node" "n" {
  id = berth_reservation.l.result.node_id
}`
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             checkInstanceDestroyed(t, name),
		Steps: []resource.TestStep{
			{
				Config: leaseConfig(key, name, "10m", "") + nodeDS,
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
				Config: leaseConfig(key, name, "20m", "") + nodeDS,
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
						if want := c.Add(20 * time.Minute).UTC().Format(time.RFC3339); job.Meta[lease.MetaExpiresAt] != want {
							return fmt.Errorf("expires_at in Nomad = %q, want %q", job.Meta[lease.MetaExpiresAt], want)
						}
						return nil
					}),
				),
			},
			{
				ResourceName:            leaseAddr,
				ImportState:             true,
				ImportStateId:           "default/" + name,
				ImportStateVerify:       true,
				ImportStateVerifyIgnore: []string{"result"},
			},
		},
	})
}

func TestAccReservation_workloadThatCannotStart(t *testing.T) {
	t.Parallel()
	testAccPreCheck(t)
	name := "berth-acc-lease-fail-" + randomHex(3)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             checkInstanceDestroyed(t, name),
		Steps: []resource.TestStep{{
			Config: fmt.Sprintf(`
resource "berth_reservation" "l" {
  name     = %q
  duration = "5m"
  workload = { driver = "raw_exec", command = "/bin/sh", args = ["-c", "echo no >&2; exit 3"], cpu = 50, memory = 32, disk = 150 }
}`, name),
			ExpectError: regexp.MustCompile(`(?s)workload did not start.*Exit Code: 3`),
		}},
	})
}
