package nomadclient

import (
	"context"
	"fmt"

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
		newest := newestAlloc(allocs)
		if newest == nil {
			return false, "no allocation yet", nil
		}
		ts := newest.TaskStates[task]
		switch {
		case ts != nil && (ts.State == "running" || ts.State == "dead" && !ts.Failed && !ts.StartedAt.IsZero()):
			// Running, or already ran to completion: it started.
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

func newestAlloc(allocs []*api.AllocationListStub) *api.AllocationListStub {
	var out *api.AllocationListStub
	for _, a := range allocs {
		if out == nil || a.CreateIndex > out.CreateIndex {
			out = a
		}
	}
	return out
}
