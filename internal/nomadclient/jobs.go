package nomadclient

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"time"

	"github.com/hashicorp/nomad/api"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/berthhq/terraform-provider-berth/internal/jobspec"
)

// getJob reads a job. A job that does not exist returns (nil, nil).
func (c *Client) getJob(ctx context.Context, namespace, id string) (*api.Job, error) {
	job, err := getOrNil(ctx, c, "read job", func(ctx context.Context) (*api.Job, error) {
		out, _, err := c.api.Jobs().Info(id, c.query(ctx, &api.QueryOptions{Namespace: namespace}))
		return out, err
	}, "reading job %q in namespace %q", id, namespace)
	if err != nil || job == nil {
		return nil, err
	}
	return job, nil
}

// JobModifyIndex reads only the job's modify index, which Nomad moves on
// every write to the job (register, scale, stop, revert); found is false
// when Nomad has no such job. The reply is the whole job, as GetJob's, but
// only that field is decoded.
func (c *Client) JobModifyIndex(ctx context.Context, namespace, id string) (index uint64, found bool, err error) {
	type indexOnly struct{ JobModifyIndex uint64 }
	out, err := getOrNil(ctx, c, "read job", func(ctx context.Context) (*indexOnly, error) {
		var out indexOnly
		_, err := c.api.Raw().Query("/v1/job/"+url.PathEscape(id), &out, c.query(ctx, &api.QueryOptions{Namespace: namespace}))
		return &out, err
	}, "reading job %q in namespace %q", id, namespace)
	if err != nil || out == nil {
		return 0, false, err
	}
	return out.JobModifyIndex, true, nil
}

// JobAllocations lists a job's allocations, including terminal ones.
func (c *Client) jobAllocations(ctx context.Context, namespace, id string) ([]*api.AllocationListStub, error) {
	allocs, _, err := c.jobAllocationsAfter(ctx, namespace, id, 0, 0)
	return allocs, err
}

// RegisterResult is what Nomad answered to a register or scale.
type RegisterResult struct {
	EvalID         string
	JobModifyIndex uint64
	Warnings       string
}

// RegisterJob registers job with check-and-set: modifyIndex 0 means the job
// must not exist yet, otherwise Nomad refuses if the job's modify index moved.
//
// An attempt whose answer was lost (connection reset, 5xx, 429, berth's own
// deadline) may still have been applied, so RegisterJob then settles what
// happened before it answers, with a fresh deadline:
//   - it retries through the shared retry helper; a retry that meets
//     "Enforcing job modify index" asks Nomad (a plan with a diff) whether
//     the live job is exactly the one berth sent, and if so returns that
//     registration instead of failing or writing twice;
//   - when every attempt failed, it reads the job: unchanged means nothing
//     was applied (the error is a *WriteNotAppliedError), the job berth sent
//     means it was, and a job berth cannot read means nobody knows (the
//     error is an *UncertainWriteError).
//
// The job itself carries no marker: Nomad counts any change to job meta as
// a change to every task, which would turn in-place updates into
// replacements.
func (c *Client) RegisterJob(ctx context.Context, job *api.Job, modifyIndex uint64) (*RegisterResult, error) {
	return c.registerJob(ctx, job, nil, nil, modifyIndex)
}

