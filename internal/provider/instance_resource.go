package provider

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/berthhq/terraform-provider-berth/internal/instance"
	"github.com/berthhq/terraform-provider-berth/internal/nomadclient"
)

var (
	_ resource.ResourceWithConfigure      = &instanceResource{}
	_ resource.ResourceWithImportState    = &instanceResource{}
	_ resource.ResourceWithValidateConfig = &instanceResource{}
	_ resource.ResourceWithModifyPlan     = &instanceResource{}
)

// NewInstanceResource builds the berth_instance resource.
func NewInstanceResource() resource.Resource { return &instanceResource{} }

type instanceResource struct{ data *ProviderData }

func (r *instanceResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_instance"
}

func (r *instanceResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = instanceSchema(ctx)
}

func (r *instanceResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.data = providerDataFrom(req.ProviderData, &resp.Diagnostics)
}

func (r *instanceResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	defer instanceIdentity.FromState(ctx, &resp.State, nil, resp.Identity, &resp.Diagnostics)
	ctx = r.data.Nomad.MaskSecrets(ctx)
	var plan instanceModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	timeout, d := plan.Timeouts.Create(ctx, 10*time.Minute)
	resp.Diagnostics.Append(d...)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	spec, ok := r.plannedSpec(ctx, &plan, &resp.Diagnostics)
	if checkDrivers(ctx, r.data, req.Plan, tfsdk.State{}, &resp.Diagnostics, instanceDrivers); !ok || resp.Diagnostics.HasError() {
		return
	}
	nomad := r.data.Nomad
	// The registration itself refuses a job that exists (check-and-set at
	// index 0), so the job is looked up first only when something else is
	// written before it: a charge or a secret must never be written for
	// another job of that name.
	if !plan.NodeReservation.IsNull() || len(instance.SecretEnvPaths(spec)) > 0 {
		existing, err := nomad.GetJob(ctx, spec.Namespace, spec.Name)
		if err != nil {
			addNomadError(&resp.Diagnostics, "Could not check for an existing job", err)
			return
		}
		if existing != nil {
			addJobExistsError(&resp.Diagnostics, spec, existing.IsBerthInstance())
			return
		}
	}
	startCount := 1
	if spec.Replicas != nil {
		startCount = *spec.Replicas
	}
	if !r.charge(ctx, &plan, spec, startCount, &resp.Diagnostics) {
		return
	}
	secrets, ok := r.writeSecretEnv(ctx, req.Config, spec, nil, &resp.Diagnostics)
	if !ok {
		r.deleteSecretEnv(cleanupContext(ctx), spec.Namespace, secrets, true, &resp.Diagnostics)
		r.uncharge(cleanupContext(ctx), &plan, &resp.Diagnostics)
		return
	}
	res, err := nomad.RegisterInstance(ctx, spec, 1, 0)
	if writeOutcomeUnknown(err) {
		// The job may exist: keep it (tainted) with its charge, so the
		// next apply finds and replaces it rather than orphaning it.
		addUncertainWriteError(&resp.Diagnostics, "Could not register the job", "job", err)
		setStateUnknownsNull(ctx, &resp.State, &plan, &resp.Diagnostics)
		return
	}
	if err != nil {
		switch {
		case nomadclient.IsJobIndexConflict(err):
			existing, readErr := nomad.GetJob(cleanupContext(ctx), spec.Namespace, spec.Name)
			if readErr != nil || existing == nil {
				addNomadError(&resp.Diagnostics, "Could not register the job", err)
			} else {
				addJobExistsError(&resp.Diagnostics, spec, existing.IsBerthInstance())
			}
		case nomadclient.IsBadRequest(err):
			addWriteError(&resp.Diagnostics, spec, err)
		default:
			addNomadError(&resp.Diagnostics, "Could not register the job", err)
		}
		r.deleteSecretEnv(cleanupContext(ctx), spec.Namespace, secrets, true, &resp.Diagnostics)
		r.uncharge(cleanupContext(ctx), &plan, &resp.Diagnostics)
		return
	}
	tflog.Info(ctx, "Registered job", map[string]any{"job": spec.Name, "namespace": spec.Namespace, "eval": res.EvalID})
	if res.Warnings != "" {
		resp.Diagnostics.AddWarning("Nomad warnings", res.Warnings)
	}
	rolloutErr := r.settle(ctx, spec, res.EvalID, &plan)
	// The job exists now: record it whatever happened next (with a fresh
	// deadline), so a failed rollout leaves a tainted resource and never an
	// orphaned job.
	r.recordWritten(cleanupContext(ctx), &plan, res, &resp.Diagnostics)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
	if rolloutErr != nil {
		addRolloutError(&resp.Diagnostics, rolloutSummary(spec), spec.Name, rolloutErr)
	}
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
		spec.Namespace = r.data.Nomad.Namespace()
		plan.Namespace = types.StringValue(spec.Namespace)
	}
	for _, fe := range instance.Validate(spec) {
		diags.AddAttributeError(fieldPath(fe.Path), fe.Summary, fe.Detail)
	}
	return spec, !diags.HasError()
}

