package lease

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"fmt"
	"regexp"
	"strconv"
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

// planCheckFunc adapts a function to plancheck.PlanCheck.
type planCheckFunc func(context.Context, plancheck.CheckPlanRequest, *plancheck.CheckPlanResponse)

func (f planCheckFunc) CheckPlan(ctx context.Context, req plancheck.CheckPlanRequest, resp *plancheck.CheckPlanResponse) {
	f(ctx, req, resp)
}

func leaseTask(job *api.Job, name string) *api.Task {
	for _, task := range job.TaskGroups[0].Tasks {
		if task.Name == name {
			return task
		}
	}
	panic("no task " + name)
}

// tamperSteps changes the lease job through the Nomad API, then expects
// the refresh to read verified = false and plan a replacement, and the
// apply to leave Nomad with a clean lease signed by pub.
func tamperSteps(t *testing.T, name, pub, cfg string, tamper func(*api.Job)) []resource.TestStep {
	return tamperStepsAt(t, leaseAddr, name, pub, cfg, tamper)
}

// tamperStepsAt is tamperSteps for the lease at addr.
func tamperStepsAt(t *testing.T, leaseAddr, name, pub, cfg string, tamper func(*api.Job)) []resource.TestStep {
	return []resource.TestStep{
		{
			PreConfig:          acctest.MutateJob(t, name, tamper),
			RefreshState:       true,
			ExpectNonEmptyPlan: true,
			Check:              resource.TestCheckResourceAttr(leaseAddr, "verified", "false"),
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
				statecheck.ExpectKnownValue(leaseAddr, tfjsonpath.New("verified"), knownvalue.Bool(true)),
				statecheck.ExpectKnownValue(leaseAddr, tfjsonpath.New("user"), knownvalue.StringExact(pub)),
			},
			Check: checkLeaseVerifies(t, name, pub),
		},
	}
}

func TestAccLease_tamperingIsDetected(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	key, pub := testSigningKey(t)
	_, otherKey, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	name := "berth-acc-lease-tamper-" + acctest.RandomHex(3)
	cfg := leaseConfig(key, name, "1h", "")
	steps := []resource.TestStep{{Config: cfg, Check: checkLeaseVerifies(t, name, pub)}}
	// An env var added: the signature no longer matches.
	steps = append(steps, tamperSteps(t, name, pub, cfg, func(j *api.Job) {
		leaseTask(j, lease.WorkloadTask).Env = map[string]string{"SNEAKY": "1"}
	})...)
	// A second task smuggled in with the signature meta deleted, so there
	// is no signature left to fail.
	steps = append(steps, tamperSteps(t, name, pub, cfg, func(j *api.Job) {
		j.TaskGroups[0].Tasks = append(j.TaskGroups[0].Tasks, &api.Task{
			Name: "miner", Driver: "raw_exec",
			Config:    map[string]any{"command": "/bin/sleep", "args": []string{"3600"}},
			Resources: &api.Resources{CPU: new(20), MemoryMB: new(16)},
			LogConfig: &api.LogConfig{MaxFiles: new(1), MaxFileSizeMB: new(1)},
		})
		delete(j.Meta, lease.MetaSignature)
		delete(j.Meta, lease.MetaUser)
	})...)
	// Changed and validly re-signed, with a key other than the provider's.
	steps = append(steps, tamperSteps(t, name, pub, cfg, func(j *api.Job) {
		leaseTask(j, lease.WorkloadTask).Env = map[string]string{"SNEAKY": "1"}
		l, err := lease.LeaseFromJob(j)
		if err != nil {
			t.Fatal(err)
		}
		if l, err = lease.Sign(l, otherKey); err != nil {
			t.Fatal(err)
		}
		j.Meta[lease.MetaUser], j.Meta[lease.MetaSignature] = l.User, l.Signature
	})...)
	// expires_at moved later by hand (the timer sleeping longer with it).
	steps = append(steps, tamperSteps(t, name, pub, cfg, func(j *api.Job) {
		end, err := time.Parse(time.RFC3339, j.Meta[lease.MetaExpiresAt])
		if err != nil {
			t.Fatal(err)
		}
		j.Meta[lease.MetaExpiresAt] = end.Add(24 * time.Hour).Format(time.RFC3339)
		leaseTask(j, lease.TimerTask).Config["args"] = []string{strconv.Itoa(25 * 3600)}
	})...)
	// The berth meta deleted outright: no longer recognizable as a lease.
	steps = append(steps, tamperSteps(t, name, pub, cfg, func(j *api.Job) {
		for k := range j.Meta {
			delete(j.Meta, k)
		}
	})...)
	acctest.TestJobSteps(t, name, steps)
}

// TestAccLease_jobChangedAfterPlan changes the job in Nomad after
// the plan of an in-place duration change and before its apply: the apply
// must fail instead of overwriting and re-signing the change.
func TestAccLease_jobChangedAfterPlan(t *testing.T) {
	key, _, name := startLeaseTest(t, "lease-cas")
	var expiresAt string
	changeInNomad := planCheckFunc(func(context.Context, plancheck.CheckPlanRequest, *plancheck.CheckPlanResponse) {
		// Runs between plan and apply (the apply uses the saved plan).
		acctest.MutateJob(t, name, func(j *api.Job) {
			leaseTask(j, lease.WorkloadTask).Env = map[string]string{"SNEAKY": "1"}
		})()
	})
	acctest.TestJobSteps(t, name, []resource.TestStep{
		{
			Config: leaseConfig(key, name, "1h", ""),
			Check:  recordAttr(leaseAddr, "expires_at", &expiresAt),
		},
		{
			Config: leaseConfig(key, name, "2h", ""),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(leaseAddr, plancheck.ResourceActionUpdate),
				changeInNomad,
			}},
			ExpectError: regexp.MustCompile(`(?s)Job changed in Nomad since the last refresh.*workload\.env\.SNEAKY`),
		},
		{
			// Nomad still holds the change, not a re-signed 2h lease, and
			// the refresh sees it as tampering.
			RefreshState:       true,
			ExpectNonEmptyPlan: true,
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttr(leaseAddr, "verified", "false"),
				resource.TestCheckResourceAttrWith(leaseAddr, "expires_at", func(v string) error {
					if v != expiresAt {
						return fmt.Errorf("expires_at in state = %q, want the untouched %q", v, expiresAt)
					}
					return nil
				}),
				withLeaseJob(t, name, func(job *api.Job, _ []*api.AllocationListStub) error {
					if got := leaseTask(job, lease.WorkloadTask).Env["SNEAKY"]; got != "1" {
						return fmt.Errorf("the out-of-band change was overwritten (SNEAKY = %q)", got)
					}
					if job.Meta[lease.MetaExpiresAt] != expiresAt {
						return fmt.Errorf("expires_at in Nomad = %q, want the untouched %q", job.Meta[lease.MetaExpiresAt], expiresAt)
					}
					return nil
				}),
			),
		},
	})
}
