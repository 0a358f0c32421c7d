package job

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/berthhq/terraform-provider-berth/internal/jobspec"
	"github.com/berthhq/terraform-provider-berth/internal/nomadclient"
	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
)

// ValidateConfig checks what can be checked of the jobspec without a
// cluster (jobspec.CheckOffline: HCL syntax, variables against the
// jobspec's variable blocks; a JSON jobspec whole), so such a mistake is
// one diagnostic naming its line at `terraform validate`. The cluster's
// own parser reads the rest at plan: a newer cluster knows blocks an
// older one does not.
func (r *jobResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var m jobModel
	if resp.Diagnostics.Append(req.Config.Get(ctx, &m)...); resp.Diagnostics.HasError() {
		return
	}
	validateVariablesWO(req, &resp.Diagnostics)
	if s, ok := m.spec(ctx, &resp.Diagnostics); ok {
		if err := jobspec.CheckOffline(s); err != nil {
			resp.Diagnostics.AddAttributeError(path.Root("jobspec"), "Invalid jobspec",
				fmt.Sprintf("%s. Fix the jobspec. (berth checks its syntax and variables here; the cluster's own "+
					"parser reads the rest of it at plan.)", strings.TrimSuffix(err.Error(), ".")))
		}
	}
}

// addJobspecError reports a jobspec the cluster's parser refuses at
// `jobspec`, or a parse that could not be asked.
func addJobspecError(diags *diag.Diagnostics, err error) {
	if err == nil {
		return
	}
	var pe *jobspec.ParseError
	if !errors.As(err, &pe) {
		diags.AddAttributeError(path.Root("jobspec"), "Could not parse the jobspec",
			fmt.Sprintf("berth asks the cluster's own parser to read the jobspec, and that failed: %v", err))
		return
	}
	diags.AddAttributeError(path.Root("jobspec"), "Invalid jobspec",
		fmt.Sprintf("The cluster's jobspec parser refused it: %s. Fix the jobspec (`nomad job validate` against this "+
			"cluster reads it the same way).", strings.TrimSuffix(err.Error(), ".")))
}

// ModifyPlan reads the job's ID, namespace and type from the jobspec (a
// new ID or namespace is another job: it replaces this one), and plans any
// drift the last refresh found away. A jobspec state already holds is not
// parsed again (ValidateConfig parsed it): a refresh plan of an unchanged
// job costs no parse here. A plan that changes the job parses it twice, to
// warn about a jobspec that changes on every apply (describeChanging).
func (r *jobResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() || r.Data == nil {
		return
	}
	var plan, state jobModel
	if resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...); resp.Diagnostics.HasError() {
		return
	}
	creating := req.State.Raw.IsNull()
	if !creating {
		if resp.Diagnostics.Append(req.State.Get(ctx, &state)...); resp.Diagnostics.HasError() {
			return
		}
	}
	plan.setDrift(nil)
	if plan.Format.IsUnknown() && !plan.Jobspec.IsUnknown() {
		// Not configured (Terraform plans the computed value unknown on
		// any change): the format berth detects.
		var configured types.String
		resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("format"), &configured)...)
		if configured.IsNull() {
			plan.Format = types.StringValue(jobspec.Spec{Source: plan.Jobspec.ValueString()}.FormatOf())
		}
	}
	s, known := plan.spec(ctx, &resp.Diagnostics)
	sameSpec := !creating && plan.Jobspec.Equal(state.Jobspec) && plan.Format.Equal(state.Format) && plan.Variables.Equal(state.Variables)
	var sum jobspec.Summary
	switch {
	case sameSpec:
		plan.ID, plan.Name, plan.Namespace, plan.Type = state.ID, state.Name, state.Namespace, state.Type
	case known: // a new or changed jobspec: the plan changes the job
		var ok bool
		if sum, ok = describeChanging(ctx, r.Data.Nomad, s, &resp.Diagnostics); !ok {
			return
		}
		ns := cmp.Or(sum.Namespace, r.Data.Nomad.Namespace())
		plan.ID, plan.Name, plan.Namespace = types.StringValue(ns+"/"+sum.ID), types.StringValue(sum.ID), types.StringValue(ns)
		plan.Type = types.StringValue(cmp.Or(sum.Type, "service"))
	default:
		plan.ID, plan.Name, plan.Namespace, plan.Type = types.StringUnknown(), types.StringUnknown(), types.StringUnknown(), types.StringUnknown()
	}
	changing := creating
	if !creating {
		if !known || !plan.Name.Equal(state.Name) || !plan.Namespace.Equal(state.Namespace) {
			resp.RequiresReplace = append(resp.RequiresReplace, path.Root("jobspec"))
		}
		if changing = !sameJobSettings(plan, state); changing {
			// Registering again gives a new modify index (and a version
			// when something changed).
			plan.JobModifyIndex, plan.JobVersion = types.Int64Unknown(), types.Int64Unknown()
			plan.DeploymentID = types.StringUnknown()
		}
	}
	if !changing {
		plan.SchedulerPlan = state.SchedulerPlan
	} else {
		plan.SchedulerPlan = types.MapUnknown(types.StringType)
	}
	if changing && known {
		if sameSpec { // drift or variables_wo_version alone: parsed only now
			var ok bool
			if sum, ok = describeChanging(ctx, r.Data.Nomad, s, &resp.Diagnostics); !ok {
				return
			}
		}
		r.checkReservation(ctx, &plan, sum, &resp.Diagnostics)
		exists := !creating && plan.Name.Equal(state.Name) && plan.Namespace.Equal(state.Namespace)
		r.dryRun(ctx, &plan, s, creating, exists, &resp.Diagnostics)
	}
	resp.Diagnostics.Append(resp.Plan.Set(ctx, &plan)...)
}

