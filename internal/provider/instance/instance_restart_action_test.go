package instance

import (
	"fmt"
	"testing"

	"github.com/hashicorp/nomad/api"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
)

// TestAccInstanceRestartAction_restartsInPlace runs berth_instance_restart
// from an action_trigger: every running allocation's task restarts in place,
// the job keeps its version, and the instance plans no change.
func TestAccInstanceRestartAction_restartsInPlace(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	name := "berth-acc-restart-action-" + acctest.RandomHex(3)
	base := acctest.InstanceConfig{Name: name, Extra: "replicas = 2"}.String()
	var allocIDs []string
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_14_0)},
		Steps: []resource.TestStep{
			{
				Config: base,
				Check: acctest.WithJob(t, name, func(_ *api.Job, allocs []*api.AllocationListStub) error {
					for _, a := range allocs {
						if a.ClientStatus == "running" {
							allocIDs = append(allocIDs, a.ID)
						}
					}
					if len(allocIDs) != 2 {
						return fmt.Errorf("%d running allocations of %s, want 2", len(allocIDs), name)
					}
					return nil
				}),
			},
			{
				Config: base + acctest.ActionOnCreate("berth_instance_restart", "r", `name = berth_instance.t.name`),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(acctest.InstanceAddr, plancheck.ResourceActionNoop),
				}},
				Check: acctest.WithJob(t, name, func(job *api.Job, allocs []*api.AllocationListStub) error {
					if *job.Version != 0 {
						return fmt.Errorf("job version %d after the restart action, want 0 (no new version)", *job.Version)
					}
					byID := map[string]*api.AllocationListStub{}
					for _, a := range allocs {
						byID[a.ID] = a
					}
					for _, id := range allocIDs {
						a, ok := byID[id]
						if !ok {
							return fmt.Errorf("allocation %s is gone: the action must restart in place, not replace", id)
						}
						if ts := a.TaskStates["app"]; ts == nil || ts.Restarts < 1 || ts.State != "running" {
							return fmt.Errorf("allocation %s task app after the restart action: %+v; want running with a restart", id, ts)
						}
					}
					return nil
				}),
			},
		},
	})
}
