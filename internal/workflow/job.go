package workflow

import (
	"context"
	"slices"

	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/berthhq/terraform-provider-berth/internal/capacity"
	"github.com/berthhq/terraform-provider-berth/internal/jobspec"
	"github.com/berthhq/terraform-provider-berth/internal/nomadclient"
)

// JobNomad is what berth_job's writes need of Nomad; *nomadclient.Client
// has it.
type JobNomad interface {
	Waiter
	Ledger
	GetJob(ctx context.Context, ns, name string) (*nomadclient.Job, error)
	ConfirmedDrift(ctx context.Context, j *nomadclient.Job, s jobspec.Spec) ([]string, error)
	RegisterJobspec(ctx context.Context, s jobspec.Spec, namespace, pin string, index uint64) (*nomadclient.RegisterResult, error)
	RemoveJob(ctx context.Context, ns, name string, r nomadclient.Removal) error
	StopJob(ctx context.Context, ns, name string, purge bool) error
	PutSecretEnv(ctx context.Context, ns, path string, items map[string]string, index uint64) (uint64, error)
	DeleteSecretEnv(ctx context.Context, ns, path string, index uint64) error
}

// Jobs runs berth_job's writes: charge a node reservation → write the
// job's Variable → register the jobspec (check-and-set) → wait for what its
// type runs to; and remove, handing the room back.
type Jobs struct {
	Nomad   JobNomad
	Charges Charges
}

// NewJobs is the jobspec workflow on nomad, with node reservation ledgers
// in ledgerNamespace.
func NewJobs(nomad JobNomad, ledgerNamespace string) Jobs {
	return Jobs{Nomad: nomad, Charges: Charges{Nomad: nomad, Namespace: ledgerNamespace}}
}

// JobWrite is one create or update of a jobspec job.
type JobWrite struct {
	Spec jobspec.Spec
	// Job is the jobspec's summary; Namespace is where the job lives (the
	// jobspec's, or the provider's default).
	Job       jobspec.Summary
	Namespace string
	// Wait is wait_for_healthy.
	Wait bool
	// Reservation is the node reservation the job is placed into ("" none):
	// it is charged Job.Charge (HadCharge before an update) and the job is
	// pinned to its node.
	Reservation string
	HadCharge   capacity.Resources
	// Secrets are variables_wo (write-only: from the configuration only),
	// written to the job's Nomad Variable (JobVariablePath) before the job
	// is registered whenever SecretsVersion is new or changed; HadVersion
	// is the version state recorded (nil: none, as on create).
	Secrets                    map[string]string
	SecretsVersion, HadVersion *int64
	// SecretsIndex is the Variable's modify index berth recorded when it
	// last wrote it (SecretIndexUnrecorded: a state from before berth
	// recorded it): the check-and-set index of the next rewrite or delete.
	SecretsIndex uint64
	// For an update: the job modify index and the drift the last refresh
	// recorded (the plan showed the apply overwrites it).
	Index uint64
	Drift []string
}

// JobVariablePath is the Nomad Variable every task of job may read without
// an ACL policy, where variables_wo goes.
func JobVariablePath(job string) string { return "nomad/jobs/" + job }

// secretsChanged: the Variable must be written before the registration.
func (in JobWrite) secretsChanged() bool {
	return in.SecretsVersion != nil && (in.HadVersion == nil || *in.HadVersion != *in.SecretsVersion)
}

// writeSecrets writes variables_wo to the job's Variable, its values
// masked in every log line: created where nothing is when state has no
// version, else rewritten at the index berth recorded (check-and-set
// either way, so a Variable someone else holds stays as it is). out
// records the index written.
func (w Jobs) writeSecrets(ctx context.Context, out *JobOutcome, in JobWrite) error {
	if !in.secretsChanged() {
		return nil
	}
	if len(in.Secrets) == 0 {
		return &SecretError{Missing: true}
	}
	var masked []string
	for _, v := range in.Secrets {
		if len(v) >= minMaskedSecret {
			masked = append(masked, v)
		}
	}
	ctx = tflog.MaskAllFieldValuesStrings(tflog.MaskMessageStrings(ctx, masked...), masked...)
	index := uint64(0)
	if in.HadVersion != nil {
		index = in.SecretsIndex
	}
	written, err := w.Nomad.PutSecretEnv(ctx, in.Namespace, JobVariablePath(in.Job.ID), in.Secrets, index)
	if err != nil {
		return &SecretError{Namespace: in.Namespace, Path: JobVariablePath(in.Job.ID), Err: err}
	}
	out.SecretsIndex = written
	tflog.Info(ctx, "Wrote the job's Variable", map[string]any{"path": JobVariablePath(in.Job.ID), "variables": len(in.Secrets)})
	return nil
}

