package cluster

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"sort"
	"testing"

	"github.com/hashicorp/nomad/api"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
)

// The scheduler configuration is the region's: every test that writes it
// runs on a private agent, so the shared agent's tests never schedule
// under another algorithm, with preemption, or with registration refused.

const schedulerAddr = "berth_scheduler_settings.s"

// schedulerConfigOf reads the private agent's scheduler configuration.
func schedulerConfigOf(t *testing.T, c *api.Client) *api.SchedulerConfiguration {
	t.Helper()
	resp, _, err := c.Operator().SchedulerGetConfiguration(nil)
	if err != nil {
		t.Fatalf("reading the scheduler configuration: %v", err)
	}
	return resp.SchedulerConfig
}

// sameScheduler compares the settings berth manages (not the indexes).
func sameScheduler(a, b *api.SchedulerConfiguration) bool {
	x, y := *a, *b
	x.CreateIndex, x.ModifyIndex, y.CreateIndex, y.ModifyIndex = 0, 0, 0, 0
	return reflect.DeepEqual(x, y)
}

// checkScheduler requires Nomad to hold want.
func checkScheduler(t *testing.T, c *api.Client, want api.SchedulerConfiguration) resource.TestCheckFunc {
	return func(*terraform.State) error {
		got := schedulerConfigOf(t, c)
		if !sameScheduler(got, &want) {
			return fmt.Errorf("scheduler configuration in Nomad:\n  %+v\nwant\n  %+v", *got, want)
		}
		return nil
	}
}

func providerAt(addr string) string {
	return fmt.Sprintf("provider \"berth\" {\n  address = %q\n}\n", addr)
}

// expectChangedExactly requires addr to be updated in place, changing
// exactly the named top-level attributes: drift is named in the plan.
type expectChangedExactly struct {
	addr  string
	attrs []string
}

func (e expectChangedExactly) CheckPlan(_ context.Context, req plancheck.CheckPlanRequest, resp *plancheck.CheckPlanResponse) {
	for _, rc := range req.Plan.ResourceChanges {
		if rc.Address != e.addr {
			continue
		}
		if !rc.Change.Actions.Update() {
			resp.Error = fmt.Errorf("%s: actions %v, want an update", e.addr, rc.Change.Actions)
			return
		}
		before, _ := rc.Change.Before.(map[string]any)
		after, _ := rc.Change.After.(map[string]any)
		var changed []string
		for k := range acctest.Union(before, after) {
			if !reflect.DeepEqual(before[k], after[k]) {
				changed = append(changed, k)
			}
		}
		sort.Strings(changed)
		want := append([]string(nil), e.attrs...)
		sort.Strings(want)
		if !reflect.DeepEqual(changed, want) {
			b, _ := json.Marshal(before)
			a, _ := json.Marshal(after)
			resp.Error = fmt.Errorf("%s changes %v, want %v\nbefore: %s\nafter:  %s", e.addr, changed, want, b, a)
		}
		return
	}
	resp.Error = fmt.Errorf("%s is not in the plan", e.addr)
}

