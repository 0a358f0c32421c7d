package instance

import (
	"context"
	"errors"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework/action"
	actionschema "github.com/hashicorp/terraform-plugin-framework/action/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/berthhq/terraform-provider-berth/internal/instance"
	"github.com/berthhq/terraform-provider-berth/internal/nomadclient"
	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
	"github.com/berthhq/terraform-provider-berth/internal/workflow"
)

// NewInstanceRevertAction builds berth_instance_revert: returns an
// instance's job to an earlier version with Nomad's revert API (Terraform
// 1.14+). Older Terraform versions revert declaratively: the template
// (templates/actions/instance_revert.md.tmpl) says how.
func NewInstanceRevertAction() action.Action {
	return &shared.JobAction{ActionBase: shared.NewActionBase("instance_revert"), Thing: "instance",
		Doc: "Returns the job of a `berth_instance` to an earlier version with Nomad's job revert " +
			"(`nomad job revert`), registered as a new version (Terraform 1.14 and later; `terraform apply " +
			"-invoke=action.berth_instance_revert.<name>`). The revert is refused if the job changed since the action read " +
			"its current version. The instance's configuration does not change, so its next plan shows an update back to " +
			"the configuration: change the configuration to the reverted values to keep them.",
		TimeoutDoc: "How long the revert may take, including the wait for a healthy deployment",
		Attributes: map[string]actionschema.Attribute{
			"version": actionschema.Int64Attribute{Optional: true,
				Validators: []validator.Int64{int64validator.AtLeast(0)},
				MarkdownDescription: "The job version to return to, as `nomad job history` lists them. It must be one Nomad still " +
					"keeps and not the current one. Default: the previous stable version, the newest version older than the " +
					"current one whose deployment succeeded."},
			"wait_for_healthy": actionschema.BoolAttribute{Optional: true,
				MarkdownDescription: "Wait, within `timeout`, for what an apply of the instance waits for: the revert's deployment " +
					"to be healthy (a batch job to complete, a system job to run on every node). Default `true`."},
		},
		Run: revertJob,
	}
}

// instanceRevertModel is the action's configuration beyond jobActionModel.
type instanceRevertModel struct {
	Version        types.Int64 `tfsdk:"version"`
	WaitForHealthy types.Bool  `tfsdk:"wait_for_healthy"`
}

func revertJob(ctx context.Context, data *shared.ProviderData, t shared.JobActionTarget, req action.InvokeRequest, resp *action.InvokeResponse) {
	var m instanceRevertModel
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("version"), &m.Version)...)
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("wait_for_healthy"), &m.WaitForHealthy)...)
	if resp.Diagnostics.HasError() {
		return
	}
	var requested *uint64
	target := "its previous stable version"
	if !m.Version.IsNull() {
		v := uint64(m.Version.ValueInt64())
		requested, target = &v, fmt.Sprintf("version %d", v)
	}
	resp.SendProgress(action.InvokeProgressEvent{Message: fmt.Sprintf("reverting %s/%s to %s", t.Ns, t.Name, target)})
	res, err := data.Nomad.RevertJob(ctx, t.Ns, t.Name, requested)
	if err != nil {
		addRevertError(&resp.Diagnostics, t, err)
		return
	}
	tflog.Info(ctx, "Reverted instance", map[string]any{"job": t.Name, "namespace": t.Ns, "from": res.From, "to": res.To})
	resp.SendProgress(action.InvokeProgressEvent{Message: fmt.Sprintf("%s/%s reverted from version %d to a copy of version %d",
		t.Ns, t.Name, res.From, res.To)})
	if !m.WaitForHealthy.IsNull() && !m.WaitForHealthy.ValueBool() {
		return
	}
	job, err := data.Nomad.GetJob(ctx, t.Ns, t.Name)
	if err == nil && job == nil {
		err = fmt.Errorf("job %q is gone from namespace %q", t.Name, t.Ns)
	}
	if err != nil {
		shared.AddNomadError(&resp.Diagnostics, "Could not read the reverted job", err)
		return
	}
	// Wait as an apply of the reverted spec would (its type, health check
	// and whether it runs at all come from the version returned to).
	spec, _ := job.InstanceSpec()
	dep, err := workflow.Settle(ctx, data.Nomad, workflow.Settling{Namespace: t.Ns, Name: t.Name, Type: spec.JobType(),
		EvalID: res.EvalID, Stopped: !spec.Running, Wait: true,
		ManualHealth: instance.HealthCheckOf(spec) == instance.HealthCheckManual})
	var re *nomadclient.RolloutError
	switch {
	case errors.As(err, &re):
		resp.Diagnostics.AddError(fmt.Sprintf("The revert to version %d did not become healthy", res.To), re.Error()+
			"\n\nThe revert stays registered as the job's current version. Revert to another version, or apply the "+
			"instance's configuration to register it again; inspect the job with `nomad job status "+t.Name+"`.")
		return
	case err != nil:
		var d diag.Diagnostics
		shared.AddNomadError(&d, "", err)
		resp.Diagnostics.AddError(fmt.Sprintf("Lost track of the revert to version %d", res.To), fmt.Sprintf(
			"Job %q is reverted, but berth lost track of its rollout while waiting for it: %s\n\nThe rollout may still be "+
				"going on in Nomad. Check it with `nomad job status %s`; do not run the action again for the same revert.",
			t.Name, d[0].Detail(), t.Name))
		return
	}
	if dep != nil {
		resp.SendProgress(action.InvokeProgressEvent{Message: fmt.Sprintf("deployment %s of %s/%s: %s", dep.ID, t.Ns, t.Name, dep.Status)})
		if dep.Warning != nil {
			resp.Diagnostics.AddWarning(dep.Warning.Summary, dep.Warning.Detail)
		}
	}
}

// addRevertError reports why a revert was not made (or may have been),
// with what to do next; a version that cannot be reverted to is reported
// at the version attribute.
func addRevertError(diags *diag.Diagnostics, t shared.JobActionTarget, err error) {
	var refusal *instance.RevertRefusal
	var conflict *nomadclient.RevertConflictError
	history := fmt.Sprintf("`nomad job history -namespace=%s %s`", t.Ns, t.Name)
	switch {
	case errors.As(err, &refusal):
		diags.AddAttributeError(path.Root("version"), "Cannot revert to that version",
			fmt.Sprintf("Job %q in namespace %q: %s Nothing was changed. List the versions with %s and set version to one of them.",
				t.Name, t.Ns, refusal.Reason, history))
	case errors.As(err, &conflict):
		diags.AddError("The job changed during the revert",
			conflict.Error()+". Nothing was reverted, so the other change stays. Look at it with "+history+
				", then run the action again if you still want to revert.")
	case nomadclient.OutcomeUnknown(err):
		diags.AddError("The revert may or may not have been made",
			fmt.Sprintf("%v\n\nCheck with %s whether a new version was registered before running the action again.", err, history))
	default:
		shared.AddNomadError(diags, fmt.Sprintf("Could not revert %s/%s", t.Ns, t.Name), err)
	}
}