// settle waits for the outcome of a registration: a healthy deployment for
// a running job, all allocations stopped for a stopped one.
func (r *instanceResource) settle(ctx context.Context, spec instance.Spec, evalID string, m *instanceModel) error {
	if !spec.Running {
		return r.data.Nomad.WaitAllocationsStopped(ctx, spec.Namespace, spec.Name)
	}
	if !m.WaitForHealthy.IsNull() && !m.WaitForHealthy.ValueBool() {
		return nil
	}
	if spec.JobType() != instance.TypeService {
		return r.waitForType(ctx, spec, evalID)
	}
	dep, err := r.followRollout(ctx, spec, evalID)
	if dep != nil {
		m.DeploymentID = types.StringValue(dep.ID)
		m.DeploymentStatus = types.StringValue(deploymentStatusOf(dep))
	}
	var re *nomadclient.RolloutError
	if errors.As(err, &re) && re.DeploymentID != "" {
		m.DeploymentID = types.StringValue(re.DeploymentID)
		m.DeploymentStatus = types.StringValue(instance.DeploymentFailed)
	}
	return err
}

// refreshComputed reads the job and its allocations into m's computed
// attributes (two API calls) and the count Nomad runs. It returns an error
// (and sets nothing) when Nomad could not be read.
func (r *instanceResource) refreshComputed(ctx context.Context, m *instanceModel) error {
	ns, name := m.Namespace.ValueString(), m.Name.ValueString()
	job, err := r.data.Nomad.GetJob(ctx, ns, name)
	if err != nil {
		return err
	}
	if job == nil {
		return fmt.Errorf("job %q disappeared from namespace %q", name, ns)
	}
	allocs, err := r.data.Nomad.JobAllocations(ctx, ns, name)
	if err != nil {
		return err
	}
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
	if d := setComputed(ctx, m, job.ObserveInstance(allocs)); d.HasError() {
		return fmt.Errorf("%s: %s", d[0].Summary(), d[0].Detail())
	}
	return nil
}

