package workflow

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/berthhq/terraform-provider-berth/internal/instance"
	"github.com/berthhq/terraform-provider-berth/internal/nomadclient"
)

// Update changes an instance from *in.Had to in.Want. The job is read
// first: a change made in Nomad since the plan to anything berth manages
// refuses the update before anything is written. Then the new charge, the
// secrets, the release of a node reservation the instance leaves, the job
// write (a scale when only the count changes), the waits, a promotion or
// restart, and the hand-back of the left reservation's room.
func (w Instances) Update(ctx context.Context, in InstanceWrite) (InstanceOutcome, error) {
	out := InstanceOutcome{SecretIndexes: secretIndexes(in.SecretIndexes)}
	want, had := in.Want, *in.Had
	job, err := w.Nomad.GetJob(ctx, want.Namespace, want.Name)
	if err != nil {
		return out, &NomadError{"Could not read the job", err}
	}
	if job == nil && in.CollectedBatch && want.JobType() == instance.TypeBatch {
		return w.rerunCollected(ctx, in)
	}
	if job == nil {
		return out, &JobGoneError{Namespace: want.Namespace, Name: want.Name}
	}
	index := job.ModifyIndex()
	live, unmanaged := job.InstanceSpec()
	liveCount := 1
	if live.Replicas != nil {
		liveCount = *live.Replicas
	}
	if index != in.Index {
		// Something changed the job since the last refresh. Proceed only if
		// it touched nothing berth manages (e.g. an autoscaler's count) and
		// added nothing the plan did not show would be removed.
		live = instance.AbsorbDefaults(live, had)
		if want.Replicas == nil {
			live.Replicas = nil
		}
		changed := append(instance.Diff(had, live), newUnmanaged(unmanaged, in.Unmanaged)...)
		if len(changed) > 0 {
			return out, &JobChangedError{Name: want.Name, Index: index, Expected: in.Index, Changed: changed}
		}
	}
	// The charge comes first: a refused budget must leave everything as it
	// was, secrets included (a running task's template would pick a new
	// secret up at once).
	newCount := liveCount
	if want.Replicas != nil {
		newCount = *want.Replicas
	}
	if err := w.charge(ctx, &out, in.Reservation, want, newCount); err != nil {
		return out, err
	}
	if _, err := w.writeSecrets(ctx, &out, in, &had); err != nil {
		w.restoreCharge(CleanupContext(ctx), &out, in, had, liveCount)
		return out, err
	}
	left, err := w.leave(ctx, &out, in)
	if err != nil {
		return out, err
	}
	switch {
	case instance.OnlyReplicasDiffer(had, want) && len(unmanaged) == 0:
		out.Written, err = w.setCount(ctx, job, want, index)
		if err != nil {
			return out, w.updateFailed(ctx, &out, "Could not scale the job", err, in, liveCount)
		}
	case len(instance.Diff(had, want)) > 0 || len(unmanaged) > 0:
		// Settings berth does not manage are removed by this write; the
		// plan said so.
		out.Written, err = w.Nomad.RegisterInstance(ctx, want, liveCount, index)
		if err != nil {
			return out, w.updateFailed(ctx, &out, "Could not register the job", err, in, liveCount)
		}
		if out.Written.Warnings != "" {
			out.warn(Warning{"Nomad warnings", out.Written.Warnings})
		}
	}
	if out.Written != nil {
		out.RolloutErr = w.settle(ctx, &out, want, out.Written.EvalID, in.Wait)
		w.writeLostAgain(ctx, &out, want, liveCount, in.Wait)
	}
	w.afterWrite(ctx, &out, in, left)
	return out, nil
}

// maxLostRewrites bounds writeLostAgain: each write Nomad undoes takes
// an older deployment that was still finishing, and the first rewrite
// comes after it ended.
const maxLostRewrites = 2

