package provider

import (
	"context"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timetypes/timetypes"
	"github.com/hashicorp/terraform-plugin-framework/action"
	actionschema "github.com/hashicorp/terraform-plugin-framework/action/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/berthhq/terraform-provider-berth/internal/instance"
	"github.com/berthhq/terraform-provider-berth/internal/nomadclient"
)

var _ action.ActionWithConfigure = &instancePromoteAction{}

// NewInstancePromoteAction builds berth_instance_promote: promotes the
// canaries of an instance's deployment awaiting promotion (Terraform
// 1.14+). The `promote_trigger` attribute does the same for older CLIs.
func NewInstancePromoteAction() action.Action { return &instancePromoteAction{} }

type instancePromoteAction struct{ data *ProviderData }

type instancePromoteModel struct {
	Name      types.String         `tfsdk:"name"`
	Namespace types.String         `tfsdk:"namespace"`
	Timeout   timetypes.GoDuration `tfsdk:"timeout"`
}

func (a *instancePromoteAction) Metadata(_ context.Context, req action.MetadataRequest, resp *action.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_instance_promote"
}

func (a *instancePromoteAction) Configure(_ context.Context, req action.ConfigureRequest, resp *action.ConfigureResponse) {
	a.data = providerDataFrom(req.ProviderData, &resp.Diagnostics)
}

func (a *instancePromoteAction) Schema(_ context.Context, _ action.SchemaRequest, resp *action.SchemaResponse) {
	resp.Schema = actionschema.Schema{
		MarkdownDescription: "Promotes the canaries of a `berth_instance` whose deployment awaits promotion " +
			"(`update.auto_promote = false`), then waits for the deployment to succeed (Terraform 1.14 and later; " +
			"`terraform apply -invoke=action.berth_instance_promote.<name>`). It waits for the canaries to be healthy " +
			"first, except with `update.health_check = \"manual\"`, where it promotes at once. No new job version is " +
			"registered, so the instance's next plan is empty. With nothing awaiting promotion it says so and changes " +
			"nothing. On older Terraform versions, change the instance's `promote_trigger` instead.",
		Attributes: map[string]actionschema.Attribute{
			"name": actionschema.StringAttribute{Required: true, MarkdownDescription: "The instance's name (its job ID)." + nameRuleDoc,
				Validators: []validator.String{nameValidator()}},
			"namespace": actionschema.StringAttribute{Optional: true,
				MarkdownDescription: "The instance's namespace. Default: the provider's `namespace`.",
				Validators:          []validator.String{namespaceValidator()}},
			"timeout": actionschema.StringAttribute{CustomType: timetypes.GoDurationType{}, Optional: true,
				MarkdownDescription: "How long the promotion may take, including the deployment finishing, a Go duration. Default `10m`."},
		},
	}
}

func (a *instancePromoteAction) Invoke(ctx context.Context, req action.InvokeRequest, resp *action.InvokeResponse) {
	if a.data == nil {
		resp.Diagnostics.AddError("Provider not configured", "The berth provider was not configured before the action ran.")
		return
	}
	ctx = a.data.Nomad.MaskSecrets(ctx)
	var m instancePromoteModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	timeout := 10 * time.Minute
	if !m.Timeout.IsNull() {
		d, diags := m.Timeout.ValueGoDuration()
		resp.Diagnostics.Append(diags...)
		timeout = d
	}
	if resp.Diagnostics.HasError() {
		return
	}
	ns, name := m.Namespace.ValueString(), m.Name.ValueString()
	if ns == "" {
		ns = a.data.Nomad.Namespace()
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	job, err := a.data.Nomad.GetJob(ctx, ns, name)
	if err != nil {
		addNomadError(&resp.Diagnostics, "Could not read the instance's job", err)
		return
	}
	if job == nil {
		resp.Diagnostics.AddError("Instance not found", fmt.Sprintf("Nomad has no job %q in namespace %q to promote.", name, ns))
		return
	}
	spec, _ := instance.SpecFromJob(job)
	manual := instance.HealthCheckOf(spec) == instance.HealthCheckManual
	resp.SendProgress(action.InvokeProgressEvent{Message: fmt.Sprintf("promoting the canaries of %s/%s", ns, name)})
	dep, err := a.data.Nomad.PromoteCanaries(ctx, ns, name, nomadclient.PromoteOptions{WaitReady: !manual, WaitDone: !manual})
	if err != nil {
		addRolloutError(&resp.Diagnostics, "The promotion did not complete", name, err)
		return
	}
	if dep == nil {
		resp.SendProgress(action.InvokeProgressEvent{Message: fmt.Sprintf("no deployment of %s/%s awaits promotion; nothing promoted", ns, name)})
		return
	}
	tflog.Info(ctx, "Promoted canaries", map[string]any{"job": name, "namespace": ns, "deployment": dep.ID, "status": dep.Status})
	resp.SendProgress(action.InvokeProgressEvent{Message: fmt.Sprintf("deployment %s of %s/%s promoted: %s", dep.ID, ns, name, dep.Status)})
}