// sameJobSettings: nothing an apply registers or writes changes, and no
// drift.
func sameJobSettings(plan, state jobModel) bool {
	return plan.Jobspec.Equal(state.Jobspec) && plan.Format.Equal(state.Format) && plan.Variables.Equal(state.Variables) &&
		plan.Drift.Equal(state.Drift) && plan.VariablesWOVer.Equal(state.VariablesWOVer)
}

// validateVariablesWO checks what only the configuration shows, since the
// plan never holds variables_wo: it goes with variables_wo_version, and it
// is not empty (Nomad keeps no empty Variable).
func validateVariablesWO(req resource.ValidateConfigRequest, diags *diag.Diagnostics) {
	secrets, version := shared.RawAttr(req.Config.Raw, "variables_wo"), shared.RawAttr(req.Config.Raw, "variables_wo_version")
	elems, known := shared.RawElements(secrets)
	switch {
	case !secrets.IsNull() && version.IsNull():
		diags.AddAttributeError(path.Root("variables_wo_version"), "Missing variables_wo_version",
			"variables_wo is write-only, so Terraform cannot tell when it changes: set variables_wo_version with it "+
				"(for example 1), and change the version whenever the values change.")
	case secrets.IsNull() && !version.IsNull():
		diags.AddAttributeError(path.Root("variables_wo"), "Missing variables_wo",
			"variables_wo_version is set but variables_wo is not: set both, or remove both to delete the job's Variable.")
	case known && len(elems) == 0 && !secrets.IsNull():
		diags.AddAttributeError(path.Root("variables_wo"), "No variables",
			"variables_wo is empty, and Nomad keeps no empty Variable: give at least one, or remove variables_wo and "+
				"variables_wo_version.")
	}
}

