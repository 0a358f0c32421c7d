package workflow

import (
	"context"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/berthhq/terraform-provider-berth/internal/lease"
	"github.com/berthhq/terraform-provider-berth/internal/nomadclient"
)

// LeaseNomad is what berth_reservation's writes (a lease: a job whose
// timer task ends it at expiry) need of Nomad; *nomadclient.Client has it.
type LeaseNomad interface {
	Ledger
	GetJob(ctx context.Context, ns, name string) (*nomadclient.Job, error)
	RegisterLease(ctx context.Context, l lease.Lease, driver string, now time.Time, index uint64) (*nomadclient.RegisterResult, error)
	WaitTaskRunning(ctx context.Context, ns, name, evalID, task string) error
	RemoveJob(ctx context.Context, ns, name string, r nomadclient.Removal) error
}

// Leases runs the writes of leases: charge → register → wait for the
// workload → record, and the hand-back on destroy.
type Leases struct {
	Nomad   LeaseNomad
	Charges Charges
	// Driver runs the lease's timer task.
	Driver string
}

// NewLeases is the lease workflow on nomad, with node reservation ledgers
// in ledgerNamespace and timer tasks run by driver.
func NewLeases(nomad LeaseNomad, ledgerNamespace, driver string) Leases {
	return Leases{Nomad: nomad, Charges: Charges{Nomad: nomad, Namespace: ledgerNamespace}, Driver: driver}
}

// LeaseWrite is one create or update of a lease, signed.
type LeaseWrite struct {
	Lease lease.Lease
	// Had is the lease as state has it (an update).
	Had lease.Lease
	// Reservation is the node reservation it is placed into ("" none).
	Reservation string
	Now         time.Time
	// Wait: wait for the workload task to run (wait_for_running).
	Wait bool
	// Index is the job modify index state recorded (0: none).
	Index uint64
	// Record reads the registered job (at index) back into the caller's
	// model and says whether Nomad still holds it.
	Record func(ctx context.Context, index uint64) (present bool)
}

// LeaseOutcome is what a lease write did.
type LeaseOutcome struct {
	// Written: the job was written (and Record called); state must say so.
	Written bool
	// Unsettled: a write failed that may have happened all the same; the
	// caller records what Nomad holds now.
	Unsettled bool
	// RunErr: the workload did not start.
	RunErr   error
	Warnings []Warning
	Problems []error
}

// LeaseVanishedError: the lease job was written, then deleted by someone
// else during the apply.
type LeaseVanishedError struct{ Namespace, Name, Verb string }

func (e *LeaseVanishedError) Error() string {
	return fmt.Sprintf("job %q in namespace %q was %s but is gone from Nomad", e.Name, e.Namespace, e.Verb)
}

// RegistrationUnknownError: a registration failed and the job could not
// be read afterwards either, so nobody knows whether Nomad holds it.
type RegistrationUnknownError struct {
	Namespace, Name string
	Err             error
}

func (e *RegistrationUnknownError) Error() string {
	return fmt.Sprintf("could not tell whether job %q was registered: %v", e.Name, e.Err)
}
func (e *RegistrationUnknownError) Unwrap() error { return e.Err }

// Create checks the name is free, charges the lease's footprint to its
// node reservation and registers the lease job. A failed registration may
// still have happened (a deadline passed, the reply was lost): a lease
// Nomad holds is recorded, so it is never orphaned; otherwise the charge
// is released.
func (w Leases) Create(ctx context.Context, in LeaseWrite) (LeaseOutcome, error) {
	var out LeaseOutcome
	l := in.Lease
	existing, err := w.Nomad.GetJob(ctx, l.Namespace, l.Name)
	if err != nil {
		return out, &NomadError{"Could not check for an existing job", err}
	}
	if existing != nil {
		return out, &JobExistsError{Namespace: l.Namespace, Name: l.Name}
	}
	consumer := nomadclient.LeaseConsumer(l.Namespace, l.Name)
	if in.Reservation != "" {
		ws, err := w.Charges.ChargeAndHold(ctx, in.Reservation, consumer, l.Footprint())
		out.Warnings = append(out.Warnings, ws...)
		if err != nil {
			return out, &ChargeError{err}
		}
	}
	res, err := w.Nomad.RegisterLease(ctx, l, w.Driver, in.Now, 0)
	if err != nil {
		w.recordLost(CleanupContext(ctx), &out, in)
		return out, &NomadError{"Could not register the lease", err}
	}
	tflog.Info(ctx, "Registered lease", map[string]any{"job": l.Name, "namespace": l.Namespace,
		"expires_at": l.ExpiresAt().Format(time.RFC3339), "job_modify_index": res.JobModifyIndex})
	if in.Wait {
		out.RunErr = w.Nomad.WaitTaskRunning(ctx, l.Namespace, l.Name, res.EvalID, lease.WorkloadTask)
	}
	// The job exists from here on: it is always recorded, so a lease that
	// failed to start (or whose wait timed out) is tainted, never orphaned.
	if !in.Record(ctx, res.JobModifyIndex) {
		w.release(CleanupContext(ctx), &out, in)
		return out, &LeaseVanishedError{Namespace: l.Namespace, Name: l.Name, Verb: "registered"}
	}
	out.Written = true
	return out, nil
}