// writeLostAgain registers want again when Nomad undid the write the
// update settled (*nomadclient.RegistrationLostError: an older version's
// deployment marked successful after the write put that version back),
// check-and-set against the job Nomad holds, and settles that instead.
// Without it the apply would report success with the old job running.
func (w Instances) writeLostAgain(ctx context.Context, out *InstanceOutcome, want instance.Spec, count int, wait bool) {
	for range maxLostRewrites {
		var lost *nomadclient.RegistrationLostError
		if !errors.As(out.RolloutErr, &lost) {
			return
		}
		tflog.Warn(ctx, "Nomad put an older version of the job back after berth wrote it; registering it again",
			map[string]any{"job": want.Name, "written_index": lost.Registered, "live_index": lost.Live, "live_version": lost.LiveVersion})
		res, err := w.Nomad.RegisterInstance(ctx, want, count, lost.Live)
		if err != nil {
			out.RolloutErr = fmt.Errorf("%w; registering it again failed: %w", lost, err)
			return
		}
		out.Written = res
		out.RolloutErr = w.settle(ctx, out, want, res.EvalID, wait)
	}
}

// afterWrite runs what follows a settled update: the promotion and the
// restart asked for, the hand-back of a node reservation's room the
// instance left, and the deletion of secrets Variables no longer read.
func (w Instances) afterWrite(ctx context.Context, out *InstanceOutcome, in InstanceWrite, left *nomadclient.HoldState) {
	want := in.Want
	if out.RolloutErr == nil && want.Running && in.Promote {
		out.RolloutErr = w.promote(ctx, out, want, in.Wait)
	}
	if out.Written != nil && out.RolloutErr == nil && out.Deployment != nil && out.Deployment.Status == DeploymentAwaitingPromotion {
		out.warn(awaitingPromotion(want, out.Deployment.ID))
	}
	if out.RolloutErr == nil && want.Running && in.Restart {
		out.RolloutErr = w.Nomad.RestartAllocations(ctx, want.Namespace, want.Name)
	}
	if left != nil && out.RolloutErr == nil {
		out.warn(w.Charges.WaitHandedBack(ctx, in.HadReservation, *left)...)
	}
	if out.Written != nil {
		w.dropSecrets(CleanupContext(ctx), out, *in.Had, &want)
	}
}

// leave releases the charge on a node reservation the instance moves out
// of, before the job is registered pinned to its new node: Nomad parks the
// grown hold until the job's allocations on the old node stop and places
// it in the room they leave, so no other job slips in between. It returns
// the hold to wait for afterwards (nil: none, or it could not be written,
// which is a warning). When the release fails nothing has moved, and the
// new charge is given back.
func (w Instances) leave(ctx context.Context, out *InstanceOutcome, in InstanceWrite) (*nomadclient.HoldState, error) {
	if in.Reservation == in.HadReservation || in.HadReservation == "" {
		return nil, nil
	}
	consumer := nomadclient.InstanceConsumer(in.Want.Namespace, in.Want.Name)
	st, ws, err := w.Charges.ReleaseForMove(ctx, in.HadReservation, "instance", consumer)
	if err != nil {
		w.release(CleanupContext(ctx), out, in.Reservation, in.Want)
		return nil, &ReleaseError{"Could not release the instance's charge on the node reservation it leaves",
			fmt.Errorf("%w. The instance was not moved", err)}
	}
	out.warn(ws...)
	return st, nil
}

// updateFailed turns a failed scale or registration into its error and
// restores the charges the instance had: a reservation it was moving to
// gives the new charge back, and the old one is charged what it was. When
// Nomad may have carried out the write anyway (its answer was lost), the
// new charge stays: if it did, the next plan finds nothing left to do.
func (w Instances) updateFailed(ctx context.Context, out *InstanceOutcome, summary string, err error, in InstanceWrite, count int) error {
	out.Written = nil
	if nomadclient.OutcomeUnknown(err) {
		return &WriteError{Summary: summary, Err: err, Uncertain: true}
	}
	w.restoreCharge(CleanupContext(ctx), out, in, *in.Had, count)
	return &WriteError{Summary: summary, Err: err}
}