// TestAccSchedulerSettings_lifecycle: create on a private agent with every
// field set; a change made through Nomad's API is named in the plan and
// put back; fields left out return to Nomad's defaults; import by region
// plans no change; destroy puts back the configuration found at create.
func TestAccSchedulerSettings_lifecycle(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	agent, nomad := acctest.StartPrivateAgent(t, "berth-sched")
	found := *schedulerConfigOf(t, nomad)
	full := providerAt(agent.Addr) + `
resource "berth_scheduler_settings" "s" {
  scheduler_algorithm     = "spread"
  memory_oversubscription = true
  reject_job_registration = true
  pause_eval_broker       = true
  preemption = {
    batch   = true
    service = true
  }
}
`
	defaults := providerAt(agent.Addr) + `
resource "berth_scheduler_settings" "s" {}
`
	wantFull := api.SchedulerConfiguration{
		SchedulerAlgorithm: api.SchedulerAlgorithmSpread, MemoryOversubscriptionEnabled: true,
		RejectJobRegistration: true, PauseEvalBroker: true,
		PreemptionConfig: api.PreemptionConfig{SystemSchedulerEnabled: true, BatchSchedulerEnabled: true, ServiceSchedulerEnabled: true},
	}
	wantDefaults := api.SchedulerConfiguration{
		SchedulerAlgorithm: api.SchedulerAlgorithmBinpack, PreemptionConfig: api.PreemptionConfig{SystemSchedulerEnabled: true},
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		// found is set by the first step: read when destroy has run.
		CheckDestroy: func(s *terraform.State) error { return checkScheduler(t, nomad, found)(s) },
		Steps: []resource.TestStep{
			{
				// The agent starts with Nomad's defaults; make the test
				// see a non-default configuration to put back at destroy.
				PreConfig: func() {
					conf := found
					conf.MemoryOversubscriptionEnabled = true
					conf.PreemptionConfig.SysBatchSchedulerEnabled = true
					if _, _, err := nomad.Operator().SchedulerSetConfiguration(&conf, nil); err != nil {
						t.Fatal(err)
					}
					found = *schedulerConfigOf(t, nomad)
				},
				Config: full,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(schedulerAddr, plancheck.ResourceActionCreate),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(schedulerAddr, tfjsonpath.New("region"), knownvalue.StringExact("global")),
					statecheck.ExpectKnownValue(schedulerAddr, tfjsonpath.New("preemption").AtMapKey("system"), knownvalue.Bool(true)),
					statecheck.ExpectKnownValue(schedulerAddr, tfjsonpath.New("preemption").AtMapKey("sysbatch"), knownvalue.Bool(false)),
				},
				Check: checkScheduler(t, nomad, wantFull),
			},
			{
				PreConfig: func() {
					conf := wantFull
					conf.SchedulerAlgorithm, conf.PauseEvalBroker = api.SchedulerAlgorithmBinpack, false
					if _, _, err := nomad.Operator().SchedulerSetConfiguration(&conf, nil); err != nil {
						t.Fatal(err)
					}
				},
				Config: full,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					expectChangedExactly{schedulerAddr, []string{"scheduler_algorithm", "pause_eval_broker"}},
				}},
				Check: checkScheduler(t, nomad, wantFull),
			},
			{
				PreConfig: func() {
					conf := wantFull
					conf.PreemptionConfig.SystemSchedulerEnabled = false
					if _, _, err := nomad.Operator().SchedulerSetConfiguration(&conf, nil); err != nil {
						t.Fatal(err)
					}
				},
				Config: full,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					expectChangedExactly{schedulerAddr, []string{"preemption"}},
					plancheck.ExpectKnownValue(schedulerAddr, tfjsonpath.New("preemption").AtMapKey("system"), knownvalue.Bool(true)),
				}},
				Check: checkScheduler(t, nomad, wantFull),
			},
			{
				Config: defaults,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					expectChangedExactly{schedulerAddr, []string{"scheduler_algorithm", "memory_oversubscription",
						"reject_job_registration", "pause_eval_broker", "preemption"}},
				}},
				Check: checkScheduler(t, nomad, wantDefaults),
			},
			{Config: defaults, ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{acctest.ExpectNoChanges{}}}},
			{
				Config:            defaults,
				ResourceName:      schedulerAddr,
				ImportState:       true,
				ImportStateId:     "global",
				ImportStateVerify: true,
				// An import takes the configuration over as it is now: found
				// differs from what the create found.
				ImportStateVerifyIgnore: []string{"found"},
			},
			{
				Config:        defaults,
				ResourceName:  schedulerAddr,
				ImportState:   true,
				ImportStateId: "elsewhere",
				ExpectError:   regexp.MustCompile(`(?s)Cannot import the scheduler configuration.*talks to region "global"`),
			},
		},
	})
}

// TestAccSchedulerSettings_badAlgorithm: an algorithm Nomad does not have
// is refused at plan, at the attribute, before anything reaches Nomad.
func TestAccSchedulerSettings_badAlgorithm(t *testing.T) {
	t.Parallel()
	expectOneError(t, providerAt("http://127.0.0.1:1")+`
resource "berth_scheduler_settings" "s" {
  scheduler_algorithm = "random"
}
`, `scheduler_algorithm = "random"`, `"binpack"`, `"spread"`)
}

// TestAccSchedulerSettingsIdentity_importByIdentity: the identity is the
// region, and importing by it plans no change.
func TestAccSchedulerSettingsIdentity_importByIdentity(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	agent, nomad := acctest.StartPrivateAgent(t, "berth-sched-identity")
	acctest.CheckIdentity(t, acctest.IdentityCase{
		Addr: schedulerAddr,
		Config: providerAt(agent.Addr) + `
resource "berth_scheduler_settings" "s" {
  scheduler_algorithm = "spread"
}
`,
		Identity: map[string]knownvalue.Check{"region": knownvalue.StringExact("global")},
		InNomad: checkScheduler(t, nomad, api.SchedulerConfiguration{SchedulerAlgorithm: api.SchedulerAlgorithmSpread,
			PreemptionConfig: api.PreemptionConfig{SystemSchedulerEnabled: true}}),
	})
}