// JobOutcome is what a jobspec write did.
type JobOutcome struct {
	// Written is the registration; nil when nothing was written.
	Written    *nomadclient.RegisterResult
	Deployment *Deployment
	// RolloutErr: the job was registered but did not settle.
	RolloutErr error
	Warnings   []Warning
	// Problems are clean-up steps that failed (a Variable left behind).
	Problems []error
	// SecretsIndex is the modify index of the job's Variable as berth last
	// wrote it (0: berth holds none), to record for the next write.
	SecretsIndex uint64
}

// Create registers a new job: the registration refuses a job that exists
// (check-and-set at index 0).
func (w Jobs) Create(ctx context.Context, in JobWrite) (JobOutcome, error) {
	out := JobOutcome{SecretsIndex: in.SecretsIndex}
	if in.secretsChanged() || in.Reservation != "" {
		// Never write a Variable another job of that name reads, nor a
		// charge for it.
		existing, err := w.Nomad.GetJob(ctx, in.Namespace, in.Job.ID)
		if err != nil {
			return out, &NomadError{"Could not check for an existing job", err}
		}
		if existing != nil {
			return out, &JobExistsError{Namespace: in.Namespace, Name: in.Job.ID}
		}
	}
	if err := w.charge(ctx, &out, in, in.Job.Charge); err != nil {
		return out, err
	}
	if err := w.writeSecrets(ctx, &out, in); err != nil {
		w.release(CleanupContext(ctx), &out, in)
		return out, err
	}
	res, err := w.Nomad.RegisterJobspec(ctx, in.Spec, in.Namespace, w.pin(in), 0)
	if err != nil && !nomadclient.OutcomeUnknown(err) {
		// Refused: nothing reads the Variable, nothing uses the charge.
		undo := CleanupContext(ctx)
		if in.secretsChanged() {
			w.dropSecrets(undo, &out, in.Namespace, in.Job.ID)
		}
		w.release(undo, &out, in)
	}
	switch {
	case nomadclient.OutcomeUnknown(err):
		return out, &WriteError{Summary: "Could not register the job", Err: err, Uncertain: true}
	case nomadclient.IsJobIndexConflict(err):
		return out, &JobExistsError{Namespace: in.Namespace, Name: in.Job.ID}
	case nomadclient.IsBadRequest(err):
		return out, &WriteError{Summary: "Nomad refused the job", Err: err}
	case err != nil:
		return out, &NomadError{"Could not register the job", err}
	}
	tflog.Info(ctx, "Registered job", map[string]any{"job": in.Job.ID, "namespace": in.Namespace, "eval": res.EvalID})
	w.settled(ctx, &out, in, res)
	return out, nil
}

// Update registers the jobspec again over the job as it is now. A job
// changed since the last refresh in a field the jobspec sets, beyond the
// drift the plan showed, refuses the update: the apply would overwrite a
// change nobody saw.
func (w Jobs) Update(ctx context.Context, in JobWrite) (JobOutcome, error) {
	out := JobOutcome{SecretsIndex: in.SecretsIndex}
	job, err := w.Nomad.GetJob(ctx, in.Namespace, in.Job.ID)
	if err != nil {
		return out, &NomadError{"Could not read the job", err}
	}
	if job == nil {
		return out, &JobGoneError{Namespace: in.Namespace, Name: in.Job.ID}
	}
	if index := job.ModifyIndex(); index != in.Index {
		drift, err := w.Nomad.ConfirmedDrift(ctx, job, in.Spec)
		if err != nil {
			return out, &NomadError{"Could not compare the job with its jobspec", err}
		}
		var unseen []string
		for _, d := range drift {
			if !slices.Contains(in.Drift, d) {
				unseen = append(unseen, d)
			}
		}
		if len(unseen) > 0 {
			return out, &JobChangedError{Name: in.Job.ID, Index: index, Expected: in.Index, Changed: unseen}
		}
	}
	// A new charge comes first: a refused budget leaves everything as it
	// was.
	recharge := in.Job.Charge != in.HadCharge
	if recharge {
		if err := w.charge(ctx, &out, in, in.Job.Charge); err != nil {
			return out, err
		}
	}
	if err := w.writeSecrets(ctx, &out, in); err != nil {
		if recharge {
			w.restoreCharge(CleanupContext(ctx), &out, in)
		}
		return out, err
	}
	res, err := w.Nomad.RegisterJobspec(ctx, in.Spec, in.Namespace, w.pin(in), job.ModifyIndex())
	if err != nil && !nomadclient.OutcomeUnknown(err) && recharge {
		w.restoreCharge(CleanupContext(ctx), &out, in)
	}
	switch {
	case nomadclient.OutcomeUnknown(err):
		return out, &WriteError{Summary: "Could not register the job", Err: err, Uncertain: true}
	case nomadclient.IsBadRequest(err):
		return out, &WriteError{Summary: "Nomad refused the job", Err: err}
	case err != nil:
		return out, &NomadError{"Could not register the job", err}
	}
	w.settled(ctx, &out, in, res)
	if in.SecretsVersion == nil && in.HadVersion != nil {
		// variables_wo removed: the job registered now no longer needs it.
		w.dropSecrets(CleanupContext(ctx), &out, in.Namespace, in.Job.ID)
	}
	return out, nil
}

