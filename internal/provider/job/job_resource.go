package job

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/berthhq/terraform-provider-berth/internal/jobspec"
	"github.com/berthhq/terraform-provider-berth/internal/nomadclient"
	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
	"github.com/berthhq/terraform-provider-berth/internal/workflow"
)

var (
	_ resource.ResourceWithConfigure      = &jobResource{}
	_ resource.ResourceWithImportState    = &jobResource{}
	_ resource.ResourceWithValidateConfig = &jobResource{}
	_ resource.ResourceWithModifyPlan     = &jobResource{}
	_ resource.ResourceWithIdentity       = &jobResource{}
)

// NewJobResource builds the berth_job resource.
func NewJobResource() resource.Resource { return newJobResource() }

func newJobResource() *jobResource {
	return &jobResource{ResourceBase: shared.NewResourceBase("job"), WithIdentity: shared.WithIdentity{Identity: Identity}}
}

type jobResource struct {
	shared.ResourceBase
	shared.WithIdentity
}

// Identity is berth_job's resource identity.
var Identity = shared.ResourceIdentity{
	{Name: "namespace", Doc: "Nomad namespace of the job; default: the provider's namespace.", Optional: true},
	{Name: "name", Doc: "Job ID."},
}

func (r *jobResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = jobSchema(ctx)
}

func (r *jobResource) jobs() workflow.Jobs {
	return workflow.NewJobs(r.Data.Nomad, r.Data.LedgerNamespace)
}

// writeInput is the workflow's input for plan (and state, on update).
func (r *jobResource) writeInput(ctx context.Context, cfg tfsdk.Config, plan, state *jobModel, diags *diag.Diagnostics) (workflow.JobWrite, bool) {
	s, ok := plan.spec(ctx, diags)
	if !ok {
		diags.AddError("Unknown values at apply", "berth_job got unknown values at apply time; this is a bug in berth.")
		return workflow.JobWrite{}, false
	}
	sum, err := r.Data.Nomad.DescribeJobspec(ctx, s, plan.Namespace.ValueString())
	if addJobspecError(diags, err); err != nil {
		return workflow.JobWrite{}, false
	}
	in := workflow.JobWrite{Spec: s, Job: sum, Namespace: plan.Namespace.ValueString(), Wait: plan.WaitForHealthy.ValueBool(),
		SecretsVersion: plan.VariablesWOVer.ValueInt64Pointer(), Reservation: plan.NodeReservation.ValueString()}
	if in.SecretsVersion != nil {
		var secrets types.Map
		diags.Append(cfg.GetAttribute(ctx, path.Root("variables_wo"), &secrets)...)
		if !secrets.IsNull() && !secrets.IsUnknown() {
			diags.Append(secrets.ElementsAs(ctx, &in.Secrets, false)...)
		}
	}
	if state != nil {
		in.HadVersion = state.VariablesWOVer.ValueInt64Pointer()
		if had, ok := state.spec(ctx, diags); ok {
			if prior, err := r.Data.Nomad.DescribeJobspec(ctx, had, state.Namespace.ValueString()); err == nil {
				in.HadCharge = prior.Charge
			}
		}
		in.Index = uint64(state.JobModifyIndex.ValueInt64())
		diags.Append(state.Drift.ElementsAs(ctx, &in.Drift, false)...)
	}
	return in, !diags.HasError()
}

func (r *jobResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan jobModel
	if resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...); resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel := shared.WithTimeout(ctx, plan.Timeouts.Create, 10*time.Minute, &resp.Diagnostics)
	defer cancel()
	in, ok := r.writeInput(ctx, req.Config, &plan, nil, &resp.Diagnostics)
	if !ok {
		return
	}
	out, err := r.jobs().Create(ctx, in)
	recordJobSecrets(ctx, resp.Private, in.Job.ID, out.SecretsIndex, &resp.Diagnostics)
	if shared.AddOutcome(&resp.Diagnostics, jobErrors(), out.Warnings, out.Problems); err != nil {
		shared.AddWorkflowError(&resp.Diagnostics, jobErrors(), err)
		if workflow.Uncertain(err) {
			shared.SetStateUnknownsNull(ctx, &resp.State, &plan, &resp.Diagnostics) // tainted: the next apply reads it back
		}
		return
	}
	r.recordOutcome(ctx, &plan, out, &resp.State, &resp.Diagnostics)
	r.keepParse(ctx, resp.Private, &plan, &resp.Diagnostics)
}

func jobErrors() shared.ErrorContext {
	return shared.ErrorContext{Object: "job", ChargeSummary: "Could not place the job into its node reservation", ChargeFix: jobBudgetFix,
		WriteRefused: func(diags *diag.Diagnostics, err *workflow.WriteError) {
			shared.AddNomadError(diags, err.Summary, err.Err)
		}}
}