// registerJob is RegisterJob, with the fields berth's api structs do not
// hold (extra), keeping sub (when not nil) as the source the job was
// registered from, as `nomad job run` does.
func (c *Client) registerJob(ctx context.Context, job *api.Job, extra jobspec.Extras, sub *api.JobSubmission, modifyIndex uint64) (*RegisterResult, error) {
	ns, id := deref(job.Namespace), deref(job.ID)
	ambiguous := false
	res, err := retry(ctx, c.retry, "register job", func(ctx context.Context, attempt int) (*RegisterResult, bool, error) {
		resp, err := c.sendRegister(ctx, job, extra, sub, modifyIndex)
		switch {
		case err == nil:
			return &RegisterResult{EvalID: resp.EvalID, JobModifyIndex: resp.JobModifyIndex, Warnings: resp.Warnings}, false, nil
		case IsJobIndexConflict(err) && ambiguous:
			own, ownErr := c.ownRegistration(ctx, job, extra, modifyIndex)
			if ownErr != nil {
				return nil, false, &UncertainWriteError{Op: "register job", Err: fmt.Errorf("%w (and checking whether berth's "+
					"earlier attempt was applied failed: %v)", err, ownErr)}
			}
			if own != nil {
				tflog.Info(ctx, "An earlier register attempt whose answer was lost had been applied", map[string]any{
					"job": id, "namespace": ns, "job_modify_index": own.JobModifyIndex, "attempt": attempt,
				})
				return own, false, nil
			}
			return nil, false, err
		case IsJobIndexConflict(err):
			return nil, false, err // someone else's change
		case isTimeout(err) || isRetryable(err):
			ambiguous = true
			return nil, isRetryable(err), err
		}
		return nil, false, err
	})
	switch {
	case err == nil:
		return res, nil
	case !ambiguous:
		return nil, &WriteNotAppliedError{Err: c.classify(err, "register job")}
	}
	var uncertain *UncertainWriteError
	if errors.As(err, &uncertain) {
		return nil, err
	}
	// Every attempt failed after one whose answer was lost: find out,
	// with a fresh deadline (the operation's own may be what ended).
	settle, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	final := c.classify(err, "register job")
	live, readErr := c.getJob(settle, ns, id)
	switch {
	case readErr != nil:
		return nil, &UncertainWriteError{Op: "register job", Err: final}
	case live == nil && modifyIndex == 0, live != nil && live.JobModifyIndex != nil && *live.JobModifyIndex == modifyIndex:
		return nil, &WriteNotAppliedError{Err: final}
	}
	own, ownErr := c.ownRegistration(settle, job, extra, modifyIndex)
	switch {
	case ownErr != nil:
		return nil, &UncertainWriteError{Op: "register job", Err: final}
	case own != nil:
		tflog.Info(ctx, "A register attempt whose answer was lost had been applied", map[string]any{
			"job": id, "namespace": ns, "job_modify_index": own.JobModifyIndex,
		})
		return own, nil
	}
	// Someone else changed the job meanwhile; berth's write did not land.
	return nil, &WriteNotAppliedError{Err: final}
}

// UncertainWriteError says a write may or may not have been applied: its
// answer was lost and Nomad could not be asked afterwards. The caller must
// keep what may exist in state rather than forget it.
type UncertainWriteError struct {
	Op  string
	Err error
}

func (e *UncertainWriteError) Error() string {
	return fmt.Sprintf("%v; Nomad may or may not have carried out the %s", e.Err, e.Op)
}

func (e *UncertainWriteError) Unwrap() error { return e.Err }

// WriteNotAppliedError says a write was definitely not applied, even though
// Nomad's answer (a 5xx, say) alone would not tell, or was never sent.
type WriteNotAppliedError struct{ Err error }

func (e *WriteNotAppliedError) Error() string { return e.Err.Error() }
func (e *WriteNotAppliedError) Unwrap() error { return e.Err }

// ownRegistration reports whether the live job is the one berth sent, at a
// modify index past the one the write was checked against: Nomad plans job
// against the live job and finds no difference. It returns nil when the
// live job is someone else's. The evaluation is the one Nomad created for
// that register, so callers can wait on it as usual.
func (c *Client) ownRegistration(ctx context.Context, job *api.Job, extra jobspec.Extras, modifyIndex uint64) (*RegisterResult, error) {
	ns, id := deref(job.Namespace), deref(job.ID)
	live, err := c.getJob(ctx, ns, id)
	if err != nil || live == nil || live.JobModifyIndex == nil {
		return nil, err
	}
	index := *live.JobModifyIndex
	if modifyIndex != 0 && index <= modifyIndex {
		return nil, nil
	}
	plan, err := readRetry(ctx, c, "compare job", func(ctx context.Context) (*api.JobPlanResponse, error) {
		return c.sendPlan(ctx, job, extra, true)
	})
	if err != nil {
		return nil, err
	}
	if plan.Diff == nil || plan.Diff.Type != "None" {
		return nil, nil
	}
	evals, err := readRetry(ctx, c, "list job evaluations", func(ctx context.Context) ([]*api.Evaluation, error) {
		out, _, err := c.api.Jobs().Evaluations(id, c.query(ctx, &api.QueryOptions{Namespace: ns}))
		return out, err
	})
	if err != nil {
		return nil, err
	}
	res := &RegisterResult{JobModifyIndex: index}
	var first *api.Evaluation // the register's own, not a later reschedule
	for _, e := range evals {
		if e.JobModifyIndex == index && (first == nil || e.CreateIndex < first.CreateIndex) {
			first = e
		}
	}
	if first != nil {
		res.EvalID = first.ID
	}
	return res, nil
}

// ScaleJob sets a task group's count, with check-and-set: Nomad refuses if
// the job's modify index is no longer modifyIndex (which must not be 0).
func (c *Client) ScaleJob(ctx context.Context, namespace, id, group string, count int, reason string, modifyIndex uint64) (*RegisterResult, error) {
	resp, _, err := c.api.Jobs().ScaleWithRequest(id, &api.ScalingRequest{
		Count:          ptr(int64(count)),
		Target:         map[string]string{"Job": id, "Group": group},
		Message:        reason,
		JobModifyIndex: modifyIndex,
	}, c.write(ctx, namespace))
	if err != nil {
		return nil, c.classify(err, "scale job")
	}
	return &RegisterResult{EvalID: resp.EvalID, JobModifyIndex: resp.JobModifyIndex}, nil
}

