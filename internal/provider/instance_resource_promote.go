package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/berthhq/terraform-provider-berth/internal/instance"
	"github.com/berthhq/terraform-provider-berth/internal/nomadclient"
)

// deploymentAwaitingPromotion is deployment_status while a deployment's
// canaries are placed and healthy and wait for a promotion (Nomad itself
// says "running").
const deploymentAwaitingPromotion = "running (awaiting promotion)"

// deploymentStatusOf is what deployment_status says about dep.
func deploymentStatusOf(dep *nomadclient.Deployment) string {
	if dep.AwaitingPromotion {
		return deploymentAwaitingPromotion
	}
	return dep.Status
}

// followRollout waits for what an apply waits for after a registration:
// the deployment's end (or, with canaries promoted by hand, their being
// ready for promotion), or only the placement when allocations are marked
// healthy by hand (health_check "manual"), since nothing berth could wait
// for would end that deployment.
func (r *instanceResource) followRollout(ctx context.Context, spec instance.Spec, evalID string) (*nomadclient.Deployment, error) {
	if instance.HealthCheckOf(spec) == instance.HealthCheckManual {
		return r.data.Nomad.WaitForPlacement(ctx, spec.Namespace, spec.Name, evalID)
	}
	return r.data.Nomad.WaitForRollout(ctx, spec.Namespace, spec.Name, evalID)
}

// promoteRequested: any change of promote_trigger to a value promotes;
// removing it does not.
func promoteRequested(plan, state *instanceModel) bool {
	return !plan.PromoteTrigger.IsNull() && !plan.PromoteTrigger.Equal(state.PromoteTrigger)
}

// promote promotes the canaries of the instance's deployment in progress
// and, unless the apply does not wait for health, waits for it to finish.
// With nothing to promote it warns and changes nothing.
func (r *instanceResource) promote(ctx context.Context, want instance.Spec, m *instanceModel, diags *diag.Diagnostics) error {
	manualHealth := instance.HealthCheckOf(want) == instance.HealthCheckManual
	wait := m.WaitForHealthy.IsNull() || m.WaitForHealthy.ValueBool()
	dep, err := r.data.Nomad.PromoteCanaries(ctx, want.Namespace, want.Name,
		nomadclient.PromoteOptions{WaitReady: !manualHealth, WaitDone: wait && !manualHealth})
	if dep != nil {
		m.DeploymentID = types.StringValue(dep.ID)
		m.DeploymentStatus = types.StringValue(deploymentStatusOf(dep))
	}
	if err != nil {
		return err
	}
	if dep == nil {
		diags.AddWarning("Nothing to promote",
			fmt.Sprintf("promote_trigger changed, but no deployment of job %q awaits promotion, so nothing was promoted.", want.Name))
	}
	return nil
}

// warnAwaitingPromotion says that the apply ended with canaries waiting
// for a promotion, and how to promote them.
func warnAwaitingPromotion(diags *diag.Diagnostics, want instance.Spec, m *instanceModel) {
	if m.DeploymentStatus.ValueString() != deploymentAwaitingPromotion {
		return
	}
	id := m.DeploymentID.ValueString()
	diags.AddWarning("Deployment awaits promotion",
		fmt.Sprintf("Job %q has update.auto_promote = false: the canaries of deployment %s are placed and healthy, and the "+
			"previous allocations keep running next to them until the deployment is promoted. To promote it, change "+
			"promote_trigger (any new value) and apply, or run `nomad deployment promote -namespace=%s %s`. A later change "+
			"to the instance registers a new version, which replaces this deployment with a new one.",
			want.Name, id, want.Namespace, id))
}
