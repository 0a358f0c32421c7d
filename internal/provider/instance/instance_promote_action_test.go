package instance

import (
	"fmt"
	"testing"

	"github.com/hashicorp/nomad/api"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
)

// TestAccInstancePromoteAction_promotesCanaries: an update leaves a canary
// awaiting promotion (auto_promote = false); berth_instance_promote, run
// from an action_trigger, promotes it: the deployment succeeds promoted,
// the previous allocation stops, no new job version is registered, and the
// instance plans no change.
func TestAccInstancePromoteAction_promotesCanaries(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	name := "berth-acc-promote-action-" + acctest.RandomHex(3)
	var previous string
	var awaiting *api.Deployment
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_14_0)},
		Steps: []resource.TestStep{
			{
				Config: promotionConfig(name, "1", ""),
				Check: acctest.WithJob(t, name, func(_ *api.Job, allocs []*api.AllocationListStub) error {
					for _, a := range allocs {
						if a.ClientStatus == "running" {
							previous = a.ID
						}
					}
					if previous == "" {
						return fmt.Errorf("no running allocation of %s", name)
					}
					return nil
				}),
			},
			{
				Config: promotionConfig(name, "2", ""),
				Check: func(*terraform.State) error {
					awaiting = awaitingDeployment(t, name, 1, previous)
					return nil
				},
			},
			{
				Config: promotionConfig(name, "2", "") + acctest.ActionOnCreate("berth_instance_promote", "p", `name = berth_instance.t.name`),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(acctest.InstanceAddr, plancheck.ResourceActionNoop),
				}},
				Check: acctest.WithJob(t, name, func(job *api.Job, allocs []*api.AllocationListStub) error {
					d, _, err := acctest.Nomad(t).Deployments().Info(awaiting.ID, nil)
					if err != nil {
						return err
					}
					if d.Status != api.DeploymentStatusSuccessful || !d.TaskGroups["app"].Promoted {
						return fmt.Errorf("deployment %s is %s (%s), promoted %v; want successful and promoted",
							d.ID, d.Status, d.StatusDescription, d.TaskGroups["app"].Promoted)
					}
					if *job.Version != 1 {
						return fmt.Errorf("job version %d after the promotion, want 1 (no new version)", *job.Version)
					}
					for _, a := range allocs {
						if a.ID == previous && a.DesiredStatus == "run" {
							return fmt.Errorf("the previous allocation %s still runs after the promotion", previous)
						}
					}
					return nil
				}),
			},
		},
	})
}
