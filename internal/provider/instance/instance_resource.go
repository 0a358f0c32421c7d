package instance

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/berthhq/terraform-provider-berth/internal/instance"
	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
	"github.com/berthhq/terraform-provider-berth/internal/workflow"
)

var (
	_ resource.ResourceWithConfigure      = &instanceResource{}
	_ resource.ResourceWithImportState    = &instanceResource{}
	_ resource.ResourceWithValidateConfig = &instanceResource{}
	_ resource.ResourceWithModifyPlan     = &instanceResource{}
)

// NewInstanceResource builds the berth_instance resource.
func NewInstanceResource() resource.Resource { return newInstanceResource() }

func newInstanceResource() *instanceResource {
	return &instanceResource{ResourceBase: shared.NewResourceBase("instance"), WithIdentity: shared.WithIdentity{Identity: Identity}}
}

type instanceResource struct {
	shared.ResourceBase
	shared.WithIdentity
}

func (r *instanceResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = Schema(ctx)
}

func (r *instanceResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan instanceModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel := shared.WithTimeout(ctx, plan.Timeouts.Create, 10*time.Minute, &resp.Diagnostics)
	defer cancel()

	spec, ok := r.plannedSpec(ctx, &plan, &resp.Diagnostics)
	if shared.CheckDrivers(ctx, r.Data, req.Plan, tfsdk.State{}, &resp.Diagnostics, instanceDrivers); !ok || resp.Diagnostics.HasError() {
		return
	}
	in := workflow.InstanceWrite{Want: spec, Reservation: plan.NodeReservation.ValueString(), Wait: waitsForHealthy(&plan),
		Secrets: secretEnvConfig(ctx, req.Config, &resp.Diagnostics)}
	if resp.Diagnostics.HasError() {
		return
	}
	out, err := r.instances().Create(ctx, in)
	shared.RecordSecretIndexes(ctx, resp.Private, out.SecretIndexes, &resp.Diagnostics)
	ec := instanceErrors(spec, false)
	shared.AddOutcome(&resp.Diagnostics, ec, out.Warnings, out.Problems)
	if err != nil {
		shared.AddWorkflowError(&resp.Diagnostics, ec, err)
		if workflow.Uncertain(err) {
			// The job may exist: keep it (tainted) with its charge.
			shared.SetStateUnknownsNull(ctx, &resp.State, &plan, &resp.Diagnostics)
		}
		return
	}
	r.recordOutcome(ctx, &plan, out, &resp.State, resp.Private, &resp.Diagnostics, rolloutSummary(spec))
}

// plannedSpec converts the plan and applies berth's validation once more,
// now that every value is known.
func (r *instanceResource) plannedSpec(ctx context.Context, plan *instanceModel, diags *diag.Diagnostics) (instance.Spec, bool) {
	spec, d, err := plan.toSpec(ctx)
	diags.Append(d...)
	if err != nil {
		diags.AddError("Unknown values at apply", "berth_instance got unknown values at apply time; this is a bug in berth.")
		return spec, false
	}
	if diags.HasError() {
		return spec, false
	}
	if spec.Namespace == "" {
		spec.Namespace = r.Data.Nomad.Namespace()
		plan.Namespace = types.StringValue(spec.Namespace)
	}
	for _, fe := range instance.Validate(spec) {
		diags.AddAttributeError(fieldPath(fe.Path), fe.Summary, fe.Detail)
	}
	return spec, !diags.HasError()
}

// refreshComputed reads the job into m's computed attributes and the count
// Nomad runs, and records a batch job's completion in private. It returns
// an error (and sets nothing) when Nomad could not be read.
func (r *instanceResource) refreshComputed(ctx context.Context, m *instanceModel, private shared.PrivateData) error {
	ns, name := m.Namespace.ValueString(), m.Name.ValueString()
	job, err := r.Data.Nomad.GetJob(ctx, ns, name)
	if err != nil {
		return err
	}
	if job == nil {
		return fmt.Errorf("job %q disappeared from namespace %q", name, ns)
	}
	if err := r.recordBatchComplete(ctx, job, private); err != nil {
		return err
	}
	// The read that checks this apply's state reads this job, not Nomad.
	shared.RecordAppliedJob(ctx, job)
	// A count planned as known (kept from state while unmanaged) stays as
	// planned even if an autoscaler moved it meanwhile; the next refresh
	// reports the new one.
	spec, _ := job.InstanceSpec()
	// A system job's count is not the user's: it reads null.
	if m.Replicas.IsUnknown() || m.Replicas.IsNull() {
		m.Replicas = types.Int64Null()
		if spec.Replicas != nil {
			m.Replicas = types.Int64Value(int64(*spec.Replicas))
		}
	}
	// Policy fields the configuration left to Nomad: what Nomad filled in.
	if d := settlePolicies(ctx, m, spec); d.HasError() {
		return fmt.Errorf("%s: %s", d[0].Summary(), d[0].Detail())
	}
	if m.NodePool.IsUnknown() || m.NodePool.IsNull() {
		m.NodePool = types.StringValue(job.NodePool())
	}
	setComputed(m, job)
	return nil
}

