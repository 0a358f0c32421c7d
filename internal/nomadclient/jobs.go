package nomadclient

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"

	"github.com/hashicorp/nomad/api"
	"github.com/hashicorp/terraform-plugin-log/tflog"
)

// Job is a job as Nomad returns it. The provider holds it between calls here
// and the domain packages (instance reads it) without importing the Nomad
// API package itself.
type Job = api.Job

// GetJob reads a job. A job that does not exist returns (nil, nil).
func (c *Client) GetJob(ctx context.Context, namespace, id string) (*api.Job, error) {
	job, err := readRetry(ctx, c, "read job", func(ctx context.Context) (*api.Job, error) {
		out, _, err := c.api.Jobs().Info(id, c.query(ctx, &api.QueryOptions{Namespace: namespace}))
		return out, err
	})
	if IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading job %q in namespace %q: %w", id, namespace, err)
	}
	return job, nil
}

// JobAllocations lists a job's allocations, including terminal ones.
func (c *Client) JobAllocations(ctx context.Context, namespace, id string) ([]*api.AllocationListStub, error) {
	allocs, err := readRetry(ctx, c, "list job allocations", func(ctx context.Context) ([]*api.AllocationListStub, error) {
		out, _, err := c.api.Jobs().Allocations(id, true, c.query(ctx, &api.QueryOptions{Namespace: namespace}))
		return out, err
	})
	if err != nil {
		return nil, fmt.Errorf("listing allocations of job %q: %w", id, err)
	}
	return allocs, nil
}

// RegisterResult is what Nomad answered to a register or scale.
type RegisterResult struct {
	EvalID         string
	JobModifyIndex uint64
	Warnings       string
}

// MetaWriteHash is the job meta key where RegisterJob records a hash of
// the content it registers, so a retried write can recognize its own
// earlier attempt. Readers of job meta must ignore it (it is under the
// "berth." prefix that instance drift and lease reads skip).
const MetaWriteHash = "berth.write_hash"

// RegisterJob registers job with check-and-set: modifyIndex 0 means the job
// must not exist yet, otherwise Nomad refuses if the job's modify index moved.
//
// An attempt whose answer was lost (connection reset, 5xx, 429) is retried
// through the shared retry helper. Nomad may have applied that attempt, so
// the retry can meet "conflicting job modify index" caused by berth's own
// write: the job meta then carries the same write hash, and RegisterJob
// returns that registration instead of failing or writing twice. A conflict
// on a first attempt is always returned: someone else changed the job.
func (c *Client) RegisterJob(ctx context.Context, job *api.Job, modifyIndex uint64) (*RegisterResult, error) {
	job, hash, err := withWriteHash(job)
	if err != nil {
		return nil, err
	}
	ns := ""
	if job.Namespace != nil {
		ns = *job.Namespace
	}
	id := ""
	if job.ID != nil {
		id = *job.ID
	}
	ambiguous := false
	res, err := retry(ctx, c.retry, "register job", func(ctx context.Context, attempt int) (*RegisterResult, bool, error) {
		resp, _, err := c.api.Jobs().RegisterOpts(job, &api.RegisterOptions{EnforceIndex: true, ModifyIndex: modifyIndex},
			(&api.WriteOptions{Namespace: ns}).WithContext(ctx))
		switch {
		case err == nil:
			return &RegisterResult{EvalID: resp.EvalID, JobModifyIndex: resp.JobModifyIndex, Warnings: resp.Warnings}, false, nil
		case IsJobIndexConflict(err) && ambiguous:
			own, ownErr := c.ownRegistration(ctx, ns, id, hash, modifyIndex)
			if ownErr != nil {
				return nil, false, fmt.Errorf("%w (and checking whether berth's earlier attempt was applied failed: %v)", err, ownErr)
			}
			if own != nil {
				tflog.Info(ctx, "An earlier register attempt whose answer was lost had been applied", map[string]any{
					"job": id, "namespace": ns, "job_modify_index": own.JobModifyIndex, "attempt": attempt,
				})
				return own, false, nil
			}
			return nil, false, err
		case IsJobIndexConflict(err):
			return nil, false, err
		case isRetryable(err):
			ambiguous = true
			return nil, true, err
		}
		return nil, false, err
	})
	if err != nil {
		return nil, c.classify(err, "register job")
	}
	return res, nil
}

// withWriteHash returns a copy of job whose meta carries the hash of its
// content (computed without the hash key itself).
func withWriteHash(job *api.Job) (*api.Job, string, error) {
	cp := *job
	meta := make(map[string]string, len(job.Meta)+1)
	for k, v := range job.Meta {
		if k != MetaWriteHash {
			meta[k] = v
		}
	}
	cp.Meta = meta
	// encoding/json sorts map keys, so equal jobs encode equally.
	b, err := json.Marshal(&cp)
	if err != nil {
		return nil, "", fmt.Errorf("encoding job for its write hash: %w", err)
	}
	sum := sha256.Sum256(b)
	hash := hex.EncodeToString(sum[:16])
	meta[MetaWriteHash] = hash
	return &cp, hash, nil
}

// ownRegistration looks for berth's own earlier register of the job with
// this hash: the live job carries the hash at a modify index past the one
// the write was checked against. It returns nil when the live job is
// someone else's. The evaluation is the one Nomad created for that
// register, so callers can wait on it as usual.
func (c *Client) ownRegistration(ctx context.Context, ns, id, hash string, modifyIndex uint64) (*RegisterResult, error) {
	live, err := c.GetJob(ctx, ns, id)
	if err != nil || live == nil || live.Meta[MetaWriteHash] != hash || live.JobModifyIndex == nil {
		return nil, err
	}
	index := *live.JobModifyIndex
	if modifyIndex != 0 && index <= modifyIndex {
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
	}, (&api.WriteOptions{Namespace: namespace}).WithContext(ctx))
	if err != nil {
		return nil, c.classify(err, "scale job")
	}
	return &RegisterResult{EvalID: resp.EvalID, JobModifyIndex: resp.JobModifyIndex}, nil
}

// StopJob deregisters a job without purging it; purge removes it from
// Nomad's state as well. A job that does not exist is not an error.
func (c *Client) StopJob(ctx context.Context, namespace, id string, purge bool) error {
	_, _, err := c.api.Jobs().Deregister(id, purge, (&api.WriteOptions{Namespace: namespace}).WithContext(ctx))
	if err != nil && !IsNotFound(err) {
		return c.classify(err, "stop job")
	}
	return nil
}

// writeError types a failed call's error (ConnectError, TimeoutError)
// when the caller has no retry of its own.
func (c *Client) writeError(err error) error { return c.classify(err, "") }

func ptr[T any](v T) *T { return &v }

// poll calls step every interval until it reports done or returns an error,
// logging what it waits for every 15 s. It stops when ctx ends.
func poll(ctx context.Context, what string, interval time.Duration, step func() (done bool, state string, err error)) error {
	start := time.Now()
	lastLog := start
	var state string
	for {
		done, s, err := step()
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
