package job

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/berthhq/terraform-provider-berth/internal/jobspec"
	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
)

var _ resource.ResourceWithMoveState = &jobResource{}

// nomadJobState is what berth_job takes from the state of the other Nomad
// provider's nomad_job (hashicorp/nomad), for `moved { from = nomad_job.x
// to = berth_job.x }`.
type nomadJobState struct {
	Jobspec   string `json:"jobspec"`
	JSON      bool   `json:"json"`
	Name      string `json:"name"`
	Namespace string `json:"namespace"`
	HCL2      []struct {
		Vars map[string]string `json:"vars"`
	} `json:"hcl2"`
}

// MoveState takes a nomad_job over without touching the job: the jobspec,
// its format and HCL2 variables move; the rest is read from Nomad by the
// refresh that follows, so the next plan is empty when the configuration
// keeps the jobspec. wait_for_healthy and purge_on_destroy take berth's
// defaults, which the moved configuration says unless it sets them.
func (r *jobResource) MoveState(context.Context) []resource.StateMover {
	return []resource.StateMover{shared.MoveFrom("nomad_job", func(_ context.Context, src nomadJobState, _ *diag.Diagnostics) jobModel {
		m := jobModel{Jobspec: types.StringValue(src.Jobspec), Format: types.StringValue(jobspec.FormatHCL2), Variables: types.MapNull(types.StringType),
			VariablesWO: types.MapNull(types.StringType), VariablesWOVer: types.Int64Null(), SchedulerPlan: types.MapNull(types.StringType),
			WaitForHealthy: types.BoolValue(true), PurgeOnDestroy: types.BoolValue(true), PlanFailures: types.StringNull(), NodeReservation: types.StringNull(),
			DeploymentID: types.StringValue(""), Timeouts: timeouts.Value{Object: types.ObjectNull(jobTimeoutTypes)}}
		if src.JSON {
			m.Format = types.StringValue(jobspec.FormatJSON)
		}
		if len(src.HCL2) > 0 && len(src.HCL2[0].Vars) > 0 {
			vars := make(map[string]attr.Value, len(src.HCL2[0].Vars))
			for k, v := range src.HCL2[0].Vars {
				vars[k] = types.StringValue(v)
			}
			m.Variables = types.MapValueMust(types.StringType, vars)
		}
		ns := src.Namespace
		if ns == "" && r.data != nil {
			ns = r.data.Nomad.Namespace()
		}
		m.Name, m.Namespace, m.ID = types.StringValue(src.Name), types.StringValue(ns), types.StringValue(ns+"/"+src.Name)
		m.Type, m.JobModifyIndex, m.JobVersion = types.StringNull(), types.Int64Null(), types.Int64Null()
		m.setDrift(nil)
		return m
	})}
}

// jobTimeoutTypes is the timeouts block's type, for a null one.
var jobTimeoutTypes = map[string]attr.Type{"create": types.StringType, "update": types.StringType, "delete": types.StringType}