func (r *instanceResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state instanceModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	read := state
	ns, name := state.Namespace.ValueString(), state.Name.ValueString()
	job, err := shared.ReadBackJob(ctx, ns, name), error(nil)
	if job == nil {
		job, err = r.Data.Nomad.GetJob(ctx, ns, name)
	}
	if err != nil {
		shared.AddNomadError(&resp.Diagnostics, "Could not read the job", err)
		return
	}
	if job == nil && collectedBatch(ctx, &state, req.Private) {
		tflog.Info(ctx, "The completed batch job was garbage-collected by Nomad; keeping it in state", map[string]any{"job": name, "namespace": ns})
		return
	}
	if job == nil {
		// Its charge on a node reservation stays: a refresh never writes.
		// The reservation's next resize or release drops it.
		tflog.Info(ctx, "Job is gone from Nomad; removing it from state", map[string]any{"job": name, "namespace": ns})
		resp.State.RemoveResource(ctx)
		return
	}
	if err := r.recordBatchComplete(ctx, job, resp.Private); err != nil {
		shared.AddNomadError(&resp.Diagnostics, "Could not read the job's allocations", err)
		return
	}
	live, unsupported := job.InstanceSpec()
	resp.Diagnostics.Append(r.forgetMissingSecretEnv(ctx, &live, resp.Private)...)
	importing := state.Services.IsNull()
	switch {
	case importing && len(unsupported) > 0:
		resp.Diagnostics.AddError("Job cannot be represented by berth_instance",
			fmt.Sprintf("Job %q in namespace %q uses what berth_instance cannot manage, so importing it would drop parts of it:\n  - %s\n"+
				"Manage this job with another tool, or reshape it (one task group, supported stanzas only) and import again.",
				name, ns, strings.Join(unsupported, "\n  - ")))
		return
	case len(unsupported) > 0:
		tflog.Info(ctx, "Job has settings berth does not manage; the plan shows their removal", map[string]any{"job": name, "settings": unsupported})
	}
	// The plan warns and plans an update while Nomad holds them.
	recordUnmanaged(ctx, resp.Private, unsupported, &resp.Diagnostics)
	r.mergeLive(ctx, &state, live, importing, &resp.Diagnostics)
	setComputed(&state, job)
	if shared.SameModel(&read, &state) {
		return // resp.State already holds it
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

// mergeLive puts what runs in Nomad into state. When the managed fields
// match what state says (after normalisation), state keeps its own spelling
// (e.g. "5m" rather than "5m0s", [] rather than null), so there is no
// phantom diff; otherwise state takes Nomad's values and the plan shows the
// drift field by field. The count always comes from Nomad.
func (r *instanceResource) mergeLive(ctx context.Context, state *instanceModel, live instance.Spec, importing bool, diags *diag.Diagnostics) {
	count := live.Replicas
	// Policies state leaves unset (none on import) stay unset while Nomad
	// holds their defaults.
	var prior instance.Spec
	priorOK := false
	if !importing {
		p, d, err := state.toSpec(ctx)
		diags.Append(d...)
		prior, priorOK = p, err == nil && !d.HasError()
	}
	if !priorOK {
		prior = instance.Spec{}
	}
	live = instance.AbsorbDefaults(live, prior)
	if priorOK {
		prior.Replicas, live.Replicas = nil, nil
		if len(instance.Diff(prior, live)) == 0 {
			if count != nil {
				state.Replicas = types.Int64Value(int64(*count))
			}
			state.NodePool = types.StringValue(live.NodePool)
			return
		}
	}
	live.Replicas = count
	diags.Append(specToModel(ctx, live, state)...)
	if importing {
		// What the schema defaults would have put there.
		state.WaitForHealthy = types.BoolValue(true)
		state.PurgeOnDestroy = types.BoolValue(true)
	}
}

func (r *instanceResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan, state instanceModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel := shared.WithTimeout(ctx, plan.Timeouts.Update, 10*time.Minute, &resp.Diagnostics)
	defer cancel()

	in, ok := r.updateInput(ctx, req, &plan, &state, &resp.Diagnostics)
	if !ok {
		return
	}
	out, err := r.instances().Update(ctx, in)
	shared.RecordSecretIndexes(ctx, resp.Private, out.SecretIndexes, &resp.Diagnostics)
	ec := instanceErrors(in.Want, true)
	if shared.AddOutcome(&resp.Diagnostics, ec, out.Warnings, out.Problems); err != nil {
		shared.AddWorkflowError(&resp.Diagnostics, ec, err)
		return
	}
	if out.Written == nil {
		plan.DeploymentID, plan.DeploymentStatus = state.DeploymentID, state.DeploymentStatus
	} else {
		recordUnmanaged(ctx, resp.Private, nil, &resp.Diagnostics) // the write removed them
	}
	r.recordOutcome(ctx, &plan, out, &resp.State, resp.Private, &resp.Diagnostics, "The instance update did not complete")
}

func (r *instanceResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state instanceModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel := shared.WithTimeout(ctx, state.Timeouts.Delete, 5*time.Minute, &resp.Diagnostics)
	defer cancel()
	in := workflow.InstanceDelete{Namespace: state.Namespace.ValueString(), Name: state.Name.ValueString(),
		Reservation: state.NodeReservation.ValueString(), Purge: state.PurgeOnDestroy.IsNull() || state.PurgeOnDestroy.ValueBool(),
		SecretIndexes: shared.RecordedSecretIndexes(ctx, req.Private)}
	if had, d, err := state.toSpec(ctx); err == nil && !d.HasError() {
		in.Had = &had
	}
	out, err := r.instances().Delete(ctx, in)
	ec := instanceErrors(instance.Spec{Namespace: in.Namespace, Name: in.Name}, true)
	if shared.AddOutcome(&resp.Diagnostics, ec, out.Warnings, out.Problems); err != nil {
		shared.AddWorkflowError(&resp.Diagnostics, ec, err)
	}
}

// ImportState accepts `name` or `namespace/name`.
func (r *instanceResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	shared.ImportJob(ctx, r.Data, r.Identity, req, resp)
}
