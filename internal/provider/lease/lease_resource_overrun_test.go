package lease

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
	"github.com/berthhq/terraform-provider-berth/internal/lease"
	"github.com/berthhq/terraform-provider-berth/internal/nomadclient"
	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
)

// TestAccLease_pausedTimerDoesNotOutliveItsEnd: a signed lease whose timer
// is paused through Nomad's API (SIGSTOP to lease-timer, what namespace
// write allows) runs on past its end. Once past expires_at plus the
// allowance, a refresh reads verified = false, not expired, result.state
// overrun, berth_lease_result for its token is not valid, and the next
// apply replaces the lease: the paused allocation no longer runs in Nomad.
func TestAccLease_pausedTimerDoesNotOutliveItsEnd(t *testing.T) {
	key, pub, name := startLeaseTest(t, "lease-paused")
	cfg := leaseConfig(key, name, "20s", "renew = false")
	nomad := acctest.Nomad(t)
	var paused *api.Allocation
	t.Cleanup(func() {
		if paused != nil { // let it go, whatever the test left
			_ = nomad.Allocations().Signal(paused, nil, lease.TimerTask, "SIGCONT")
			_, _ = nomad.Allocations().Stop(paused, nil)
		}
	})
	pause := func() {
		waitTimerToken(t, name)
		alloc, err := acctest.RunningAlloc(nomad, name)
		if err != nil {
			t.Fatal(err)
		}
		if err := nomad.Allocations().Signal(alloc, nil, lease.TimerTask, "SIGSTOP"); err != nil {
			t.Fatalf("pausing the timer of allocation %s: %v", alloc.ID, err)
		}
		paused = alloc
		job, _, err := nomad.Jobs().Info(name, nil)
		if err != nil {
			t.Fatal(err)
		}
		end, err := time.Parse(time.RFC3339, job.Meta[lease.MetaExpiresAt])
		if err != nil {
			t.Fatal(err)
		}
		// The condition is the allowance passing by this clock (the
		// provider's), with the allocation still running all along.
		acctest.WaitFor(t, "lease "+name+" to be past its end and the allowance", 5*time.Minute, func() (bool, error) {
			a, _, err := nomad.Allocations().Info(alloc.ID, nil)
			if err != nil {
				return false, err
			}
			if a.ClientStatus != "running" {
				return false, fmt.Errorf("allocation %s is %s although its timer is paused", a.ID, a.ClientStatus)
			}
			return time.Now().After(end.Add(lease.OverrunAllowance + time.Second)), nil
		})
	}
	acctest.TestJobSteps(t, name, []resource.TestStep{
		{
			Config: cfg,
			// Before its end the same read is valid: only the overrun
			// makes it not.
			Check: func(s *terraform.State) error {
				waitTimerToken(t, name)
				log, err := acctest.AllocFile(nomad, name, "alloc/logs/"+lease.TimerTask+".stdout.0")
				if err != nil {
					return err
				}
				token := strings.TrimSpace(strings.SplitN(log, "\n", 2)[0])
				if valid, problem := readLeaseResult(t, key, s.RootModule().Resources[leaseAddr].Primary.ID, token); !valid {
					return fmt.Errorf("berth_lease_result of the running lease: not valid (%s)", problem)
				}
				return nil
			},
		},
		{
			PreConfig:          pause,
			RefreshState:       true,
			ExpectNonEmptyPlan: true,
			RefreshPlanChecks: resource.RefreshPlanChecks{PostRefresh: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(leaseAddr, plancheck.ResourceActionDestroyBeforeCreate),
			}},
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttr(leaseAddr, "verified", "false"),
				resource.TestCheckResourceAttr(leaseAddr, "expired", "false"),
				resource.TestCheckResourceAttr(leaseAddr, "user", pub),
				resource.TestCheckResourceAttr(leaseAddr, "result.state", resultOverrun),
				func(s *terraform.State) error {
					// berth_lease_result, as the provider configured
					// with this key reads it, for the lease's token.
					a := s.RootModule().Resources[leaseAddr].Primary.Attributes
					valid, problem := readLeaseResult(t, key, a["id"], a["result.signature"])
					if valid || !strings.Contains(problem, "has not ended") || !strings.Contains(problem, "timer paused") {
						return fmt.Errorf("berth_lease_result: valid %v, problem %q; want false naming the paused timer", valid, problem)
					}
					return nil
				},
			),
		},
		{
			Config: cfg,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(leaseAddr, plancheck.ResourceActionDestroyBeforeCreate),
			}},
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttr(leaseAddr, "verified", "true"),
				func(*terraform.State) error {
					a, _, err := nomad.Allocations().Info(paused.ID, nil)
					if err == nil && a.ClientStatus == "running" {
						return fmt.Errorf("the paused allocation %s still runs after the replacement", a.ID)
					}
					return nil // stopped, or already collected with its purged job
				},
			),
		},
	})
}

// readLeaseResult reads berth_lease_result for signature of lease leaseID
// against the test agent, with the provider's signing key key: the data
// source's own Read. (A refresh-only run, the step that sees the paused
// lease before the next apply replaces it, keeps no data source in state.)
func readLeaseResult(t *testing.T, key, leaseID, signature string) (bool, string) {
	t.Helper()
	ctx := context.Background()
	signing, err := lease.ParseSigningKey(key)
	if err != nil {
		t.Fatal(err)
	}
	client, err := nomadclient.New(nomadclient.Config{Address: acctest.Nomad(t).Address()})
	if err != nil {
		t.Fatal(err)
	}
	d := &leaseResultDataSource{DataSourceBase: shared.DataSourceBase{Data: &shared.ProviderData{Nomad: client, SigningKey: signing}}, now: time.Now}
	var sresp datasource.SchemaResponse
	d.Schema(ctx, datasource.SchemaRequest{}, &sresp)
	null := tftypes.NewValue(sresp.Schema.Type().TerraformType(ctx), nil)
	req := datasource.ReadRequest{Config: tfsdk.Config{Schema: sresp.Schema, Raw: null}}
	in := leaseResultDataModel{LeaseID: types.StringValue(leaseID), Signature: types.StringValue(signature),
		Valid: types.BoolNull(), Problem: types.StringNull(), AllocationID: types.StringNull(), IssuedAt: types.StringNull()}
	cfg := tfsdk.State{Schema: sresp.Schema, Raw: null}
	if diags := cfg.Set(ctx, &in); diags.HasError() {
		t.Fatal(diags)
	}
	req.Config.Raw = cfg.Raw
	resp := datasource.ReadResponse{State: tfsdk.State{Schema: sresp.Schema, Raw: null}}
	d.Read(ctx, req, &resp)
	if resp.Diagnostics.HasError() {
		t.Fatalf("berth_lease_result: %v", resp.Diagnostics)
	}
	var out leaseResultDataModel
	if diags := resp.State.Get(ctx, &out); diags.HasError() {
		t.Fatal(diags)
	}
	return out.Valid.ValueBool(), out.Problem.ValueString()
}