func (r *instanceResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	defer instanceIdentity.FromState(ctx, &resp.State, &req.State, resp.Identity, &resp.Diagnostics)
	ctx = r.data.Nomad.MaskSecrets(ctx)
	var state instanceModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	read := state
	ns, name := state.Namespace.ValueString(), state.Name.ValueString()
	job, err := r.data.Nomad.GetJob(ctx, ns, name)
	if err != nil {
		addNomadError(&resp.Diagnostics, "Could not read the job", err)
		return
	}
	if job == nil && collectedBatch(&state) {
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
	allocs, err := r.data.Nomad.JobAllocations(ctx, ns, name)
	if err != nil {
		addNomadError(&resp.Diagnostics, "Could not read the job's allocations", err)
		return
	}
	live, unsupported := job.InstanceSpec()
	r.forgetMissingSecretEnv(ctx, &live)
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
	resp.Diagnostics.Append(setComputed(ctx, &state, job.ObserveInstance(allocs))...)
	if sameModel(&read, &state) {
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
	defer instanceIdentity.FromState(ctx, &resp.State, nil, resp.Identity, &resp.Diagnostics)
	ctx = r.data.Nomad.MaskSecrets(ctx)
	var plan, state instanceModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	var configCount types.Int64
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("replicas"), &configCount)...)
	if resp.Diagnostics.HasError() {
		return
	}
	timeout, d := plan.Timeouts.Update(ctx, 10*time.Minute)
	resp.Diagnostics.Append(d...)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	want, ok := r.plannedSpec(ctx, &plan, &resp.Diagnostics)
	if checkDrivers(ctx, r.data, req.Plan, req.State, &resp.Diagnostics, instanceDrivers); !ok || resp.Diagnostics.HasError() {
		return
	}
	had, ds, err := state.toSpec(ctx)
	resp.Diagnostics.Append(ds...)
	if err != nil || resp.Diagnostics.HasError() {
		return
	}
	if configCount.IsNull() {
		// Not managed: whatever count runs in Nomad stays.
		want.Replicas, had.Replicas = nil, nil
	}

	nomad := r.data.Nomad
	job, err := nomad.GetJob(ctx, want.Namespace, want.Name)
	if err != nil {
		addNomadError(&resp.Diagnostics, "Could not read the job", err)
		return
	}
	if job == nil && collectedBatch(&state) && want.JobType() == instance.TypeBatch {
		r.rerunCollected(ctx, req.Config, &plan, &state, had, want, resp)
		return
	}
	if job == nil {
		resp.Diagnostics.AddError("Job is gone", fmt.Sprintf("Job %q was deleted from Nomad during the apply. Run terraform apply again to recreate it.", want.Name))
		return
	}
	index := job.ModifyIndex()
	live, unmanaged := job.InstanceSpec()
	liveCount := 1
	if live.Replicas != nil {
		liveCount = *live.Replicas
	}
	if index != uint64(state.JobModifyIndex.ValueInt64()) {
		// Something changed the job since the last refresh. Proceed only if
		// it touched nothing berth manages (e.g. an autoscaler's count) and
		// added nothing the plan did not show would be removed.
		live = instance.AbsorbDefaults(live, had)
		if want.Replicas == nil {
			live.Replicas = nil
		}
		changed := append(instance.Diff(had, live), newUnmanaged(unmanaged, recordedUnmanaged(ctx, req.Private))...)
		if len(changed) > 0 {
			resp.Diagnostics.AddError("Job changed in Nomad since the last refresh",
				fmt.Sprintf("Job %q was modified outside Terraform after the plan was made (modify index %d, expected %d):\n  - %s\n"+
					"Run terraform plan again to see the drift, then apply.", want.Name, index, state.JobModifyIndex.ValueInt64(), strings.Join(changed, "\n  - ")))
			return
		}
	}
	// The charge comes first: a refused budget must leave everything as it
	// was, secrets included (a running task's template would pick a new
	// secret up at once).
	newCount := liveCount
	if want.Replicas != nil {
		newCount = *want.Replicas
	}
	if !r.charge(ctx, &plan, want, newCount, &resp.Diagnostics) {
		return
	}
	if _, ok := r.writeSecretEnv(ctx, req.Config, want, &had, &resp.Diagnostics); !ok {
		r.restoreCharge(cleanupContext(ctx), &plan, &state, had, liveCount, &resp.Diagnostics)
		return
	}
	var left *nomadclient.HoldState // the hold of a node reservation the instance leaves
	if !plan.NodeReservation.Equal(state.NodeReservation) && !state.NodeReservation.IsNull() {
		st, ok := r.releaseForMove(ctx, state.NodeReservation.ValueString(), nomadclient.InstanceConsumer(want.Namespace, want.Name), &resp.Diagnostics)
		if !ok {
			r.uncharge(cleanupContext(ctx), &plan, &resp.Diagnostics) // nothing moved
			return
		}
		left = st
	}
	var rolloutErr error
	var written *nomadclient.RegisterResult
	switch {
	case instance.OnlyReplicasDiffer(had, want) && len(unmanaged) == 0:
		res, err := r.setCount(ctx, job, want, index)
		if err != nil {
			r.updateFailed(ctx, "Could not scale the job", err, &plan, &state, had, want, liveCount, &resp.Diagnostics)
			return
		}
		written = res
		rolloutErr = r.settle(ctx, want, res.EvalID, &plan)
	case len(instance.Diff(had, want)) > 0 || len(unmanaged) > 0:
		// Settings berth does not manage are removed by this write; the
		// plan said so.
		res, err := nomad.RegisterInstance(ctx, want, liveCount, index)
		if err != nil {
			r.updateFailed(ctx, "Could not register the job", err, &plan, &state, had, want, liveCount, &resp.Diagnostics)
			return
		}
		written = res
		if res.Warnings != "" {
			resp.Diagnostics.AddWarning("Nomad warnings", res.Warnings)
		}
		rolloutErr = r.settle(ctx, want, res.EvalID, &plan)
	default:
		plan.DeploymentID, plan.DeploymentStatus = state.DeploymentID, state.DeploymentStatus
	}
	if rolloutErr == nil && want.Running && promoteRequested(&plan, &state) {
		rolloutErr = r.promote(ctx, want, &plan, &resp.Diagnostics)
	}
	if written != nil && rolloutErr == nil {
		warnAwaitingPromotion(&resp.Diagnostics, want, &plan)
	}
	if rolloutErr == nil && want.Running && !plan.RestartTriggers.Equal(state.RestartTriggers) && !state.RestartTriggers.IsNull() {
		if err := nomad.RestartAllocations(ctx, want.Namespace, want.Name); err != nil {
			rolloutErr = err
		}
	}
	if left != nil && rolloutErr == nil {
		waitHandedBack(ctx, r.data, state.NodeReservation.ValueString(), *left, &resp.Diagnostics)
	}
	if written != nil {
		r.dropSecretEnv(cleanupContext(ctx), had, &want, &resp.Diagnostics)
		recordUnmanaged(ctx, resp.Private, nil, &resp.Diagnostics)
	}
	// The operation's own deadline may have passed: read back with a fresh
	// one, so state says what exists in Nomad whatever happened above.
	r.recordWritten(cleanupContext(ctx), &plan, written, &resp.Diagnostics)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
	if rolloutErr != nil {
		addRolloutError(&resp.Diagnostics, "The instance update did not complete", want.Name, rolloutErr)
	}
}

