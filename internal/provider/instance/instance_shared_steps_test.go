package instance

import (
	"fmt"
	"testing"

	tfjson "github.com/hashicorp/terraform-json"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
)

// What several instance tests build the same way: an import step, a
// plain sleeping instance and the reading of one planned change.

// importVerified imports the instance by importID and expects the state
// the previous step left, but for what an import cannot know.
func importVerified(importID string) resource.TestStep {
	return resource.TestStep{
		ResourceName:                         acctest.InstanceAddr,
		ImportState:                          true,
		ImportStateId:                        importID,
		ImportStateVerify:                    true,
		ImportStateVerifyIdentifierAttribute: "id",
		ImportStateVerifyIgnore:              []string{"timeouts", "deployment_id", "deployment_status"},
	}
}

// adoptSteps import the job importID into berth_instance.t under cfg
// and keep it in state (check, when not nil, reads what was imported),
// then expect cfg to plan no change: the job is adopted as it is.
func adoptSteps(cfg, importID string, check resource.ImportStateCheckFunc) []resource.TestStep {
	return []resource.TestStep{
		{
			Config:             cfg,
			ResourceName:       acctest.InstanceAddr,
			ImportState:        true,
			ImportStateId:      importID,
			ImportStatePersist: true,
			ImportStateCheck:   check,
		},
		{
			Config:           cfg,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{acctest.ExpectNoChanges{}}},
		},
	}
}

// importedAttrs checks the imported attributes: each of want has its
// value, each of null is absent (left to Nomad's default).
func importedAttrs(want map[string]string, null []string) resource.ImportStateCheckFunc {
	return func(states []*terraform.InstanceState) error {
		attrs := states[0].Attributes
		for k, w := range want {
			if attrs[k] != w {
				return fmt.Errorf("imported %s = %q, want %q", k, attrs[k], w)
			}
		}
		for _, k := range null {
			if v, ok := attrs[k]; ok {
				return fmt.Errorf("imported %s = %q, want null (Nomad's default)", k, v)
			}
		}
		return nil
	}
}

// sleeperConfig is berth_instance.t, name, running replicas of one
// raw_exec sleep.
func sleeperConfig(name string, replicas int) string {
	return fmt.Sprintf(`
resource "berth_instance" "t" {
  name     = %q
  replicas = %d
  services = {
    app = { driver = "raw_exec", command = "/bin/sleep", args = ["3600"], cpu = 50, memory = 32 }
  }
}`, name, replicas)
}

// plannedChange is the planned change of the resource at addr; nil when
// the plan has none.
func plannedChange(req plancheck.CheckPlanRequest, addr string) *tfjson.ResourceChange {
	for _, rc := range req.Plan.ResourceChanges {
		if rc.Address == addr {
			return rc
		}
	}
	return nil
}

// startInstanceTest readies an acceptance test on one instance: it runs in
// parallel once the agent is checked, and its job is named after the test
// (acctest.InstanceName).
func startInstanceTest(t *testing.T) string {
	t.Helper()
	t.Parallel()
	acctest.PreCheck(t)
	return acctest.InstanceName(t)
}
