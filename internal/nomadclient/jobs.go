package nomadclient

import (
	"context"
	"fmt"
	"time"

	"github.com/hashicorp/nomad/api"
	"github.com/hashicorp/terraform-plugin-log/tflog"
)

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

// RegisterJob registers job with check-and-set: modifyIndex 0 means the job
// must not exist yet, otherwise Nomad refuses if the job's modify index moved.
// Writes are not retried: a lost answer would make a retry ambiguous.
func (c *Client) RegisterJob(ctx context.Context, job *api.Job, modifyIndex uint64) (*RegisterResult, error) {
	ns := ""
	if job.Namespace != nil {
		ns = *job.Namespace
	}
	resp, _, err := c.api.Jobs().RegisterOpts(job, &api.RegisterOptions{EnforceIndex: true, ModifyIndex: modifyIndex},
		(&api.WriteOptions{Namespace: ns}).WithContext(ctx))
	if err != nil {
		return nil, c.writeError(err)
	}
	return &RegisterResult{EvalID: resp.EvalID, JobModifyIndex: resp.JobModifyIndex, Warnings: resp.Warnings}, nil
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
		return nil, c.writeError(err)
	}
	return &RegisterResult{EvalID: resp.EvalID, JobModifyIndex: resp.JobModifyIndex}, nil
}

// StopJob deregisters a job without purging it; purge removes it from
// Nomad's state as well. A job that does not exist is not an error.
func (c *Client) StopJob(ctx context.Context, namespace, id string, purge bool) error {
	_, _, err := c.api.Jobs().Deregister(id, purge, (&api.WriteOptions{Namespace: namespace}).WithContext(ctx))
	if err != nil && !IsNotFound(err) {
		return c.writeError(err)
	}
	return nil
}

func (c *Client) writeError(err error) error {
	if isConnectionError(err) {
		return &ConnectError{Address: c.address, Err: err}
	}
	return err
}

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