func (w Jobs) settled(ctx context.Context, out *JobOutcome, in JobWrite, res *nomadclient.RegisterResult) {
	out.Written = res
	if res.Warnings != "" {
		out.Warnings = append(out.Warnings, Warning{"Nomad warnings", res.Warnings})
	}
	out.Deployment, out.RolloutErr = Settle(ctx, w.Nomad, Settling{Namespace: in.Namespace, Name: in.Job.ID, Type: in.Job.Type,
		EvalID: res.EvalID, Wait: in.Wait, Launched: in.Job.Periodic || in.Job.Parameterized, ManualHealth: in.Job.ManualHealth})
	out.Warnings = append(out.Warnings, out.Deployment.warnings()...)
}

// Delete stops the job (purged when purge) and deletes its variables_wo
// Variable (secrets: one was written, at secretsIndex) if it is still as
// berth wrote it; one berth could not delete fails the destroy, which then
// runs again, and one written since by someone else is theirs: left, with
// a warning. In a node reservation (reservation, "" none) it
// waits until Nomad's scheduler stopped the job's allocations and hands
// their room back to the reservation's hold without a gap; otherwise one
// request stops (and purges) the job, as `nomad job stop -purge` does, and
// Nomad stops the tasks: nothing waits for that room.
func (w Jobs) Delete(ctx context.Context, namespace, id, reservation string, purge, secrets bool, secretsIndex uint64) (JobOutcome, error) {
	out := JobOutcome{SecretsIndex: secretsIndex}
	remove := func(ctx context.Context) error {
		return w.Nomad.RemoveJob(ctx, namespace, id, nomadclient.Removal{Purge: purge})
	}
	if reservation == "" {
		remove = func(ctx context.Context) error { return w.Nomad.StopJob(ctx, namespace, id, purge) }
	}
	ws, problems, err := w.Charges.Remove(ctx, reservation, "job", nomadclient.JobConsumer(namespace, id), remove)
	out.Warnings, out.Problems = ws, problems
	if err != nil {
		return out, &NomadError{"Could not delete the job", err}
	}
	if !secrets {
		return out, nil
	}
	switch derr := w.deleteSecrets(ctx, &out, namespace, id); {
	case derr == nil:
	case derr.Taken:
		out.Problems = append(out.Problems, derr) // theirs: a warning
	default:
		derr.Fatal = true
		return out, derr
	}
	return out, nil
}

// deleteSecrets deletes the job's Variable at the index berth wrote. It
// returns what it could not delete: Taken when someone else wrote it since
// (theirs now: the record is dropped), and the caller says what that
// costs.
func (w Jobs) deleteSecrets(ctx context.Context, out *JobOutcome, namespace, id string) *SecretDeleteError {
	p := JobVariablePath(id)
	err := w.Nomad.DeleteSecretEnv(ctx, namespace, p, out.SecretsIndex)
	if err == nil {
		out.SecretsIndex = 0
		tflog.Info(ctx, "Deleted the job's Variable", map[string]any{"path": p, "namespace": namespace})
		return nil
	}
	derr := &SecretDeleteError{Namespace: namespace, Path: p, Err: err, Taken: isTaken(err)}
	if derr.Taken {
		out.SecretsIndex = 0
	}
	return derr
}

// dropSecrets deletes the job's Variable after an update or an undo: one
// left behind is a warning.
func (w Jobs) dropSecrets(ctx context.Context, out *JobOutcome, namespace, id string) {
	if derr := w.deleteSecrets(ctx, out, namespace, id); derr != nil {
		out.Problems = append(out.Problems, derr)
	}
}

// pin is the node a job placed into a node reservation runs on.
func (w Jobs) pin(in JobWrite) string {
	node, _, _ := nomadclient.ParseNodeReservationID(in.Reservation)
	return node
}

func (w Jobs) charge(ctx context.Context, out *JobOutcome, in JobWrite, amount capacity.Resources) error {
	if in.Reservation == "" {
		return nil
	}
	ws, err := w.Charges.ChargeAndHold(ctx, in.Reservation, nomadclient.JobConsumer(in.Namespace, in.Job.ID), amount)
	out.Warnings = append(out.Warnings, ws...)
	if err != nil {
		return &ChargeError{err}
	}
	return nil
}

func (w Jobs) release(ctx context.Context, out *JobOutcome, in JobWrite) {
	ws, err := w.Charges.ReleaseOf(ctx, in.Reservation, "job", nomadclient.JobConsumer(in.Namespace, in.Job.ID))
	out.Warnings = append(out.Warnings, ws...)
	if err != nil {
		out.Problems = append(out.Problems, err)
	}
}

// restoreCharge charges what the job had before an update that wrote no
// job.
func (w Jobs) restoreCharge(ctx context.Context, out *JobOutcome, in JobWrite) {
	if err := w.charge(ctx, out, in, in.HadCharge); err != nil {
		out.Problems = append(out.Problems, err)
	}
}
