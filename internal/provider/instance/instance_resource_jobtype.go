package instance

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/berthhq/terraform-provider-berth/internal/instance"
	"github.com/berthhq/terraform-provider-berth/internal/nomadclient"
	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
)

// jobTypeAttribute is the instance's `type`. Unset means "service" and
// stays null in state (and reads back null for service jobs, imported ones
// included), so the common case costs nothing at plan time.
func jobTypeAttribute() schema.StringAttribute {
	return schema.StringAttribute{
		Optional: true,
		MarkdownDescription: "Nomad job type: " + shared.BacktickList(instance.JobTypes()) + ". Default `service`. Changing it replaces " +
			"the instance (Nomad refuses to change the type of a job).\n\n" +
			"  - `service` runs until stopped; an apply waits for its deployment to be healthy.\n" +
			"  - `batch` runs to completion: an apply waits until every allocation of the new job version has exited " +
			"successfully (`status` `complete`) and fails, quoting the exit code and the task events, as soon as one " +
			"fails (`status` `failed`). Every apply that changes the job registers a new version, which Nomad runs " +
			"again. `update` cannot be set (Nomad refuses it on batch jobs). A completed batch job is left alone by later " +
			"plans; when Nomad garbage-collects it (by default 4 hours after it ended) its state is kept, and the next " +
			"change runs it again.\n" +
			"  - `system` runs one allocation on every ready, eligible node of `node_pool` (and `datacenters`) whose " +
			"drivers can run it, including nodes that join later (Nomad places those itself). An apply waits until each " +
			"node the scheduler chose runs the current version with all its tasks started; Nomad 1.10 runs no deployment " +
			"for system jobs, so there is no health check to wait for, and canaries do not exist. `replicas`, " +
			"`node_reservation` and `update.canary` greater than 0 cannot be set; `replicas` reads null.",
		Validators: []validator.String{stringvalidator.OneOf(instance.JobTypes()...)},
		PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplaceIf(jobTypeChanged,
			"Changing the job type replaces the instance.", "Changing the job type replaces the instance.")},
	}
}

// jobTypeChanged: null and "service" are the same type; a type known
// only at apply may differ, so it replaces.
func jobTypeChanged(_ context.Context, req planmodifier.StringRequest, resp *stringplanmodifier.RequiresReplaceIfFuncResponse) {
	if req.State.Raw.IsNull() {
		return
	}
	if req.PlanValue.IsUnknown() {
		resp.RequiresReplace = true
		return
	}
	typeOf := func(v types.String) string {
		return instance.Spec{Type: v.ValueString()}.JobType()
	}
	resp.RequiresReplace = typeOf(req.StateValue) != typeOf(req.PlanValue)
}

// validateJobTypeConfig refuses an update block on a batch job, which
// only the configuration can tell apart from the schema's default.
func validateJobTypeConfig(m *instanceModel, diags *diag.Diagnostics) {
	if m.Type.ValueString() == instance.TypeBatch && !m.Update.IsNull() {
		diags.AddAttributeError(path.Root("update"), "update on a batch job",
			"Nomad refuses an update block on batch jobs: a batch job runs to completion and each new version simply runs again. Remove update.")
	}
}

// planJobType keeps out of the plan what the job type does not have: a
// batch job's update (the schema's default object would otherwise be
// planned) and a system job's replicas. A type known only at apply keeps
// the plan as it is: a batch job then records the default update once,
// which the next plan sets to null without touching Nomad (Normalize
// ignores a batch job's update), and a system job's unknown replicas are
// read back as null.
func planJobType(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	var typ types.String
	resp.Diagnostics.Append(resp.Plan.GetAttribute(ctx, path.Root("type"), &typ)...)
	if resp.Diagnostics.HasError() || typ.IsUnknown() {
		return
	}
	unset := func(name string) bool { return shared.ConfigNull(ctx, req.Config, name, &resp.Diagnostics) }
	switch typ.ValueString() {
	case instance.TypeBatch:
		if unset("update") {
			resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("update"), types.ObjectNull(defaultUpdateObject().AttributeTypes(ctx)))...)
			keepPriorIfUnchanged(req, resp)
		}
	case instance.TypeSystem:
		if unset("replicas") {
			resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("replicas"), types.Int64Null())...)
		}
	}
}

// keepPriorIfUnchanged undoes the framework's "something changed" marking
// when the only change was the update default planJobType took back out:
// the framework applies the schema's default object to a batch job's
// update, sees it differ from the null in state, and marks every computed
// attribute unknown before ModifyPlan runs, which would show an unchanged
// batch instance as an update. When every known planned value equals the
// prior state's, the prior state is the plan.
func keepPriorIfUnchanged(req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.State.Raw.IsNull() || resp.Diagnostics.HasError() {
		return
	}
	var planned, prior map[string]tftypes.Value
	if resp.Plan.Raw.As(&planned) != nil || req.State.Raw.As(&prior) != nil {
		return
	}
	for name, v := range planned {
		if !v.IsKnown() {
			continue // a computed value the framework marked unknown
		}
		if !v.IsFullyKnown() || !v.Equal(prior[name]) {
			return // a real change
		}
	}
	resp.Plan.Raw = req.State.Raw.Copy()
}

// typeToModel writes s's type and what depends on it the way an unset
// attribute reads: null for a service job's type and a batch job's update.
func typeToModel(ctx context.Context, s instance.Spec, m *instanceModel) {
	m.Type = types.StringNull()
	if t := s.JobType(); t != instance.TypeService {
		m.Type = types.StringValue(t)
	}
	if s.JobType() == instance.TypeBatch {
		m.Update = types.ObjectNull(defaultUpdateObject().AttributeTypes(ctx))
	}
}

// batchCompleteKey is the private state key recording that a batch
// instance's job ran to completion ("true"; absent otherwise).
const batchCompleteKey = "batch_complete"

// collectedBatch reports whether state is a batch instance that ran to
// completion (private state says so), so a job Nomad no longer has was
// garbage-collected (Nomad collects dead batch jobs after its
// job_gc_threshold). Such an instance stays in state as it was: dropping
// it would make the next plan create it, which runs the job again.
func collectedBatch(ctx context.Context, state *instanceModel, private shared.PrivateData) bool {
	if state.Type.ValueString() != instance.TypeBatch || private == nil {
		return false
	}
	raw, d := private.GetKey(ctx, batchCompleteKey)
	return !d.HasError() && string(raw) == "true"
}

// recordBatchComplete records in private state whether a batch job ran to
// completion. Only a batch job Nomad reports dead has its allocations read
// to tell completion from failure: every other refresh is one read.
func (r *instanceResource) recordBatchComplete(ctx context.Context, job *nomadclient.Job, private shared.PrivateData) error {
	if job.Type() != instance.TypeBatch {
		return nil
	}
	complete := false
	if job.Dead() && !job.Stopped() {
		allocs, err := r.Data.Nomad.JobAllocations(ctx, job.Namespace(), job.ID())
		if err != nil {
			return err
		}
		complete = job.ObserveInstance(allocs).Status == instance.StatusComplete
	}
	var value []byte
	if complete {
		value = []byte("true")
	}
	if d := private.SetKey(ctx, batchCompleteKey, value); d.HasError() {
		return fmt.Errorf("%s: %s", d[0].Summary(), d[0].Detail())
	}
	return nil
}

// rolloutSummary names a failed create's outcome by job type.
func rolloutSummary(spec instance.Spec) string {
	switch spec.JobType() {
	case instance.TypeBatch:
		return "The batch job did not complete"
	case instance.TypeSystem:
		return "The system job did not run on every node"
	}
	return "The instance did not become healthy"
}
