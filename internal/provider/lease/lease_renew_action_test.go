package lease

import (
	"crypto/ed25519"
	"crypto/rand"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"
	"github.com/hashicorp/terraform-plugin-framework/action"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
	"github.com/berthhq/terraform-provider-berth/internal/lease"
	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
)

// A renewal re-signs the lease, so it must refuse every lease the
// provider's key does not vouch for.
func TestLeaseRenewAction_refusesWhatTheKeyCannotVouchFor(t *testing.T) {
	_, mine, _ := ed25519.GenerateKey(rand.Reader)
	_, theirs, _ := ed25519.GenerateKey(rand.Reader)
	base := lease.Lease{Name: "ci", Namespace: "default", CreatedAt: time.Date(2026, 11, 23, 8, 0, 0, 0, time.UTC), Duration: time.Hour,
		Workload: lease.Workload{Driver: "raw_exec", Command: "/bin/sleep", CPU: 20, Memory: 16}}
	sign := func(l lease.Lease, k ed25519.PrivateKey) lease.Lease {
		s, err := lease.Sign(l, k)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	tampered := sign(base, mine)
	tampered.Duration = 2 * time.Hour
	dated := base
	dated.SignedAt = base.CreatedAt.Add(time.Second)
	cases := []struct {
		name string
		key  ed25519.PrivateKey
		l    lease.Lease
		want string // "" = renewed
		// newest is the newest signing among the job's versions.
		newest lease.Signing
	}{
		{"unsigned, no key", nil, base, "", lease.Signing{}},
		{"signed by the provider's key", mine, sign(base, mine), "", lease.Signing{}},
		{"unsigned, provider has a key (the resource replaces it)", mine, base, "fails verification", lease.Signing{}},
		{"signed, provider has no key", nil, sign(base, mine), "has no signing_key", lease.Signing{}},
		{"signed by another key", mine, sign(base, theirs), "fails verification", lease.Signing{}},
		{"changed after signing", mine, tampered, "fails verification", lease.Signing{}},
		{"brought back to an earlier version", mine, sign(dated, mine), "history in Nomad",
			lease.Signing{Signature: "later", SignedAt: dated.SignedAt.Add(time.Minute)}},
		{"the newest version", mine, sign(dated, mine), "", lease.Signing{Signature: "earlier", SignedAt: dated.SignedAt.Add(-time.Minute)}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var resp action.InvokeResponse
			ok := renewTrusted(&shared.ProviderData{SigningKey: c.key}, c.l, c.newest, &resp)
			errs := resp.Diagnostics.Errors()
			switch {
			case c.want == "" && (!ok || len(errs) > 0):
				t.Fatalf("refused: %v", errs)
			case c.want != "" && (ok || len(errs) != 1 || !strings.Contains(errs[0].Summary()+errs[0].Detail(), c.want)):
				t.Fatalf("want one error containing %q, got ok=%v %v", c.want, ok, errs)
			}
		})
	}
}

// TestAccLeaseRenewAction_renewsAndPlansNothing renews a signed lease from
// an action_trigger: Nomad holds a new version of the lease job, signed by
// the provider's key and ending no earlier than before, its workload runs,
// and the lease resource plans no change afterwards.
func TestAccLeaseRenewAction_renewsAndPlansNothing(t *testing.T) {
	key, pub, name := startLeaseTest(t, "renew")
	base := leaseConfig(key, name, "1h", "")
	var before lease.Lease
	var version uint64
	read := func(job *api.Job) (lease.Lease, error) {
		l, err := lease.LeaseFromJob(job)
		if err != nil {
			return l, err
		}
		if ok, problems := lease.Verify(l); !ok || l.User != pub {
			return l, fmt.Errorf("lease %s does not verify against the provider's key: %v (signer %s)", name, problems, l.User)
		}
		return l, nil
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_14_0)},
		Steps: []resource.TestStep{
			{
				Config: base,
				Check: withLeaseJob(t, name, func(job *api.Job, _ []*api.AllocationListStub) error {
					var err error
					before, err = read(job)
					version = *job.Version
					return err
				}),
			},
			{
				Config: base + acctest.ActionOnCreate("berth_reservation_renew", "r", `name = berth_reservation.l.name`),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("berth_reservation.l", plancheck.ResourceActionNoop),
				}},
				Check: withLeaseJob(t, name, func(job *api.Job, allocs []*api.AllocationListStub) error {
					after, err := read(job)
					if err != nil {
						return err
					}
					if *job.Version <= version {
						return fmt.Errorf("lease job version %d after renewal, want a new version after %d", *job.Version, version)
					}
					if after.ExpiresAt().Before(before.ExpiresAt()) || after.CreatedAt.Before(before.CreatedAt) {
						return fmt.Errorf("renewed lease runs %s–%s, before %s–%s: a renewal never ends earlier",
							after.CreatedAt, after.ExpiresAt(), before.CreatedAt, before.ExpiresAt())
					}
					for _, a := range allocs {
						if a.JobVersion == *job.Version && a.ClientStatus == "running" {
							return nil
						}
					}
					return fmt.Errorf("no running allocation of the renewed lease (version %d)", *job.Version)
				}),
			},
		},
	})
}
