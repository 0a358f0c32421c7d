package shared

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

type JobActionModel struct {
	Name      types.String         `tfsdk:"name"`
	Namespace types.String         `tfsdk:"namespace"`
	Timeout   timetypes.GoDuration `tfsdk:"timeout"`
}

const defaultActionTimeout = 10 * time.Minute

// JobActionAttributes are the attributes of an action on the job of a
// `thing` ("instance", "lease"); timeoutDoc says what the timeout covers.
func JobActionAttributes(thing, timeoutDoc string) map[string]actionschema.Attribute {
	return map[string]actionschema.Attribute{
		"name": actionschema.StringAttribute{Required: true, MarkdownDescription: "The " + thing + "'s name (its job ID)." + NameRuleDoc,
			Validators: []validator.String{NameValidator()}},
		"namespace": actionschema.StringAttribute{Optional: true,
			MarkdownDescription: "The " + thing + "'s namespace. Default: the provider's `namespace`.",
			Validators:          []validator.String{NamespaceValidator()}},
		"timeout": actionschema.StringAttribute{CustomType: timetypes.GoDurationType{}, Optional: true,
			MarkdownDescription: timeoutDoc + ", a Go duration. Default `10m`."},
	}
}

// JobActionTarget is what an action invocation works on.
type JobActionTarget struct {
	Ns, Name string
	Job      *nomadclient.Job
}

// OpenJobAction reads the action's configuration and the job it names,
// with the action's timeout on ctx (call cancel when done). ok is false,
// with the reason in resp, when the action cannot go on.
func OpenJobAction(ctx context.Context, data *ProviderData, thing string, req action.InvokeRequest, resp *action.InvokeResponse) (
	context.Context, context.CancelFunc, JobActionTarget, bool) {
	noop := func() {}
	if data == nil {
		resp.Diagnostics.AddError("Provider not configured", "The berth provider was not configured before the action ran.")
		return ctx, noop, JobActionTarget{}, false
	}
	// Attribute by attribute: an action may declare more of its own.
	var m JobActionModel
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
		return ctx, noop, JobActionTarget{}, false
	}
	t := JobActionTarget{Ns: m.Namespace.ValueString(), Name: m.Name.ValueString()}
	if t.Ns == "" {
		t.Ns = data.Nomad.Namespace()
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	job, err := data.Nomad.GetJob(ctx, t.Ns, t.Name)
	if err != nil {
		AddNomadError(&resp.Diagnostics, "Could not read the "+thing+"'s job", err)
		return ctx, cancel, t, false
	}
	if job == nil {
		resp.Diagnostics.AddError("No such "+thing, fmt.Sprintf("Nomad has no job %q in namespace %q.", t.Name, t.Ns))
		return ctx, cancel, t, false
	}
	t.Job = job
	return ctx, cancel, t, true
}

// JobAction is an action on one job, whole but for what makes it itself:
// its description, its own attributes and what it does (Run). The base,
// the shared attributes and the reading of the job are here, once.
type JobAction struct {
	ActionBase
	// Thing is what the job is to the user: "instance", "lease", "job".
	Thing string
	// Doc describes the action; TimeoutDoc says what its timeout covers.
	Doc, TimeoutDoc string
	// Attributes are the action's own, besides name, namespace and timeout.
	Attributes map[string]actionschema.Attribute
	// Run does the action on the job read, with the timeout on ctx.
	Run func(ctx context.Context, data *ProviderData, t JobActionTarget, req action.InvokeRequest, resp *action.InvokeResponse)
}

var _ action.ActionWithConfigure = &JobAction{}

func (a *JobAction) Schema(_ context.Context, _ action.SchemaRequest, resp *action.SchemaResponse) {
	attrs := JobActionAttributes(a.Thing, a.TimeoutDoc)
	for k, v := range a.Attributes {
		attrs[k] = v
	}
	resp.Schema = actionschema.Schema{MarkdownDescription: a.Doc, Attributes: attrs}
}

func (a *JobAction) Invoke(ctx context.Context, req action.InvokeRequest, resp *action.InvokeResponse) {
	ctx, cancel, t, ok := OpenJobAction(ctx, a.Data, a.Thing, req, resp)
	defer cancel()
	if ok {
		a.Run(ctx, a.Data, t, req, resp)
	}
}
