package provider

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/berthhq/terraform-provider-berth/internal/instance"
	"github.com/berthhq/terraform-provider-berth/internal/nomadclient"
)

// setCount brings the group count to want.Count with check-and-set
// against index. Nomad refuses its scale endpoint while a deployment is in
// progress (one that `nomad job scale` or an autoscaler started, or an
// unpromoted canary holds open), but accepts a registration, which
// supersedes that deployment: so then berth registers the job with the new
// count instead. Either way one new job version results.
func (r *instanceResource) setCount(ctx context.Context, job *nomadclient.Job, want instance.Spec, index uint64) (*nomadclient.RegisterResult, error) {
	nomad := r.data.Nomad
	dep, err := nomad.ActiveDeployment(ctx, job)
	if err != nil {
		// Nothing was sent: a failed read, not a write that may have landed.
		return nil, &nomadclient.WriteNotAppliedError{Err: err}
	}
	if dep == nil {
		res, err := nomad.ScaleJob(ctx, want.Namespace, want.Name, want.TaskGroup(), *want.Replicas, "berth: count changed in Terraform", index)
		if !nomadclient.IsScaleBlocked(err) {
			return res, err
		}
		// A deployment began between the read and the scale; the
		// registration's check-and-set decides whether the job moved.
	} else {
		tflog.Info(ctx, "A deployment is in progress, so the count is set by registering the job",
			map[string]any{"job": want.Name, "deployment": dep.ID, "deployment_status": dep.Status, "count": *want.Replicas})
	}
	return nomad.RegisterInstance(ctx, want, *want.Replicas, index)
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
		addNomadError(diags, "Could not write the job", err)
	}
}

// recordWritten reads the job back into m's computed attributes. When
// Nomad cannot be read (it may be down), that is reported and m still gets
// known values: the modify index the write returned, nulls for what only a
// read can tell, so Terraform stores what berth knows rather than failing
// on unknown values; the next refresh fills in the rest. A warning, not an
// error: the write happened, and an error would taint a new instance and
// replace it on the next apply.
func (r *instanceResource) recordWritten(ctx context.Context, m *instanceModel, written *nomadclient.RegisterResult, diags *diag.Diagnostics) {
	err := r.refreshComputed(ctx, m)
	if err == nil {
		return
	}
	diags.AddWarning("Could not read the job back",
		fmt.Sprintf("Job %q was written to Nomad, but reading it back failed: %v. State records what berth knows "+
			"(job_version, status and allocations stay empty); the next terraform plan reads them from Nomad.", m.Name.ValueString(), err))
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
	for _, v := range []*types.String{&m.NodePool, &m.Status} {
		if v.IsUnknown() {
			*v = types.StringNull()
		}
	}
	for _, v := range []*types.String{&m.DeploymentID, &m.DeploymentStatus} {
		if v.IsUnknown() {
			*v = types.StringValue("")
		}
	}
	if m.Datacenters.IsUnknown() {
		m.Datacenters = types.ListNull(types.StringType)
	}
	if m.Allocations.IsUnknown() {
		m.Allocations = types.ListNull(allocationType())
	}
	nullUnknownPolicies(context.Background(), m, diags)
}
