package instance

import (
	"github.com/berthhq/terraform-provider-berth/internal/workflow"
)

// deploymentAwaitingPromotion is deployment_status while canaries wait
// for a promotion.
const deploymentAwaitingPromotion = workflow.DeploymentAwaitingPromotion

// promoteRequested: any change of promote_trigger to a value promotes;
// removing it does not.
func promoteRequested(plan, state *instanceModel) bool {
	return !plan.PromoteTrigger.IsNull() && !plan.PromoteTrigger.Equal(state.PromoteTrigger)
}