// dryRun asks Nomad's scheduler what registering s would do (`nomad job
// plan`): groups it could not place are an error for a new job the apply would wait for (unless
// plan_failures is "warn"), a warning otherwise. A check that reads the
// cluster must not fail the plan of an existing job: `terraform destroy`
// runs such a plan first (DESIGN, "Plan-time checks never block a
// destroy"); a new job has nothing to destroy yet.
//
// Its per-group changes are planned as scheduler_plan, unless the job is
// moving: Terraform plans again at apply, and a known planned value that
// changed in between would fail the apply.
func (r *jobResource) dryRun(ctx context.Context, plan *jobModel, s jobspec.Spec, creating, exists bool, diags *diag.Diagnostics) {
	p, err := r.Data.Nomad.PlanJobspec(ctx, s, plan.Namespace.ValueString(), exists)
	if err != nil {
		// The dry run fails on a job Nomad's validation refuses too: ask
		// the cluster's validation (only now, so a plan that places costs
		// no extra request). A new job fails the plan with its words; an
		// existing one is warned about, as a placement failure is, so the
		// pre-destroy plan never fails on it (the apply's registration
		// fails with the same words).
		var refused *nomadclient.JobRefusedError
		if verr := r.Data.Nomad.ValidateJobspec(ctx, s, plan.Namespace.ValueString()); errors.As(verr, &refused) {
			detail := fmt.Sprintf("The cluster's validation (`nomad job validate`) refuses job %q:\n  - %s\n\n",
				plan.Name.ValueString(), strings.Join(refused.Problems, "\n  - "))
			if creating {
				diags.AddAttributeError(path.Root("jobspec"), "Nomad refuses the job", detail+"Nothing was registered. Fix the jobspec.")
			} else {
				diags.AddAttributeWarning(path.Root("jobspec"), "Nomad refuses the job", detail+"The apply's registration "+
					"fails with the same words, and the job in Nomad stays as it is. Fix the jobspec.")
			}
			return
		}
		var d diag.Diagnostics
		shared.AddNomadError(&d, "Could not ask Nomad's scheduler", err)
		diags.AddWarning("Could not ask Nomad's scheduler", d[0].Detail()+"\n\nThe plan does not say whether the job can be placed.")
		return
	}
	changes := make(map[string]string, len(p.Groups))
	for g, c := range p.Groups {
		changes[g] = c.String()
	}
	tflog.Info(ctx, "Nomad's scheduler plans", map[string]any{"job": plan.Name.ValueString(), "groups": changes, "moving": p.Moving})
	if !p.Moving {
		plan.SchedulerPlan = shared.MapOrNull(ctx, changes, diags)
	}
	if len(p.Failures) == 0 {
		return
	}
	lines := make([]string, len(p.Failures))
	for i, f := range p.Failures {
		lines[i] = f.String()
	}
	detail := fmt.Sprintf("Nomad's scheduler could not place job %q (a dry run, as `nomad job plan`):\n  - %s\n",
		plan.Name.ValueString(), strings.Join(lines, "\n  - "))
	asError := creating && plan.WaitForHealthy.ValueBool() && plan.PlanFailures.ValueString() != planFailuresWarn
	if asError {
		diags.AddAttributeError(path.Root("jobspec"), "The job cannot be placed", detail+"Nothing was registered. Add "+
			"capacity or nodes that meet the job's constraints, lower what it asks for, or set plan_failures = \"warn\" "+
			"to register it anyway (Nomad places it when room appears).")
		return
	}
	diags.AddAttributeWarning(path.Root("jobspec"), "The job cannot be placed now", detail+"Nomad keeps what it cannot "+
		"place blocked and places it when room appears. An apply that waits for the job fails, naming the same reasons.")
}

// checkReservation refuses a node reservation for a job that spans nodes
// (the jobspec says so: an error) and checks that the job fits in what the
// reservation has left (the cluster says so: a warning at plan, and the
// apply's charge refuses it before anything is written).
func (r *jobResource) checkReservation(ctx context.Context, plan *jobModel, sum jobspec.Summary, diags *diag.Diagnostics) {
	if plan.NodeReservation.IsNull() || plan.NodeReservation.IsUnknown() {
		return
	}
	if sum.Type == "system" || sum.Type == "sysbatch" {
		diags.AddAttributeError(path.Root("node_reservation"), "node_reservation on a job that spans nodes",
			fmt.Sprintf("Job %q is a %s job: it runs on every eligible node, so it cannot be placed into one node's "+
				"reservation. Remove node_reservation, or make it a service or batch job.", sum.ID, sum.Type))
		return
	}
	var found diag.Diagnostics
	shared.CheckReservationBudget(ctx, r.Data, plan.NodeReservation, nomadclient.JobConsumer(plan.Namespace.ValueString(), sum.ID),
		sum.Charge, jobBudgetFix, &found)
	shared.WarnAtPlan(diags, found)
}