// StopJob deregisters a job without purging it; purge removes it from
// Nomad's state as well. A job that does not exist is not an error.
func (c *Client) StopJob(ctx context.Context, namespace, id string, purge bool) error {
	_, _, err := c.deregister(ctx, namespace, id, purge)
	return err
}

// deregister stops (purge: and purges) a job and returns the evaluation
// Nomad created for it ("" for none) and the index it was written at.
func (c *Client) deregister(ctx context.Context, namespace, id string, purge bool) (string, uint64, error) {
	evalID, meta, err := c.api.Jobs().Deregister(id, purge, c.write(ctx, namespace))
	if err != nil && !IsNotFound(err) {
		return "", 0, c.classify(err, "stop job")
	}
	var index uint64
	if meta != nil {
		index = meta.LastIndex
	}
	return evalID, index, nil
}

// Removal says how far RemoveJob goes.
type Removal struct {
	// Purge removes the job from Nomad's state (`nomad job stop -purge`).
	Purge bool
	// UntilStopped waits until Nomad's clients have stopped the job's
	// allocations, not only its scheduler: a host volume can be deleted,
	// and a node reservation's hold placed, only after that.
	UntilStopped bool
}

// RemoveJob deregisters a job (purged with r.Purge, in the same request,
// as `nomad job stop -purge` does) and waits until Nomad's scheduler has
// stopped its allocations: the deregistration's evaluation is complete,
// so their room counts as free for every placement from then on. That is
// one blocking query on the evaluation. With r.UntilStopped it waits on
// the job's allocations instead, until none may still run
// (allocstatus.Live). A purged job's allocations stay readable until
// Nomad's garbage collection, which never takes live ones. Each step's
// error names the step.
func (c *Client) RemoveJob(ctx context.Context, namespace, id string, r Removal) error {
	evalID, index, err := c.deregister(ctx, namespace, id, r.Purge)
	if err != nil {
		return fmt.Errorf("stopping job %q: %w", id, err)
	}
	if r.UntilStopped {
		if err := c.WaitAllocationsStopped(ctx, namespace, id); err != nil {
			return fmt.Errorf("waiting for the allocations of job %q to stop: %w", id, err)
		}
		return nil
	}
	if evalID == "" {
		return nil // nothing to stop: Nomad made no evaluation
	}
	if err := c.waitEvalDone(ctx, namespace, id, evalID, index); err != nil {
		return fmt.Errorf("waiting for Nomad to stop the allocations of job %q: %w", id, err)
	}
	return nil
}

// waitEvalDone waits until evaluation evalID of job jobID, written at
// index, is no longer pending and fails unless it completed. Starting the
// blocking query at the write's index makes it one request in the usual
// case: the evaluation's next change is its end. An evaluation already
// garbage-collected ended long ago.
func (c *Client) waitEvalDone(ctx context.Context, namespace, jobID, evalID string, index uint64) error {
	eval, err := c.waitEval(ctx, namespace, jobID, evalID, index)
	if IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if eval.Status != "complete" {
		return fmt.Errorf("evaluation %s ended %q: %s", idPrefix(evalID), eval.Status, eval.StatusDescription)
	}
	return nil
}

// writeError types a failed call's error (ConnectError, TimeoutError)
// when the caller has no retry of its own.
func (c *Client) writeError(err error) error { return c.classify(err, "") }

func ptr[T any](v T) *T { return &v }

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

// poll calls step every interval until it reports done or returns an error,
// logging what it waits for every 15 s. It stops when ctx ends.
func poll(ctx context.Context, what string, interval time.Duration, step func() (done bool, state string, err error)) error {
	start := time.Now()
	lastLog := start
	var state string
	for {
		done, s, err := step()
		if err != nil && ctx.Err() != nil {
			// A blocking read was cut short by the deadline: that is the
			// wait ending, and what it last saw says why.
			return fmt.Errorf("gave up waiting for %s after %s (last state: %s): %w",
				what, time.Since(start).Round(time.Second), state, ctx.Err())
		}
		if err != nil {
			return err
		}
		if done {
			return nil
		}
		state = s
		if time.Since(lastLog) >= 15*time.Second {
			tflog.Info(ctx, "Waiting", map[string]any{
				"for": what, "elapsed": time.Since(start).Round(time.Second).String(), "state": state,
			})
			lastLog = time.Now()
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("gave up waiting for %s after %s (last state: %s): %w",
				what, time.Since(start).Round(time.Second), state, ctx.Err())
		case <-time.After(interval):
		}
	}
}
