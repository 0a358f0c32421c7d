package nomadclient

import (
	"context"
	"fmt"
	"time"

	"github.com/hashicorp/nomad/api"
)

// WaitTaskRunning follows a batch registration until the named task of
// the job's newest allocation runs. It fails with the scheduler's reasons
// when nothing could be placed, and with the task's events when the task
// failed or the allocation ended first.
func (c *Client) WaitTaskRunning(ctx context.Context, namespace, jobID, evalID, task string) (*api.AllocationListStub, error) {
	if err := c.waitPlaced(ctx, namespace, jobID, evalID); err != nil {
		return nil, err
	}
	var running *api.AllocationListStub
	err := poll(ctx, fmt.Sprintf("task %q of job %q to run", task, jobID), pollInterval, func() (bool, string, error) {
		allocs, err := c.JobAllocations(ctx, namespace, jobID)
		if err != nil {
			return false, "", err
		}
		newest := NewestAllocation(allocs)
		if newest == nil {
			return false, "no allocation yet", nil
		}
		ts := newest.TaskStates[task]
		switch {
		case ts != nil && ts.State == "running" && allRunning(newest) && time.Since(ts.StartedAt) >= settleTime,
			ts != nil && ts.State == "dead" && !ts.Failed && !ts.StartedAt.IsZero():
			// Running for a moment once the whole allocation runs (the
			// client reports task deaths late while other tasks of the
			// allocation are still starting, so a command that fails at once
			// is seen "running" until then), or already ran to completion.
			running = newest
			return true, "", nil
		case ts != nil && ts.Failed, newest.ClientStatus == api.AllocClientStatusFailed,
			newest.ClientStatus == api.AllocClientStatusComplete, newest.ClientStatus == api.AllocClientStatusLost:
			return false, "", &RolloutError{JobID: jobID, Reason: fmt.Sprintf("task %q did not start", task),
				Details: FailedTaskEvents([]*api.AllocationListStub{newest})}
		}
		state := "pending"
		if ts != nil {
			state = ts.State
		}
		return false, "task " + state, nil
	})
	return running, err
}

// settleTime is how long a task must have been running to count as
// started.
const settleTime = time.Second

func allRunning(a *api.AllocationListStub) bool {
	for _, ts := range a.TaskStates {
		if ts == nil || ts.State != "running" {
			return false
		}
	}
	return a.ClientStatus == api.AllocClientStatusRunning
}

// NewestAllocation is the most recently created allocation, or nil.
func NewestAllocation(allocs []*api.AllocationListStub) *api.AllocationListStub {
	var out *api.AllocationListStub
	for _, a := range allocs {
		if out == nil || a.CreateIndex > out.CreateIndex {
			out = a
		}
	}
	return out
}