// recordLost settles a failed registration: a lease job Nomad holds after
// all is recorded; none releases the charge; an unreadable one keeps it
// and says so.
func (w Leases) recordLost(ctx context.Context, out *LeaseOutcome, in LeaseWrite) {
	l := in.Lease
	job, err := w.Nomad.GetJob(ctx, l.Namespace, l.Name)
	switch {
	case err != nil:
		out.Problems = append(out.Problems, &RegistrationUnknownError{Namespace: l.Namespace, Name: l.Name, Err: err})
	case job != nil && job.IsLeaseJobOf(l):
		tflog.Warn(ctx, "Lease registered although the request failed", map[string]any{"job": l.Name, "namespace": l.Namespace})
		if in.Record(ctx, job.ModifyIndex()) {
			out.Written = true
			return
		}
		w.release(ctx, out, in) // deleted again meanwhile
	default:
		w.release(ctx, out, in)
	}
}

// Update registers the lease again with its new end and signature, with
// check-and-set against the job as read: a job changed since the last
// refresh is only overwritten when nothing of the lease differs, like
// berth_instance; otherwise the apply fails rather than re-signing a
// change made after the plan.
func (w Leases) Update(ctx context.Context, in LeaseWrite) (LeaseOutcome, error) {
	var out LeaseOutcome
	had := in.Had
	job, err := w.Nomad.GetJob(ctx, had.Namespace, had.Name)
	if err != nil {
		return out, &NomadError{"Could not read the lease", err}
	}
	if job == nil {
		return out, &JobGoneError{Namespace: had.Namespace, Name: had.Name}
	}
	index := job.ModifyIndex()
	if in.Index == 0 || index != in.Index {
		var changed []string
		if live, err := job.Lease(); err != nil {
			changed = []string{err.Error()}
		} else {
			changed = lease.Diff(had, live)
		}
		if len(changed) > 0 {
			return out, &JobChangedError{Name: had.Name, Index: index, Expected: in.Index, Changed: changed}
		}
	}
	res, err := w.Nomad.RegisterLease(ctx, in.Lease, w.Driver, in.Now, index)
	if err != nil {
		out.Unsettled = true // a timeout or a lost reply: it may have happened
		return out, &NomadError{"Could not update the lease", err}
	}
	out.Written = true
	if !in.Record(ctx, res.JobModifyIndex) {
		return out, &LeaseVanishedError{Namespace: had.Namespace, Name: had.Name, Verb: "updated"}
	}
	return out, nil
}

// Delete stops and purges the lease job, waits until Nomad's scheduler
// stopped its allocations, and gives its room back to its node
// reservation without a gap.
func (w Leases) Delete(ctx context.Context, ns, name, reservation string) (LeaseOutcome, error) {
	var out LeaseOutcome
	remove := func(ctx context.Context) error {
		return w.Nomad.RemoveJob(ctx, ns, name, nomadclient.Removal{Purge: true})
	}
	ws, problems, err := w.Charges.Remove(ctx, reservation, "lease", nomadclient.LeaseConsumer(ns, name), remove)
	out.Warnings, out.Problems = ws, problems
	if err != nil {
		return out, &NomadError{"Could not delete the lease", err}
	}
	return out, nil
}

func (w Leases) release(ctx context.Context, out *LeaseOutcome, in LeaseWrite) {
	ws, err := w.Charges.ReleaseOf(ctx, in.Reservation, "lease", nomadclient.LeaseConsumer(in.Lease.Namespace, in.Lease.Name))
	out.Warnings = append(out.Warnings, ws...)
	if err != nil {
		out.Problems = append(out.Problems, err)
	}
}
