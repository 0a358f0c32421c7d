package job

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/berthhq/terraform-provider-berth/internal/jobspec"
)

// jobModel is berth_job's state.
type jobModel struct {
	ID              types.String   `tfsdk:"id"`
	Jobspec         types.String   `tfsdk:"jobspec"`
	Format          types.String   `tfsdk:"format"`
	Variables       types.Map      `tfsdk:"variables"`
	Name            types.String   `tfsdk:"name"`
	Namespace       types.String   `tfsdk:"namespace"`
	Type            types.String   `tfsdk:"type"`
	WaitForHealthy  types.Bool     `tfsdk:"wait_for_healthy"`
	PurgeOnDestroy  types.Bool     `tfsdk:"purge_on_destroy"`
	JobModifyIndex  types.Int64    `tfsdk:"job_modify_index"`
	JobVersion      types.Int64    `tfsdk:"job_version"`
	DeploymentID    types.String   `tfsdk:"deployment_id"`
	Drift           types.List     `tfsdk:"drift"`
	SchedulerPlan   types.Map      `tfsdk:"scheduler_plan"`
	PlanFailures    types.String   `tfsdk:"plan_failures"`
	NodeReservation types.String   `tfsdk:"node_reservation"`
	VariablesWO     types.Map      `tfsdk:"variables_wo"`
	VariablesWOVer  types.Int64    `tfsdk:"variables_wo_version"`
	Timeouts        timeouts.Value `tfsdk:"timeouts"`
}

// spec is the model's jobspec; ok is false while a value is unknown.
func (m *jobModel) spec(ctx context.Context, diags *diag.Diagnostics) (jobspec.Spec, bool) {
	if m.Jobspec.IsUnknown() || m.Format.IsUnknown() || m.Variables.IsUnknown() {
		return jobspec.Spec{}, false
	}
	for _, v := range m.Variables.Elements() {
		if v.IsUnknown() {
			return jobspec.Spec{}, false
		}
	}
	s := jobspec.Spec{Source: m.Jobspec.ValueString(), Format: m.Format.ValueString()}
	if !m.Variables.IsNull() {
		diags.Append(m.Variables.ElementsAs(ctx, &s.Variables, false)...)
	}
	return s, !diags.HasError()
}

// setDrift records drift (nil: none) as a known list.
func (m *jobModel) setDrift(drift []string) {
	elems := make([]attr.Value, len(drift))
	for i, d := range drift {
		elems[i] = types.StringValue(d)
	}
	m.Drift = types.ListValueMust(types.StringType, elems)
}