// TestAccSchedulerSettingsMoved_fromNomadSchedulerConfig: a configuration
// written by the other provider's nomad_scheduler_config moves to
// berth_scheduler_settings with a `moved` block: the plan changes
// nothing, Nomad's configuration keeps its modify index, the next plan is
// empty, and destroy leaves the configuration as it was at the move.
func TestAccSchedulerSettingsMoved_fromNomadSchedulerConfig(t *testing.T) {
	acctest.PreCheck(t)
	acctest.PeerProvider(t)
	agent, nomad := acctest.StartPrivateAgent(t, "berth-sched-moved")
	header := fmt.Sprintf(`
terraform {
  required_providers {
    nomad = { source = "hashicorp/nomad" }
  }
}

provider "nomad" {
  address = %q
}
`, agent.Addr) + providerAt(agent.Addr)
	peer := header + `
resource "nomad_scheduler_config" "s" {
  scheduler_algorithm             = "spread"
  memory_oversubscription_enabled = true
  preemption_config = {
    system_scheduler_enabled   = true
    sysbatch_scheduler_enabled = false
    batch_scheduler_enabled    = false
    service_scheduler_enabled  = true
  }
}
`
	moved := header + `
moved {
  from = nomad_scheduler_config.s
  to   = berth_scheduler_settings.s
}

resource "berth_scheduler_settings" "s" {
  scheduler_algorithm     = "spread"
  memory_oversubscription = true
  preemption              = { service = true }
}
`
	want := api.SchedulerConfiguration{SchedulerAlgorithm: api.SchedulerAlgorithmSpread, MemoryOversubscriptionEnabled: true,
		PreemptionConfig: api.PreemptionConfig{SystemSchedulerEnabled: true, ServiceSchedulerEnabled: true}}
	var before *api.SchedulerConfiguration
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_8_0)},
		CheckDestroy:             checkScheduler(t, nomad, want),
		Steps: []resource.TestStep{
			{
				Config: peer,
				Check: resource.ComposeTestCheckFunc(checkScheduler(t, nomad, want), func(*terraform.State) error {
					before = schedulerConfigOf(t, nomad)
					return nil
				}),
			},
			{
				Config: moved,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(schedulerAddr, plancheck.ResourceActionNoop),
				}},
				Check: func(*terraform.State) error {
					if now := schedulerConfigOf(t, nomad); now.ModifyIndex != before.ModifyIndex {
						return fmt.Errorf("the move wrote the scheduler configuration: modify index %d -> %d", before.ModifyIndex, now.ModifyIndex)
					}
					return nil
				},
			},
			{Config: moved, ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{acctest.ExpectNoChanges{}}}},
		},
	})
}

// TestAccSchedulerSettingsQuery_generateConfig finds the private agent's
// scheduler configuration with terraform query and requires the generated
// configuration to import it with no change; destroying the import puts
// back the configuration as it was, which is unchanged.
func TestAccSchedulerSettingsQuery_generateConfig(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	c, ctx := acctest.NewQueryCLI(t) // skips below Terraform 1.14, before an agent starts
	agent, nomad := acctest.StartPrivateAgent(t, "berth-sched-query")
	conf := *schedulerConfigOf(t, nomad)
	conf.SchedulerAlgorithm, conf.PreemptionConfig.ServiceSchedulerEnabled = api.SchedulerAlgorithmSpread, true
	if _, _, err := nomad.Operator().SchedulerSetConfiguration(&conf, nil); err != nil {
		t.Fatal(err)
	}
	c.Init(ctx, providerAt(agent.Addr))
	res := acctest.RunQuery(ctx, t, c, `list "berth_scheduler_settings" "found" {
  provider         = berth
  include_resource = true
}
`)
	if len(res.Found) != 1 || res.Found[0] != "global" {
		t.Fatalf("query found %v, want [global]; warnings %v", res.Found, res.Warnings)
	}
	acctest.ExpectImportsOnly(ctx, t, c, 1)
	c.MustApply(ctx, "import")
	c.Destroy(ctx)
	if err := checkScheduler(t, nomad, conf)(nil); err != nil {
		t.Error(err)
	}
}
