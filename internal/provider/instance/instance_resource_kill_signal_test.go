package instance

import (
	"fmt"
	"testing"

	"github.com/hashicorp/nomad/api"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
)

// expectKillSignal checks the app task's kill signal in Nomad.
func expectKillSignal(t *testing.T, name, want string) resource.TestCheckFunc {
	return acctest.WithJob(t, name, func(job *api.Job, _ []*api.AllocationListStub) error {
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
	acctest.PreCheck(t)
	name := acctest.InstanceName(t)
	cfg := acctest.InstanceConfig{Name: name, App: `kill_signal = "SIGTERM"`}.String()
	killSignal := tfjsonpath.New("services").AtMapKey("app").AtMapKey("kill_signal")
	acctest.TestJobSteps(t, name, []resource.TestStep{
		{
			Config: cfg,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(acctest.InstanceAddr, plancheck.ResourceActionCreate),
				plancheck.ExpectKnownValue(acctest.InstanceAddr, killSignal, knownvalue.StringExact("SIGTERM")),
			}},
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(acctest.InstanceAddr, killSignal, knownvalue.StringExact("SIGTERM")),
			},
			Check: expectKillSignal(t, name, "SIGTERM"),
		},
		{
			// Changed in Nomad: a refresh reads Nomad's value into state.
			PreConfig:          acctest.MutateJob(t, name, func(j *api.Job) { appTask(j).KillSignal = "SIGQUIT" }),
			RefreshState:       true,
			ExpectNonEmptyPlan: true,
			Check:              resource.TestCheckResourceAttr(acctest.InstanceAddr, "services.app.kill_signal", "SIGQUIT"),
		},
		{
			Config: cfg,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(acctest.InstanceAddr, plancheck.ResourceActionUpdate),
				plancheck.ExpectKnownValue(acctest.InstanceAddr, killSignal, knownvalue.StringExact("SIGTERM")),
			}},
			Check: expectKillSignal(t, name, "SIGTERM"),
		},
		{
			Config: acctest.InstanceConfig{Name: name}.String(),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction(acctest.InstanceAddr, plancheck.ResourceActionUpdate),
				plancheck.ExpectKnownValue(acctest.InstanceAddr, killSignal, knownvalue.Null()),
			}},
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(acctest.InstanceAddr, killSignal, knownvalue.Null()),
			},
			Check: expectKillSignal(t, name, ""),
		},
	})
}