func (r *instanceResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	ctx = r.data.Nomad.MaskSecrets(ctx)
	var state instanceModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	timeout, d := state.Timeouts.Delete(ctx, 5*time.Minute)
	resp.Diagnostics.Append(d...)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	ns, name := state.Namespace.ValueString(), state.Name.ValueString()
	purge := state.PurgeOnDestroy.IsNull() || state.PurgeOnDestroy.ValueBool()
	err := handBack(ctx, r.data, state.NodeReservation, "instance", nomadclient.InstanceConsumer(ns, name),
		func(ctx context.Context) error { return r.data.Nomad.RemoveJob(ctx, ns, name, purge) }, &resp.Diagnostics)
	if err != nil {
		addNomadError(&resp.Diagnostics, "Could not delete the job", err)
		return
	}
	if had, d, err := state.toSpec(ctx); err == nil && !d.HasError() {
		r.dropSecretEnv(ctx, had, nil, &resp.Diagnostics)
	}
}

// charge records what the instance takes from its node reservation (if
// any) before the job is registered; false when the budget is exceeded or
// the ledger cannot be written.
func (r *instanceResource) charge(ctx context.Context, m *instanceModel, spec instance.Spec, count int, diags *diag.Diagnostics) bool {
	if m.NodeReservation.IsNull() {
		return true
	}
	amount := chargeOf(spec, count)
	err := chargeAndHold(ctx, r.data, m.NodeReservation.ValueString(),
		nomadclient.InstanceConsumer(spec.Namespace, spec.Name), amount, diags)
	if err != nil {
		addChargeError(diags, "Could not place the instance into its node reservation", instanceBudgetFix, err)
		return false
	}
	return true
}

