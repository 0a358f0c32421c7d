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
)

var _ action.ActionWithConfigure = &instanceRestartAction{}

// NewInstanceRestartAction builds berth_instance_restart: a rolling restart
// of an instance's running allocations, run from a plan (Terraform 1.14+).
// The declarative `restart_triggers` attribute does the same for older
// Terraform versions.
func NewInstanceRestartAction() action.Action { return &instanceRestartAction{} }

type instanceRestartAction struct{ data *ProviderData }

type instanceRestartModel struct {
	Name      types.String         `tfsdk:"name"`
	Namespace types.String         `tfsdk:"namespace"`
	Timeout   timetypes.GoDuration `tfsdk:"timeout"`
}

const defaultRestartTimeout = 10 * time.Minute

func (a *instanceRestartAction) Metadata(_ context.Context, req action.MetadataRequest, resp *action.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_instance_restart"
}

func (a *instanceRestartAction) Configure(_ context.Context, req action.ConfigureRequest, resp *action.ConfigureResponse) {
	a.data = providerDataFrom(req.ProviderData, &resp.Diagnostics)
}

func (a *instanceRestartAction) Schema(_ context.Context, _ action.SchemaRequest, resp *action.SchemaResponse) {
	resp.Schema = actionschema.Schema{
		MarkdownDescription: "Restarts the running allocations of a `berth_instance` in place, one at a time, waiting for " +
			"each one's tasks to run again before the next (Terraform 1.14 and later; run it with `terraform apply " +
			"-invoke=action.berth_instance_restart.<name>` or from a resource's `action_trigger`). No new job version is " +
			"registered, so the instance's next plan is empty. On older Terraform versions, change the instance's " +
			"`restart_triggers` instead.",
		Attributes: map[string]actionschema.Attribute{
			"name": actionschema.StringAttribute{Required: true, MarkdownDescription: "The instance's name (its job ID)." + nameRuleDoc,
				Validators: []validator.String{nameValidator()}},
			"namespace": actionschema.StringAttribute{Optional: true,
				MarkdownDescription: "The instance's namespace. Default: the provider's `namespace`.",
				Validators:          []validator.String{namespaceValidator()}},
			"timeout": actionschema.StringAttribute{CustomType: timetypes.GoDurationType{}, Optional: true,
				MarkdownDescription: "How long the whole restart may take, a Go duration. Default `10m`."},
		},
	}
}

func (a *instanceRestartAction) Invoke(ctx context.Context, req action.InvokeRequest, resp *action.InvokeResponse) {
	if a.data == nil {
		resp.Diagnostics.AddError("Provider not configured", "The berth provider was not configured before the action ran.")
		return
	}
	ctx = a.data.Nomad.MaskSecrets(ctx)
	var m instanceRestartModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	timeout := defaultRestartTimeout
	if !m.Timeout.IsNull() {
		d, diags := m.Timeout.ValueGoDuration()
		resp.Diagnostics.Append(diags...)
		timeout = d
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
		resp.Diagnostics.AddError("Instance not found", fmt.Sprintf("Nomad has no job %q in namespace %q to restart.", name, ns))
		return
	}
	n, err := a.data.Nomad.RestartAllocationsReporting(ctx, ns, name, func(done, total int, alloc string) {
		resp.SendProgress(action.InvokeProgressEvent{Message: fmt.Sprintf("restarted %s (%d of %d)", alloc, done, total)})
	})
	if err != nil {
		addNomadError(&resp.Diagnostics, fmt.Sprintf("Restart of %s/%s stopped after %d allocations", ns, name, n), err)
		return
	}
	tflog.Info(ctx, "Restarted instance", map[string]any{"job": name, "namespace": ns, "allocations": n})
	if n == 0 {
		resp.SendProgress(action.InvokeProgressEvent{Message: fmt.Sprintf("%s/%s has no running allocation; nothing restarted", ns, name)})
	}
}
