package workflow

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/berthhq/terraform-provider-berth/internal/nomadclient"
)

// The typed errors a workflow returns. internal/provider maps each to one
// diagnostic (its attribute path, summary and advice); the workflow decides
// only what happened.

// NomadError is a Nomad call that failed where nothing was written yet, or
// where what failed is only a read: Summary says which step.
type NomadError struct {
	Summary string
	Err     error
}

func (e *NomadError) Error() string { return e.Summary + ": " + e.Err.Error() }
func (e *NomadError) Unwrap() error { return e.Err }

// ChargeError is a charge the node reservation's ledger refused (budget,
// missing reservation, contention): nothing was written.
type ChargeError struct{ Err error }

func (e *ChargeError) Error() string { return "charge refused: " + e.Err.Error() }
func (e *ChargeError) Unwrap() error { return e.Err }

// ReleaseError is a charge that could not be released (or restored) on a
// node reservation: Summary says which.
type ReleaseError struct {
	Summary string
	Err     error
}

func (e *ReleaseError) Error() string { return e.Summary + ": " + e.Err.Error() }
func (e *ReleaseError) Unwrap() error { return e.Err }

// WriteError is a job (or volume) write Nomad refused or whose answer was
// lost. Uncertain: Nomad may have carried it out (see
// nomadclient.OutcomeUnknown); otherwise nothing was written.
type WriteError struct {
	Summary   string
	Err       error
	Uncertain bool
}

func (e *WriteError) Error() string { return e.Summary + ": " + e.Err.Error() }
func (e *WriteError) Unwrap() error { return e.Err }

// Uncertain reports whether err is a write Nomad may have carried out
// although it failed: the caller keeps what may exist in state.
func Uncertain(err error) bool {
	var we *WriteError
	return errors.As(err, &we) && we.Uncertain
}

// JobExistsError refuses a create whose job name Nomad already has. Berth
// says whether berth registered that job (from another state).
type JobExistsError struct {
	Namespace, Name string
	Berth           bool
}

func (e *JobExistsError) Error() string {
	return fmt.Sprintf("job %q already exists in namespace %q", e.Name, e.Namespace)
}

// JobGoneError: the job was deleted from Nomad between plan and apply.
type JobGoneError struct{ Namespace, Name string }

func (e *JobGoneError) Error() string { return fmt.Sprintf("job %q is gone", e.Name) }

// JobChangedError: the job was changed in Nomad after the plan, in what
// berth manages (Changed names each field).
type JobChangedError struct {
	Name            string
	Index, Expected uint64
	Changed         []string
}

func (e *JobChangedError) Error() string {
	return fmt.Sprintf("job %q changed in Nomad since the last refresh", e.Name)
}

// SecretError is a service's (or, Service "", the job's) secrets
// Variable that could not be written; Missing: the configuration gives no
// secret_env_wo to write. Taken reports that Nomad refused the
// check-and-set: a Variable berth did not write is at Path (or one berth
// wrote was changed since), and nothing was written.
type SecretError struct {
	Service         string
	Namespace, Path string
	Missing         bool
	Err             error
}

// Taken reports whether the write was refused because someone else holds
// the Variable.
func (e *SecretError) Taken() bool { return isTaken(e.Err) }

// isTaken: Nomad refused a check-and-set write of a Variable.
func isTaken(err error) bool {
	var conflict *nomadclient.VariableConflictError
	return errors.As(err, &conflict)
}

func (e *SecretError) Error() string {
	if e.Missing {
		return fmt.Sprintf("service %q: no secret_env_wo to write", e.Service)
	}
	return fmt.Sprintf("could not write the secrets of service %q: %v", e.Service, e.Err)
}
func (e *SecretError) Unwrap() error { return e.Err }

// SecretDeleteError is a secrets Variable left behind. Fatal on destroy
// (which then runs again), a warning after an update.
type SecretDeleteError struct {
	Namespace, Path string
	Fatal           bool
	// Taken: someone wrote the Variable after berth did, so it is theirs
	// and was left as it is.
	Taken bool
	Err   error
}

func (e *SecretDeleteError) Error() string {
	return fmt.Sprintf("could not delete secrets Variable %s: %v", e.Path, e.Err)
}
func (e *SecretDeleteError) Unwrap() error { return e.Err }

// cleanupWindow bounds each undo step and read-back after a write.
const cleanupWindow = 30 * time.Second

// CleanupContext is a context for undo steps and read-backs after a
// write: it keeps ctx's values (masked secrets, loggers) but not its
// deadline, which may have passed, and gets a fresh one of its own.
func CleanupContext(ctx context.Context) context.Context {
	c, cancel := context.WithTimeout(context.WithoutCancel(ctx), cleanupWindow)
	time.AfterFunc(cleanupWindow, cancel)
	return c
}