// updateFailed reports a failed scale or registration and restores the
// charges the instance had: a reservation it was moving to gives the new
// charge back, and the old one is charged what it was. When Nomad may have
// carried out the write anyway (its answer was lost), the new charge stays.
func (r *instanceResource) updateFailed(ctx context.Context, summary string, err error, plan, state *instanceModel,
	had, want instance.Spec, count int, diags *diag.Diagnostics) {
	if writeOutcomeUnknown(err) {
		addUncertainUpdateError(diags, summary, "job", err)
		return
	}
	addWriteError(diags, want, err)
	r.restoreCharge(cleanupContext(ctx), plan, state, had, count, diags)
}

// restoreCharge gives the instance back the charge it had before an update
// that wrote no job: the planned reservation's charge is released when the
// update moved it, and the old one set again.
func (r *instanceResource) restoreCharge(ctx context.Context, plan, state *instanceModel, had instance.Spec, count int, diags *diag.Diagnostics) {
	if !plan.NodeReservation.Equal(state.NodeReservation) {
		r.uncharge(ctx, plan, diags)
	}
	r.charge(ctx, state, had, count, diags)
}

// uncharge releases the instance's charge on its node reservation.
func (r *instanceResource) uncharge(ctx context.Context, m *instanceModel, diags *diag.Diagnostics) {
	releaseCharge(ctx, r.data, m.NodeReservation, "instance", nomadclient.InstanceConsumer(m.Namespace.ValueString(), m.Name.ValueString()), diags)
}

// ImportState accepts `name` or `namespace/name`.
func (r *instanceResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	importID := instanceIdentity.ImportID(ctx, req, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	ns, name, found := strings.Cut(importID, "/")
	if !found {
		ns, name = r.data.Nomad.Namespace(), importID
	}
	if ns == "" || name == "" || strings.Contains(name, "/") {
		resp.Diagnostics.AddError("Invalid import ID", fmt.Sprintf("Expected `name` or `namespace/name`, got %q.", importID))
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), instanceID(ns, name))...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("namespace"), ns)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("name"), name)...)
}

// addRolloutError reports a rollout failure with Nomad's own words. When
// berth lost track of the rollout (Nomad unreachable, no leader, timeout)
// rather than seeing it fail, it says that the job is registered and the
// rollout may go on.
// addJobExistsError refuses to create an instance whose job Nomad already
// has, and says how to take it over.
func addJobExistsError(diags *diag.Diagnostics, spec instance.Spec, berthJob bool) {
	owner := "It is not managed by berth."
	if berthJob {
		owner = "It was created by berth, probably from another Terraform state."
	}
	diags.AddAttributeError(path.Root("name"), "Job already exists",
		fmt.Sprintf("Nomad already has a job %q in namespace %q. %s To manage it here, import it: "+
			"terraform import <address> %s", spec.Name, spec.Namespace, owner, instanceID(spec.Namespace, spec.Name)))
}

func addRolloutError(diags *diag.Diagnostics, summary, jobID string, err error) {
	var re *nomadclient.RolloutError
	if errors.As(err, &re) {
		diags.AddError(summary, re.Error()+"\n\nThe job stays registered; fix the cause and apply again, "+
			"or inspect it with `nomad job status "+re.JobID+"`.")
		return
	}
	var d diag.Diagnostics
	addNomadError(&d, summary, err)
	diags.AddError(summary, fmt.Sprintf("Job %q is registered, but berth lost track of its rollout while waiting for it: %s\n\n"+
		"The rollout may still be going on in Nomad. Check it with `nomad job status %s`, then run terraform apply again.",
		jobID, d[0].Detail(), jobID))
}