// setCount brings the group count to want.Replicas with check-and-set
// against index. Nomad refuses its scale endpoint while a deployment is in
// progress (one that `nomad job scale` or an autoscaler started, or an
// unpromoted canary holds open), but accepts a registration, which
// supersedes that deployment: so then the job is registered with the new
// count instead. Either way one new job version results.
func (w Instances) setCount(ctx context.Context, job *nomadclient.Job, want instance.Spec, index uint64) (*nomadclient.RegisterResult, error) {
	dep, err := w.Nomad.ActiveDeployment(ctx, job)
	if err != nil {
		// Nothing was sent: a failed read, not a write that may have landed.
		return nil, &nomadclient.WriteNotAppliedError{Err: err}
	}
	if dep == nil {
		res, err := w.Nomad.ScaleJob(ctx, want.Namespace, want.Name, want.TaskGroup(), *want.Replicas, "berth: count changed in Terraform", index)
		if !nomadclient.IsScaleBlocked(err) {
			return res, err
		}
		// A deployment began between the read and the scale; the
		// registration's check-and-set decides whether the job moved.
	} else {
		tflog.Info(ctx, "A deployment is in progress, so the count is set by registering the job",
			map[string]any{"job": want.Name, "deployment": dep.ID, "deployment_status": dep.Status, "count": *want.Replicas})
	}
	return w.Nomad.RegisterInstance(ctx, want, *want.Replicas, index)
}

// promote promotes the canaries of the instance's deployment in progress
// and, when the apply waits for health, waits for it to finish. With
// nothing to promote it warns and changes nothing.
func (w Instances) promote(ctx context.Context, out *InstanceOutcome, want instance.Spec, wait bool) error {
	manualHealth := instance.HealthCheckOf(want) == instance.HealthCheckManual
	dep, err := w.Nomad.PromoteCanaries(ctx, want.Namespace, want.Name,
		nomadclient.PromoteOptions{WaitReady: !manualHealth, WaitDone: wait && !manualHealth})
	if dep != nil {
		out.Deployment = followed(dep)
		out.warn(out.Deployment.warnings()...)
	}
	if err != nil {
		return err
	}
	if dep == nil {
		out.warn(Warning{"Nothing to promote",
			fmt.Sprintf("promote_trigger changed, but no deployment of job %q awaits promotion, so nothing was promoted.", want.Name)})
	}
	return nil
}

// awaitingPromotion says that the apply ended with canaries waiting for a
// promotion, and how to promote them.
func awaitingPromotion(want instance.Spec, id string) Warning {
	return Warning{"Deployment awaits promotion",
		fmt.Sprintf("Job %q has update.auto_promote = false: the canaries of deployment %s are placed and healthy, and the "+
			"previous allocations keep running next to them until the deployment is promoted. To promote it, change "+
			"promote_trigger (any new value) and apply, or run `nomad deployment promote -namespace=%s %s`. A later change "+
			"to the instance registers a new version, which replaces this deployment with a new one.",
			want.Name, id, want.Namespace, id)}
}

// rerunCollected applies a change to a batch instance whose job Nomad
// garbage-collected after it completed: the job is registered anew (as a
// create would) and runs again. Its charge on a node reservation (if any)
// moves as in an ordinary update.
func (w Instances) rerunCollected(ctx context.Context, in InstanceWrite) (InstanceOutcome, error) {
	out := InstanceOutcome{SecretIndexes: secretIndexes(in.SecretIndexes)}
	want := in.Want
	tflog.Info(ctx, "The completed batch job was garbage-collected by Nomad; registering it again", map[string]any{"job": want.Name})
	count := 1 // an unmanaged count starts where it was
	switch {
	case want.Replicas != nil:
		count = *want.Replicas
	case in.Replicas != nil:
		count = *in.Replicas
	}
	if err := w.charge(ctx, &out, in.Reservation, want, count); err != nil {
		return out, err
	}
	if _, err := w.writeSecrets(ctx, &out, in, in.Had); err != nil {
		w.restoreCharge(CleanupContext(ctx), &out, in, *in.Had, count)
		return out, err
	}
	if in.Reservation != in.HadReservation {
		w.release(ctx, &out, in.HadReservation, want)
	}
	res, err := w.Nomad.RegisterInstance(ctx, want, count, 0)
	if err != nil {
		return out, &WriteError{Summary: "Could not register the job", Err: err, Uncertain: nomadclient.OutcomeUnknown(err)}
	}
	out.Written = res
	out.RolloutErr = w.settle(ctx, &out, want, res.EvalID, in.Wait)
	return out, nil
}

// newUnmanaged returns the unmanaged settings in live that the last
// refresh did not record: added in Nomad after the plan was made.
func newUnmanaged(live, recorded []string) []string {
	var out []string
	for _, u := range live {
		if !slices.Contains(recorded, u) {
			out = append(out, u)
		}
	}
	return out
}
