package lease

import (
	"fmt"
	"regexp"
	"slices"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
	"github.com/berthhq/terraform-provider-berth/internal/lease"
)

// TestAccLease_referenceEndsWithReferenced: a lease that refers to another
// ends, in Nomad and with no Terraform run, when the other is stopped
// (as its expiry or destroy would stop it); the next refresh reads it
// expired. A reference to a lease that does not exist is refused.
func TestAccLease_referenceEndsWithReferenced(t *testing.T) {
	key, pub, parent := startLeaseTest(t, "lease-parent")
	child := "berth-acc-lease-child-" + acctest.RandomHex(3)
	nomad := acctest.Nomad(t)
	// renew = false: both stay ended, so the plans after this test's
	// steps are empty.
	cfg := referringConfig(key, parent, child)
	childAddr := "berth_reservation.child"
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy:             acctest.CheckInstanceDestroyed(t, child),
		Steps: []resource.TestStep{
			{
				Config:      leaseProvider(key) + leaseResourceConfig("child", child, "1h", `reference = "default/berth-acc-nope"`),
				ExpectError: regexp.MustCompile(`Referenced lease not found`),
			},
			{
				Config: cfg,
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(childAddr, "reference", "default/"+parent),
					childRunsVerified(t, child, pub),
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
						acctest.WaitFor(t, "lease "+child+" to end with "+parent, 2*time.Minute, func() (bool, error) {
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

// TestAccLease_referenceIgnoresDecoyService: another job (not a lease)
// registers a Nomad service of the referenced lease's service name. When
// the referenced lease ends, the referring one still ends, in Nomad and
// with no Terraform run, while the decoy keeps running.
func TestAccLease_referenceIgnoresDecoyService(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	key, pub := testSigningKey(t)
	suffix := acctest.RandomHex(3)
	parent, child, decoy := "berth-acc-lease-dparent-"+suffix, "berth-acc-lease-dchild-"+suffix, "berth-acc-decoy-"+suffix
	nomad := acctest.Nomad(t)
	t.Cleanup(func() { _, _, _ = nomad.Jobs().Deregister(decoy, true, nil) })
	service := lease.ServiceName("default", parent)
	cfg := referringConfig(key, parent, child)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy:             acctest.CheckInstanceDestroyed(t, child),
		Steps: []resource.TestStep{{
			Config: cfg,
			Check: resource.ComposeAggregateTestCheckFunc(
				childRunsVerified(t, child, pub),
				func(*terraform.State) error {
					registerDecoy(t, nomad, decoy, service)
					if _, _, err := nomad.Jobs().Deregister(parent, false, nil); err != nil {
						return err
					}
					acctest.WaitFor(t, "lease "+child+" to end with "+parent+" despite the decoy", 2*time.Minute, leaseEnded(nomad, child))
					// The decoy was there all along and still is.
					if owners := serviceOwners(t, nomad, service); len(owners) != 1 || owners[0] != decoy {
						return fmt.Errorf("service %s is registered by %q after %s ended, want only the decoy %s", service, owners, child, decoy)
					}
					allocs, _, err := nomad.Jobs().Allocations(decoy, false, nil)
					if err != nil {
						return err
					}
					if len(allocs) != 1 || allocs[0].ClientStatus != api.AllocClientStatusRunning {
						return fmt.Errorf("decoy %s is no longer running: %d allocations", decoy, len(allocs))
					}
					return nil
				},
			),
		}},
	})
}

// registerDecoy runs a plain raw_exec job that registers a Nomad service
// named service, and waits until Nomad lists its registration.
func registerDecoy(t *testing.T, nomad *api.Client, name, service string) {
	t.Helper()
	if _, _, err := nomad.Jobs().Register(serviceJob(name, api.JobTypeService, "decoy", service), nil); err != nil {
		t.Fatalf("registering decoy %s: %v", name, err)
	}
	acctest.WaitFor(t, "decoy "+name+" to register service "+service, 2*time.Minute, func() (bool, error) {
		return slices.Contains(serviceOwners(t, nomad, service), name), nil
	})
}

// serviceJob is a plain raw_exec job (no lease) of type typ in the
// default namespace whose one group, group, registers the Nomad service.
func serviceJob(name, typ, group, service string) *api.Job {
	return &api.Job{
		ID: new(name), Name: new(name), Type: new(typ), Namespace: new("default"),
		TaskGroups: []*api.TaskGroup{{
			Name:     new(group),
			Count:    new(1),
			Services: []*api.Service{{Name: service, Provider: "nomad"}},
			Tasks: []*api.Task{{
				Name: "sleep", Driver: "raw_exec",
				Config:    map[string]any{"command": "/bin/sleep", "args": []string{"3600"}},
				Resources: &api.Resources{CPU: new(20), MemoryMB: new(16)},
			}},
		}},
	}
}

// serviceOwners lists the jobs with a registration of the Nomad service.
func serviceOwners(t *testing.T, nomad *api.Client, service string) []string {
	t.Helper()
	regs, _, err := nomad.Services().Get(service, nil)
	if err != nil {
		t.Fatalf("reading service %s: %v", service, err)
	}
	var jobs []string
	for _, r := range regs {
		jobs = append(jobs, r.JobID)
	}
	slices.Sort(jobs)
	return slices.Compact(jobs)
}

// TestAccLease_referenceIgnoresReusedName: the referenced lease's job is
// replaced in Nomad by a job of the same name that is no lease, and
// registers the referenced lease's service. The referring lease belongs to
// the allocation berth verified, not to the name: it still ends, in Nomad
// and with no Terraform run, while the impostor runs.
func TestAccLease_referenceIgnoresReusedName(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	key, pub := testSigningKey(t)
	suffix := acctest.RandomHex(3)
	parent, child := "berth-acc-lease-rparent-"+suffix, "berth-acc-lease-rchild-"+suffix
	nomad := acctest.Nomad(t)
	t.Cleanup(func() { _, _, _ = nomad.Jobs().Deregister(parent, true, nil) })
	service := lease.ServiceName("default", parent)
	cfg := referringConfig(key, parent, child)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy:             acctest.CheckInstanceDestroyed(t, child),
		Steps: []resource.TestStep{{
			Config: cfg,
			// The impostor is no lease: the plan after the step replaces
			// the referenced lease.
			ExpectNonEmptyPlan: true,
			Check: resource.ComposeAggregateTestCheckFunc(
				childRunsVerified(t, child, pub),
				func(*terraform.State) error {
					impostor := serviceJob(parent, api.JobTypeBatch, lease.GroupName, service)
					if _, _, err := nomad.Jobs().Register(impostor, nil); err != nil {
						return fmt.Errorf("registering the impostor %s: %w", parent, err)
					}
					acctest.WaitFor(t, "lease "+child+" to end although job "+parent+" registers its service", 3*time.Minute, leaseEnded(nomad, child))
					// The impostor registers the service all along and still does.
					if owners := serviceOwners(t, nomad, service); len(owners) != 1 || owners[0] != parent {
						return fmt.Errorf("service %s is registered by %q after %s ended, want the impostor %s", service, owners, child, parent)
					}
					return nil
				},
			),
		}},
	})
}

// leaseEnded holds once the lease's job is dead and its allocation
// completed (its timer ended it).
func leaseEnded(nomad *api.Client, name string) func() (bool, error) {
	return func() (bool, error) {
		j, _, err := nomad.Jobs().Info(name, nil)
		if err != nil {
			return false, err
		}
		allocs, _, err := nomad.Jobs().Allocations(name, true, nil)
		if err != nil {
			return false, err
		}
		return *j.Status == "dead" && len(allocs) > 0 && allocs[0].ClientStatus == api.AllocClientStatusComplete, nil
	}
}

// referringConfig is lease parent and lease child, which refers to it;
// neither renews, so both stay ended once ended.
func referringConfig(key, parent, child string) string {
	return leaseProvider(key) + leaseResourceConfig("parent", parent, "1h", "renew = false") +
		leaseResourceConfig("child", child, "1h", "renew = false\n  reference = berth_reservation.parent.id")
}

// childRunsVerified checks that lease child (berth_reservation.child)
// runs and verifies against pub.
func childRunsVerified(t *testing.T, child, pub string) resource.TestCheckFunc {
	return resource.ComposeAggregateTestCheckFunc(
		resource.TestCheckResourceAttr("berth_reservation.child", "result.state", "ok"),
		checkLeaseVerifies(t, child, pub),
	)
}
