package workflow

import (
	"context"
	"slices"

	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/berthhq/terraform-provider-berth/internal/jobspec"
	"github.com/berthhq/terraform-provider-berth/internal/nomadclient"
)

// JobNomad is what berth_job's writes need of Nomad; *nomadclient.Client
// has it.
type JobNomad interface {
	Waiter
	GetJob(ctx context.Context, ns, name string) (*nomadclient.Job, error)
	RegisterJobspec(ctx context.Context, s jobspec.Spec, namespace string, index uint64) (*nomadclient.RegisterResult, error)
	RemoveJob(ctx context.Context, ns, name string, purge bool) error
}

// Jobs runs berth_job's writes: register the jobspec (check-and-set) →
// wait for what its type runs to, and remove.
type Jobs struct{ Nomad JobNomad }

// JobWrite is one create or update of a jobspec job.
type JobWrite struct {
	Spec jobspec.Spec
	// Job is the jobspec's summary; Namespace is where the job lives (the
	// jobspec's, or the provider's default).
	Job       jobspec.Summary
	Namespace string
	// Wait is wait_for_healthy.
	Wait bool
	// For an update: the job modify index and the drift the last refresh
	// recorded (the plan showed the apply overwrites it).
	Index uint64
	Drift []string
}

// JobOutcome is what a jobspec write did.
type JobOutcome struct {
	// Written is the registration; nil when nothing was written.
	Written    *nomadclient.RegisterResult
	Deployment *Deployment
	// RolloutErr: the job was registered but did not settle.
	RolloutErr error
	Warnings   []Warning
}

// Create registers a new job: the registration refuses a job that exists
// (check-and-set at index 0).
func (w Jobs) Create(ctx context.Context, in JobWrite) (JobOutcome, error) {
	var out JobOutcome
	res, err := w.Nomad.RegisterJobspec(ctx, in.Spec, in.Namespace, 0)
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
		drift, err := job.JobspecDrift(in.Spec)
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
	res, err := w.Nomad.RegisterJobspec(ctx, in.Spec, in.Namespace, job.ModifyIndex())
	switch {
	case nomadclient.OutcomeUnknown(err):
		return out, &WriteError{Summary: "Could not register the job", Err: err, Uncertain: true}
	case nomadclient.IsBadRequest(err):
		return out, &WriteError{Summary: "Nomad refused the job", Err: err}
	case err != nil:
		return out, &NomadError{"Could not register the job", err}
	}
	w.settled(ctx, &out, in, res)
	return out, nil
}

func (w Jobs) settled(ctx context.Context, out *JobOutcome, in JobWrite, res *nomadclient.RegisterResult) {
	out.Written = res
	if res.Warnings != "" {
		out.Warnings = append(out.Warnings, Warning{"Nomad warnings", res.Warnings})
	}
	out.Deployment, out.RolloutErr = Settle(ctx, w.Nomad, Settling{Namespace: in.Namespace, Name: in.Job.ID, Type: in.Job.Type,
		EvalID: res.EvalID, Wait: in.Wait, Launched: in.Job.Periodic || in.Job.Parameterized, ManualHealth: in.Job.ManualHealth})
}

// Delete stops the job (purged when purge) and waits until its
// allocations stopped.
func (w Jobs) Delete(ctx context.Context, namespace, id string, purge bool) error {
	if err := w.Nomad.RemoveJob(ctx, namespace, id, purge); err != nil {
		return &NomadError{"Could not delete the job", err}
	}
	return nil
}
