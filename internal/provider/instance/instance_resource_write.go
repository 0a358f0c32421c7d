package instance

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/berthhq/terraform-provider-berth/internal/instance"
	"github.com/berthhq/terraform-provider-berth/internal/nomadclient"
	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
	"github.com/berthhq/terraform-provider-berth/internal/workflow"
)

// instances is berth_instance's workflow.
func (r *instanceResource) instances() workflow.Instances {
	return workflow.NewInstances(r.Data.Nomad, r.Data.LedgerNamespace)
}

// instanceErrors is how the instance workflow's errors read for want.
func instanceErrors(want instance.Spec, updating bool) shared.ErrorContext {
	return shared.ErrorContext{Object: "job", Updating: updating,
		ChargeSummary: "Could not place the instance into its node reservation", ChargeFix: instanceBudgetFix,
		WriteRefused: func(diags *diag.Diagnostics, err *workflow.WriteError) { addWriteError(diags, want, err.Err) }}
}

// waitsForHealthy is wait_for_healthy, true unless set false.
func waitsForHealthy(m *instanceModel) bool {
	return m.WaitForHealthy.IsNull() || m.WaitForHealthy.ValueBool()
}

// updateInput converts an update's plan, state, configuration and private
// state into the workflow's input, with berth's validation and the driver
// check once more now that every value is known.
func (r *instanceResource) updateInput(ctx context.Context, req resource.UpdateRequest, plan, state *instanceModel,
	diags *diag.Diagnostics) (workflow.InstanceWrite, bool) {
	var configCount types.Int64
	diags.Append(req.Config.GetAttribute(ctx, path.Root("replicas"), &configCount)...)
	want, ok := r.plannedSpec(ctx, plan, diags)
	if shared.CheckDrivers(ctx, r.Data, req.Plan, req.State, diags, instanceDrivers); !ok || diags.HasError() {
		return workflow.InstanceWrite{}, false
	}
	had, ds, err := state.toSpec(ctx)
	if diags.Append(ds...); err != nil || diags.HasError() {
		return workflow.InstanceWrite{}, false
	}
	if configCount.IsNull() {
		// Not managed: whatever count runs in Nomad stays.
		want.Replicas, had.Replicas = nil, nil
	}
	in := workflow.InstanceWrite{Want: want, Had: &had, Wait: waitsForHealthy(plan),
		Reservation: plan.NodeReservation.ValueString(), HadReservation: state.NodeReservation.ValueString(),
		Secrets: secretEnvConfig(ctx, req.Config, diags), Index: uint64(state.JobModifyIndex.ValueInt64()),
		Unmanaged: recordedUnmanaged(ctx, req.Private), Promote: promoteRequested(plan, state),
		SecretIndexes:  shared.RecordedSecretIndexes(ctx, req.Private),
		Restart:        !plan.RestartTriggers.Equal(state.RestartTriggers) && !state.RestartTriggers.IsNull(),
		CollectedBatch: collectedBatch(ctx, state, req.Private)}
	if !state.Replicas.IsNull() && !state.Replicas.IsUnknown() {
		n := int(state.Replicas.ValueInt64())
		in.Replicas = &n
	}
	return in, !diags.HasError()
}

// recordOutcome stores what a create or update left in Nomad: the
// deployment it followed and the job as read back (with a fresh deadline:
// the operation's own may have passed), so a failed rollout leaves a
// tainted or updated resource and never an orphaned job; then the
// rollout's failure, if any.
func (r *instanceResource) recordOutcome(ctx context.Context, m *instanceModel, out workflow.InstanceOutcome, st *tfsdk.State,
	private shared.PrivateData, diags *diag.Diagnostics, rolloutSummary string) {
	if out.Deployment != nil {
		m.DeploymentID, m.DeploymentStatus = types.StringValue(out.Deployment.ID), types.StringValue(out.Deployment.Status)
	}
	r.recordWritten(shared.CleanupContext(ctx), m, out.Written, private, diags)
	diags.Append(st.Set(ctx, m)...)
	if out.RolloutErr != nil {
		shared.AddRolloutError(diags, rolloutSummary, m.Name.ValueString(), out.RolloutErr)
	}
}