// recordOutcome reads the job back after a registration (with a fresh
// deadline) and stores it, then reports a rollout that failed.
func (r *jobResource) recordOutcome(ctx context.Context, m *jobModel, out workflow.JobOutcome, st *tfsdk.State, diags *diag.Diagnostics) {
	m.DeploymentID = types.StringValue("")
	if out.Deployment != nil {
		m.DeploymentID = types.StringValue(out.Deployment.ID)
	}
	if r.refresh(shared.CleanupContext(ctx), m, diags) == shared.ObjectUnread && out.Written != nil {
		m.JobModifyIndex = types.Int64Value(int64(out.Written.JobModifyIndex))
	}
	if drift := stableDrift(ctx, r.Data.Nomad, m, m.Drift.Elements(), diags); len(drift) > 0 {
		// Nomad holds what was just registered: a difference now is Nomad
		// normalizing a value berth compares as written. State says what
		// was planned (no drift); the next refresh reports it again.
		diags.AddWarning("Job reads back differently from its jobspec",
			fmt.Sprintf("Right after registering job %q, Nomad holds these fields differently from the jobspec:\n  - %s\n"+
				"Nomad normalizes them; write them in the jobspec as Nomad holds them (`nomad job inspect`) to keep plans "+
				"empty, and report it to berth's maintainers.", m.Name.ValueString(), joinValues(drift)))
	}
	m.setDrift(nil)
	shared.SetStateUnknownsNull(ctx, st, m, diags)
	if out.RolloutErr != nil {
		shared.AddRolloutError(diags, "The job did not reach the state its type runs to", m.Name.ValueString(), out.RolloutErr)
	}
}

// refresh reads the job into m: its index, version, type and drift.
// After an apply, the read that checks the apply's state (the server's
// recordApplied) reads the job the apply read back (shared.AppliedJob).
func (r *jobResource) refresh(ctx context.Context, m *jobModel, diags *diag.Diagnostics) shared.ReadOutcome {
	ns, name := m.Namespace.ValueString(), m.Name.ValueString()
	job, err := shared.ReadBackJob(ctx, ns, name), error(nil)
	if job == nil {
		job, err = r.Data.Nomad.GetJob(ctx, ns, name)
	}
	if err != nil {
		shared.AddNomadError(diags, "Could not read the job", err)
		return shared.ObjectUnread
	}
	if job == nil {
		return shared.ObjectGone
	}
	shared.RecordAppliedJob(ctx, job)
	return r.recordJob(ctx, m, job, diags)
}

// recordImported records a job found by `terraform query` into m, as an
// import would.
func (r *jobResource) recordImported(ctx context.Context, m *jobModel, job *nomadclient.Job, diags *diag.Diagnostics) {
	m.Jobspec = types.StringNull()
	r.recordJob(ctx, m, job, diags)
}

// recordJob reads job into m: its index, version, type and drift; an
// imported job (no jobspec yet) as its JSON jobspec, with the defaults.
func (r *jobResource) recordJob(ctx context.Context, m *jobModel, job *nomadclient.Job, diags *diag.Diagnostics) shared.ReadOutcome {
	m.JobModifyIndex, m.JobVersion = types.Int64Value(int64(job.ModifyIndex())), types.Int64Value(int64(job.Version()))
	m.Type = types.StringValue(job.Type())
	if m.Jobspec.IsNull() || m.Jobspec.IsUnknown() {
		if !r.recordSource(ctx, m, job, diags) {
			return shared.ObjectUnread
		}
		m.WaitForHealthy, m.PurgeOnDestroy, m.DeploymentID = types.BoolValue(true), types.BoolValue(true), types.StringValue("")
	}
	s, _ := m.spec(ctx, diags)
	drift, err := r.Data.Nomad.ConfirmedDrift(ctx, job, s)
	if err != nil {
		addJobspecError(diags, err)
		return shared.ObjectUnread
	}
	if len(drift) > 0 {
		tflog.Info(ctx, "Job differs in Nomad from its jobspec", map[string]any{"job": m.Name.ValueString(), "fields": strings.Join(drift, "; ")})
	}
	m.setDrift(drift)
	return shared.ObjectRead
}

// recordSource gives an imported job its jobspec: the source its version
// was registered from (by `nomad job run`, berth_job or the web UI) when
// Nomad kept it and it describes the job exactly, so a configuration holding
// that same file plans no change; otherwise the job as Nomad holds it, as
// JSON, which always does.
func (r *jobResource) recordSource(ctx context.Context, m *jobModel, job *nomadclient.Job, diags *diag.Diagnostics) bool {
	s, ok, err := r.Data.Nomad.JobSource(ctx, job)
	if err != nil {
		shared.AddNomadError(diags, "Could not read the job's source", err)
		return false
	}
	if ok {
		drift, err := r.Data.Nomad.ConfirmedDrift(ctx, job, s)
		ok = err == nil && len(drift) == 0
		if !ok {
			tflog.Info(ctx, "The job's registered source no longer describes it; importing the job as JSON",
				map[string]any{"job": job.ID(), "fields": strings.Join(drift, "; "), "error": fmt.Sprint(err)})
		}
	}
	if !ok {
		src, err := job.JSON()
		if err != nil {
			diags.AddError("Could not record the job", "berth could not encode the job as JSON: "+err.Error())
			return false
		}
		s = jobspec.Spec{Source: src, Format: jobspec.FormatJSON}
	}
	m.Jobspec, m.Format, m.Variables = types.StringValue(s.Source), types.StringValue(s.Format), shared.MapOrNull(ctx, s.Variables, diags)
	return !diags.HasError()
}

