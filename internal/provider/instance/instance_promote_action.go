package instance

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/action"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/berthhq/terraform-provider-berth/internal/instance"
	"github.com/berthhq/terraform-provider-berth/internal/nomadclient"
	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
)

// NewInstancePromoteAction builds berth_instance_promote: promotes the
// canaries of an instance's deployment awaiting promotion (Terraform
// 1.14+). The `promote_trigger` attribute does the same for older CLIs.
func NewInstancePromoteAction() action.Action {
	return &shared.JobAction{ActionBase: shared.NewActionBase("instance_promote"), Thing: "instance",
		Doc: "Promotes the canaries of a `berth_instance` whose deployment awaits promotion " +
			"(`update.auto_promote = false`), then waits for the deployment to succeed (Terraform 1.14 and later; " +
			"`terraform apply -invoke=action.berth_instance_promote.<name>`). It waits for the canaries to be healthy " +
			"first, except with `update.health_check = \"manual\"`, where it promotes at once. No new job version is " +
			"registered, so the instance's next plan is empty. With nothing awaiting promotion it says so and changes " +
			"nothing. On older Terraform versions, change the instance's `promote_trigger` instead.",
		TimeoutDoc: "How long the promotion may take, including the deployment finishing",
		Run:        promoteCanaries,
	}
}

func promoteCanaries(ctx context.Context, data *shared.ProviderData, t shared.JobActionTarget, _ action.InvokeRequest, resp *action.InvokeResponse) {
	spec, _ := t.Job.InstanceSpec()
	manual := instance.HealthCheckOf(spec) == instance.HealthCheckManual
	resp.SendProgress(action.InvokeProgressEvent{Message: fmt.Sprintf("promoting the canaries of %s/%s", t.Ns, t.Name)})
	dep, err := data.Nomad.PromoteCanaries(ctx, t.Ns, t.Name, nomadclient.PromoteOptions{WaitReady: !manual, WaitDone: !manual})
	if err != nil {
		shared.AddRolloutError(&resp.Diagnostics, "The promotion did not complete", t.Name, err)
		return
	}
	if dep == nil {
		resp.SendProgress(action.InvokeProgressEvent{Message: fmt.Sprintf("no deployment of %s/%s awaits promotion; nothing promoted", t.Ns, t.Name)})
		return
	}
	tflog.Info(ctx, "Promoted canaries", map[string]any{"job": t.Name, "namespace": t.Ns, "deployment": dep.ID, "status": dep.Status})
	resp.SendProgress(action.InvokeProgressEvent{Message: fmt.Sprintf("deployment %s of %s/%s promoted: %s", dep.ID, t.Ns, t.Name, dep.Status)})
}