// addWriteError explains a failed register or scale: a check-and-set
// conflict as a change made outside Terraform, a refusal with Nomad's own
// words and what to do, never the bare HTTP status.
func addWriteError(diags *diag.Diagnostics, want instance.Spec, err error) {
	status := fmt.Sprintf("`nomad job status -namespace=%s %s`", want.Namespace, want.Name)
	switch {
	case nomadclient.IsJobIndexConflict(err):
		diags.AddError("Job changed in Nomad since the last refresh",
			fmt.Sprintf("Job %q was modified in Nomad while berth was changing it, so Nomad refused the write (%s). "+
				"Nothing was changed. Run terraform apply again: the plan will show what changed.", want.Name, nomadclient.NomadMessage(err)))
	case nomadclient.IsScaleBlocked(err):
		diags.AddError("Could not change the job's count",
			fmt.Sprintf("Nomad refused to scale job %q while a deployment is in progress (%s), and the job could not be "+
				"registered instead. Wait for the deployment to finish (%s), then apply again.", want.Name, nomadclient.NomadMessage(err), status))
	case nomadclient.IsBadRequest(err):
		what := "register"
		hint := "Fix the setting Nomad names and apply again."
		if msg := nomadclient.NomadMessage(err); strings.Contains(msg, "scaling policy") {
			what = "scale"
			hint = "Keep replicas within the job's scaling policy (min and max), or leave replicas unset so the autoscaler decides."
		}
		diags.AddError("Nomad refused the change",
			fmt.Sprintf("Nomad refused to %s job %q: %s. %s Current state: %s.", what, want.Name, nomadclient.NomadMessage(err), hint, status))
	default:
		shared.AddNomadError(diags, "Could not write the job", err)
	}
}

// recordWritten reads the job back into m's computed attributes. When
// Nomad cannot be read (it may be down), that is reported and m still gets
// known values: the modify index the write returned, nulls for what only a
// read can tell, so Terraform stores what berth knows rather than failing
// on unknown values; the next refresh fills in the rest. A warning, not an
// error: the write happened, and an error would taint a new instance and
// replace it on the next apply.
func (r *instanceResource) recordWritten(ctx context.Context, m *instanceModel, written *nomadclient.RegisterResult,
	private shared.PrivateData, diags *diag.Diagnostics) {
	err := r.refreshComputed(ctx, m, private)
	if err == nil {
		return
	}
	diags.AddWarning("Could not read the job back",
		fmt.Sprintf("Job %q was written to Nomad, but reading it back failed: %v. State records what berth knows "+
			"(job_version stays empty); the next terraform plan reads them from Nomad.", m.Name.ValueString(), err))
	if written != nil && written.JobModifyIndex > 0 {
		m.JobModifyIndex = types.Int64Value(int64(written.JobModifyIndex))
	}
	nullUnknownComputed(m, diags)
}

// nullUnknownComputed replaces values still unknown after an apply with
// null (or empty, where berth always sets a string).
func nullUnknownComputed(m *instanceModel, diags *diag.Diagnostics) {
	if m.ID.IsUnknown() {
		m.ID = types.StringValue(instanceID(m.Namespace.ValueString(), m.Name.ValueString()))
	}
	for _, v := range []*types.Int64{&m.Replicas, &m.JobVersion, &m.JobModifyIndex} {
		if v.IsUnknown() {
			*v = types.Int64Null()
		}
	}
	if m.NodePool.IsUnknown() {
		m.NodePool = types.StringNull()
	}
	for _, v := range []*types.String{&m.DeploymentID, &m.DeploymentStatus} {
		if v.IsUnknown() {
			*v = types.StringValue("")
		}
	}
	if m.Datacenters.IsUnknown() {
		m.Datacenters = types.ListNull(types.StringType)
	}
	nullUnknownPolicies(context.Background(), m, diags)
}
