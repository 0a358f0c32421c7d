package job

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/action"
	actionschema "github.com/hashicorp/terraform-plugin-framework/action/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
)

// NewJobDispatchAction builds berth_job_dispatch: one run of a
// parameterized berth_job (Terraform 1.14+), as `nomad job dispatch`.
func NewJobDispatchAction() action.Action {
	return &shared.JobAction{ActionBase: shared.NewActionBase("job_dispatch"), Thing: "job",
		Doc: "Starts one run of a parameterized job (Terraform 1.14 and later), as `nomad job dispatch`: run it " +
			"with `terraform apply -invoke=action.berth_job_dispatch.<name>` or from a resource's `action_trigger`. Each " +
			"invocation starts a new run; the job itself, and its `berth_job`, do not change.",
		TimeoutDoc: "How long the dispatch (and, with wait, the run) may take",
		Attributes: map[string]actionschema.Attribute{
			"payload": actionschema.StringAttribute{Optional: true,
				MarkdownDescription: "The run's payload, as `nomad job dispatch` reads it from a file (the job's `parameterized.payload` " +
					"says whether it is required)."},
			"meta": actionschema.MapAttribute{Optional: true, ElementType: types.StringType,
				MarkdownDescription: "The run's meta: the keys the job's `parameterized.meta_required` and `meta_optional` name."},
			"wait": actionschema.BoolAttribute{Optional: true,
				MarkdownDescription: "Wait until the run completes (it fails the action, quoting Nomad's task events, when the run fails). " +
					"Default `false`: the action returns once Nomad has the run."},
		},
		Run: dispatchJob,
	}
}

// jobDispatchModel is the action's configuration.
type jobDispatchModel struct {
	shared.JobActionModel
	Payload types.String `tfsdk:"payload"`
	Meta    types.Map    `tfsdk:"meta"`
	Wait    types.Bool   `tfsdk:"wait"`
}

func dispatchJob(ctx context.Context, data *shared.ProviderData, t shared.JobActionTarget, req action.InvokeRequest, resp *action.InvokeResponse) {
	if !t.Job.Parameterized() {
		resp.Diagnostics.AddError("Not a parameterized job",
			fmt.Sprintf("Job %q in namespace %q has no parameterized block, so it cannot be dispatched.", t.Name, t.Ns))
		return
	}
	var m jobDispatchModel
	if resp.Diagnostics.Append(req.Config.Get(ctx, &m)...); resp.Diagnostics.HasError() {
		return
	}
	var meta map[string]string
	if !m.Meta.IsNull() {
		resp.Diagnostics.Append(m.Meta.ElementsAs(ctx, &meta, false)...)
	}
	var payload []byte
	if !m.Payload.IsNull() {
		payload = []byte(m.Payload.ValueString())
	}
	d, err := data.Nomad.DispatchJob(ctx, t.Ns, t.Name, meta, payload)
	if err != nil {
		shared.AddNomadError(&resp.Diagnostics, fmt.Sprintf("Could not dispatch %s/%s", t.Ns, t.Name), err)
		return
	}
	tflog.Info(ctx, "Dispatched job", map[string]any{"job": t.Name, "namespace": t.Ns, "dispatched": d.JobID})
	resp.SendProgress(action.InvokeProgressEvent{Message: fmt.Sprintf("dispatched %s/%s as %s", t.Ns, t.Name, d.JobID)})
	if !m.Wait.ValueBool() {
		return
	}
	if err := data.Nomad.WaitBatchComplete(ctx, t.Ns, d.JobID, d.EvalID); err != nil {
		shared.AddRolloutError(&resp.Diagnostics, "The dispatched run did not complete", d.JobID, err)
		return
	}
	resp.SendProgress(action.InvokeProgressEvent{Message: d.JobID + " completed"})
}
