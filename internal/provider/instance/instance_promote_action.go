package instance

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/action"
	actionschema "github.com/hashicorp/terraform-plugin-framework/action/schema"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/berthhq/terraform-provider-berth/internal/instance"
	"github.com/berthhq/terraform-provider-berth/internal/nomadclient"
	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
)

var _ action.ActionWithConfigure = &instancePromoteAction{}

// NewInstancePromoteAction builds berth_instance_promote: promotes the
// canaries of an instance's deployment awaiting promotion (Terraform
// 1.14+). The `promote_trigger` attribute does the same for older CLIs.
func NewInstancePromoteAction() action.Action { return &instancePromoteAction{} }

type instancePromoteAction struct{ data *shared.ProviderData }

func (a *instancePromoteAction) Metadata(_ context.Context, req action.MetadataRequest, resp *action.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_instance_promote"
}

func (a *instancePromoteAction) Configure(_ context.Context, req action.ConfigureRequest, resp *action.ConfigureResponse) {
	a.data = shared.ProviderDataFrom(req.ProviderData, &resp.Diagnostics)
}

func (a *instancePromoteAction) Schema(_ context.Context, _ action.SchemaRequest, resp *action.SchemaResponse) {
	resp.Schema = actionschema.Schema{
		MarkdownDescription: "Promotes the canaries of a `berth_instance` whose deployment awaits promotion " +
			"(`update.auto_promote = false`), then waits for the deployment to succeed (Terraform 1.14 and later; " +
			"`terraform apply -invoke=action.berth_instance_promote.<name>`). It waits for the canaries to be healthy " +
			"first, except with `update.health_check = \"manual\"`, where it promotes at once. No new job version is " +
			"registered, so the instance's next plan is empty. With nothing awaiting promotion it says so and changes " +
			"nothing. On older Terraform versions, change the instance's `promote_trigger` instead.",
		Attributes: shared.JobActionAttributes("instance", "How long the promotion may take, including the deployment finishing"),
	}
}

func (a *instancePromoteAction) Invoke(ctx context.Context, req action.InvokeRequest, resp *action.InvokeResponse) {
	ctx, cancel, t, ok := shared.OpenJobAction(ctx, a.data, "instance", req, resp)
	defer cancel()
	if !ok {
		return
	}
	spec, _ := t.Job.InstanceSpec()
	manual := instance.HealthCheckOf(spec) == instance.HealthCheckManual
	resp.SendProgress(action.InvokeProgressEvent{Message: fmt.Sprintf("promoting the canaries of %s/%s", t.Ns, t.Name)})
	dep, err := a.data.Nomad.PromoteCanaries(ctx, t.Ns, t.Name, nomadclient.PromoteOptions{WaitReady: !manual, WaitDone: !manual})
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
