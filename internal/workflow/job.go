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
	PutSecretEnv(ctx context.Context, ns, path string, items map[string]string) error
	DeleteSecretEnv(ctx context.Context, ns, path string) error
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
// masked in every log line.
func (w Jobs) writeSecrets(ctx context.Context, in JobWrite) error {
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
	if err := w.Nomad.PutSecretEnv(ctx, in.Namespace, JobVariablePath(in.Job.ID), in.Secrets); err != nil {
		return &SecretError{Err: err}
	}
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
}

// Create registers a new job: the registration refuses a job that exists
// (check-and-set at index 0).
func (w Jobs) Create(ctx context.Context, in JobWrite) (JobOutcome, error) {
	var out JobOutcome
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
	if err := w.writeSecrets(ctx, in); err != nil {
		w.release(CleanupContext(ctx), &out, in)
		return out, err
	}
	res, err := w.Nomad.RegisterJobspec(ctx, in.Spec, in.Namespace, w.pin(in), 0)
	if err != nil && !nomadclient.OutcomeUnknown(err) {
		// Refused: nothing reads the Variable, nothing uses the charge.
		undo := CleanupContext(ctx)
		if in.secretsChanged() {
			if derr := w.Nomad.DeleteSecretEnv(undo, in.Namespace, JobVariablePath(in.Job.ID)); derr != nil {
				out.Problems = append(out.Problems, &SecretDeleteError{Namespace: in.Namespace, Path: JobVariablePath(in.Job.ID), Err: derr})
			}
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
	var out JobOutcome
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
	if err := w.writeSecrets(ctx, in); err != nil {
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
		if err := w.Nomad.DeleteSecretEnv(CleanupContext(ctx), in.Namespace, JobVariablePath(in.Job.ID)); err != nil {
			out.Problems = append(out.Problems, &SecretDeleteError{Namespace: in.Namespace, Path: JobVariablePath(in.Job.ID), Err: err})
		}
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
// Variable (secrets: one was written); one left behind fails the destroy,
// which then runs again. In a node reservation (reservation, "" none) it
// waits until Nomad's scheduler stopped the job's allocations and hands
// their room back to the reservation's hold without a gap; otherwise one
// request stops (and purges) the job, as `nomad job stop -purge` does, and
// Nomad stops the tasks: nothing waits for that room.
func (w Jobs) Delete(ctx context.Context, namespace, id, reservation string, purge, secrets bool) (JobOutcome, error) {
	var out JobOutcome
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
	if err := w.Nomad.DeleteSecretEnv(ctx, namespace, JobVariablePath(id)); err != nil {
		return out, &SecretDeleteError{Namespace: namespace, Path: JobVariablePath(id), Fatal: true, Err: err}
	}
	return out, nil
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