func (r *jobResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state jobModel
	if resp.Diagnostics.Append(req.State.Get(ctx, &state)...); resp.Diagnostics.HasError() {
		return
	}
	r.restoreParse(ctx, req.Private, &state)
	switch r.refresh(ctx, &state, &resp.Diagnostics) {
	case shared.ObjectUnread:
		return
	case shared.ObjectGone:
		tflog.Info(ctx, "Job is gone from Nomad; removing it from state", map[string]any{"job": state.Name.ValueString()})
		resp.State.RemoveResource(ctx)
		return
	}
	r.keepParse(ctx, resp.Private, &state, &resp.Diagnostics)
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

func (r *jobResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan, state jobModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.Append(req.State.Get(ctx, &state)...); resp.Diagnostics.HasError() {
		return
	}
	if sameJobSettings(plan, state) {
		// Only wait_for_healthy, purge_on_destroy or timeouts changed:
		// nothing to register.
		resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
		return
	}
	ctx, cancel := shared.WithTimeout(ctx, plan.Timeouts.Update, 10*time.Minute, &resp.Diagnostics)
	defer cancel()
	in, ok := r.writeInput(ctx, req.Config, &plan, &state, &resp.Diagnostics)
	if !ok {
		return
	}
	in.SecretsIndex = recordedJobSecrets(ctx, req.Private, in.Job.ID, in.HadVersion != nil)
	out, err := r.jobs().Update(ctx, in)
	recordJobSecrets(ctx, resp.Private, in.Job.ID, out.SecretsIndex, &resp.Diagnostics)
	if shared.AddOutcome(&resp.Diagnostics, jobErrors(), out.Warnings, out.Problems); err != nil {
		shared.AddWorkflowError(&resp.Diagnostics, jobErrors(), err)
		return
	}
	r.recordOutcome(ctx, &plan, out, &resp.State, &resp.Diagnostics)
	r.keepParse(ctx, resp.Private, &plan, &resp.Diagnostics)
}

func (r *jobResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state jobModel
	if resp.Diagnostics.Append(req.State.Get(ctx, &state)...); resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel := shared.WithTimeout(ctx, state.Timeouts.Delete, 5*time.Minute, &resp.Diagnostics)
	defer cancel()
	purge := state.PurgeOnDestroy.IsNull() || state.PurgeOnDestroy.ValueBool()
	secrets := !state.VariablesWOVer.IsNull()
	out, err := r.jobs().Delete(ctx, state.Namespace.ValueString(), state.Name.ValueString(), state.NodeReservation.ValueString(),
		purge, secrets, recordedJobSecrets(ctx, req.Private, state.Name.ValueString(), secrets))
	if shared.AddOutcome(&resp.Diagnostics, jobErrors(), out.Warnings, out.Problems); err != nil {
		shared.AddWorkflowError(&resp.Diagnostics, jobErrors(), err)
	}
}

// ImportState accepts `name` or `namespace/name`; the job as Nomad holds
// it becomes the jobspec (format "json").
func (r *jobResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	shared.ImportJob(ctx, r.Data, r.Identity, req, resp)
}

// joinValues lists string values one per line, as a bulleted detail
// continues.
func joinValues(vs []attr.Value) string {
	out := make([]string, len(vs))
	for i, v := range vs {
		if s, ok := v.(types.String); ok {
			out[i] = s.ValueString()
		}
	}
	return strings.Join(out, "\n  - ")
}

// recordedJobSecrets is the modify index berth recorded when it wrote the
// job's variables_wo Variable (had: state says it did); a state from
// before berth recorded it gives nomadclient.SecretIndexUnrecorded.
func recordedJobSecrets(ctx context.Context, private shared.PrivateData, job string, had bool) uint64 {
	if !had {
		return 0
	}
	if i, ok := shared.RecordedSecretIndexes(ctx, private)[workflow.JobVariablePath(job)]; ok {
		return i
	}
	return nomadclient.SecretIndexUnrecorded
}

// recordJobSecrets keeps the index berth wrote the job's Variable at (0:
// it holds none), for the next rewrite or delete.
func recordJobSecrets(ctx context.Context, private shared.PrivateData, job string, index uint64, diags *diag.Diagnostics) {
	if index == nomadclient.SecretIndexUnrecorded {
		return
	}
	var indexes map[string]uint64
	if index != 0 {
		indexes = map[string]uint64{workflow.JobVariablePath(job): index}
	}
	shared.RecordSecretIndexes(ctx, private, indexes, diags)
}
