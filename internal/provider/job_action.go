package provider

import (
	"context"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timetypes/timetypes"
	"github.com/hashicorp/terraform-plugin-framework/action"
	actionschema "github.com/hashicorp/terraform-plugin-framework/action/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/berthhq/terraform-provider-berth/internal/nomadclient"
)

// Every berth action works on one job, named like the resource that owns
// it: name, namespace (the provider's by default) and a timeout for the
// whole action. jobActionModel and jobActionAttributes declare that once.

type jobActionModel struct {
	Name      types.String         `tfsdk:"name"`
	Namespace types.String         `tfsdk:"namespace"`
	Timeout   timetypes.GoDuration `tfsdk:"timeout"`
}

const defaultActionTimeout = 10 * time.Minute

// jobActionAttributes are the attributes of an action on the job of a
// `thing` ("instance", "lease"); timeoutDoc says what the timeout covers.
func jobActionAttributes(thing, timeoutDoc string) map[string]actionschema.Attribute {
	return map[string]actionschema.Attribute{
		"name": actionschema.StringAttribute{Required: true, MarkdownDescription: "The " + thing + "'s name (its job ID)." + nameRuleDoc,
			Validators: []validator.String{nameValidator()}},
		"namespace": actionschema.StringAttribute{Optional: true,
			MarkdownDescription: "The " + thing + "'s namespace. Default: the provider's `namespace`.",
			Validators:          []validator.String{namespaceValidator()}},
		"timeout": actionschema.StringAttribute{CustomType: timetypes.GoDurationType{}, Optional: true,
			MarkdownDescription: timeoutDoc + ", a Go duration. Default `10m`."},
	}
}

// jobActionTarget is what an action invocation works on.
type jobActionTarget struct {
	ns, name string
	job      *nomadclient.Job
}

// openJobAction reads the action's configuration and the job it names,
// with the action's timeout on ctx (call cancel when done). ok is false,
// with the reason in resp, when the action cannot go on.
func openJobAction(ctx context.Context, data *ProviderData, thing string, req action.InvokeRequest, resp *action.InvokeResponse) (
	context.Context, context.CancelFunc, jobActionTarget, bool) {
	noop := func() {}
	if data == nil {
		resp.Diagnostics.AddError("Provider not configured", "The berth provider was not configured before the action ran.")
		return ctx, noop, jobActionTarget{}, false
	}
	// Attribute by attribute: an action may declare more of its own.
	var m jobActionModel
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("name"), &m.Name)...)
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("namespace"), &m.Namespace)...)
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("timeout"), &m.Timeout)...)
	timeout := defaultActionTimeout
	if !m.Timeout.IsNull() {
		d, diags := m.Timeout.ValueGoDuration()
		resp.Diagnostics.Append(diags...)
		timeout = d
	}
	if resp.Diagnostics.HasError() {
		return ctx, noop, jobActionTarget{}, false
	}
	t := jobActionTarget{ns: m.Namespace.ValueString(), name: m.Name.ValueString()}
	if t.ns == "" {
		t.ns = data.Nomad.Namespace()
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	job, err := data.Nomad.GetJob(ctx, t.ns, t.name)
	if err != nil {
		addNomadError(&resp.Diagnostics, "Could not read the "+thing+"'s job", err)
		return ctx, cancel, t, false
	}
	if job == nil {
		resp.Diagnostics.AddError("No such "+thing, fmt.Sprintf("Nomad has no job %q in namespace %q.", t.name, t.ns))
		return ctx, cancel, t, false
	}
	t.job = job
	return ctx, cancel, t, true
}
