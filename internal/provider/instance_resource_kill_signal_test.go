package provider

import (
	"fmt"
	"testing"

	"github.com/hashicorp/nomad/api"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

// expectKillSignal checks the app task's kill signal in Nomad.
func expectKillSignal(t *testing.T, name, want string) resource.TestCheckFunc {
	return withJob(t, name, func(job *api.Job, _ []*api.AllocationListStub) error {
		if got := appTask(job).KillSignal; got != want {
			return fmt.Errorf("app task kill_signal in Nomad = %q, want %q", got, want)
		}
		return nil
	})
}

// TestAccInstance_killSignal: kill_signal reaches Nomad's task, a change
// made in Nomad is drift that the next apply puts back, and unsetting it
// leaves Nomad's default.
func TestAccInstance_killSignal(t *testing.T) {
	t.Parallel()
	testAccPreCheck(t)
	name := testInstanceName(t)
	cfg := instanceConfig{name: name, app: `kill_signal = "SIGTERM"`}.String()
	killSignal := tfjsonpath.New("services").AtMapKey("app").AtMapKey("kill_signal")
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             checkInstanceDestroyed(t, name),
		Steps: []resource.TestStep{
			{
				Config: cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(instanceAddr, plancheck.ResourceActionCreate),
					plancheck.ExpectKnownValue(instanceAddr, killSignal, knownvalue.StringExact("SIGTERM")),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(instanceAddr, killSignal, knownvalue.StringExact("SIGTERM")),
				},
				Check: expectKillSignal(t, name, "SIGTERM"),
			},
			{
				// Changed in Nomad: a refresh reads Nomad's value into state.
				PreConfig:          mutateJob(t, name, func(j *api.Job) { appTask(j).KillSignal = "SIGQUIT" }),
				RefreshState:       true,
				ExpectNonEmptyPlan: true,
				Check:              resource.TestCheckResourceAttr(instanceAddr, "services.app.kill_signal", "SIGQUIT"),
			},
			{
				Config: cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(instanceAddr, plancheck.ResourceActionUpdate),
					plancheck.ExpectKnownValue(instanceAddr, killSignal, knownvalue.StringExact("SIGTERM")),
				}},
				Check: expectKillSignal(t, name, "SIGTERM"),
			},
			{
				Config: instanceConfig{name: name}.String(),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(instanceAddr, plancheck.ResourceActionUpdate),
					plancheck.ExpectKnownValue(instanceAddr, killSignal, knownvalue.Null()),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(instanceAddr, killSignal, knownvalue.Null()),
				},
				Check: expectKillSignal(t, name, ""),
			},
		},
	})
}
