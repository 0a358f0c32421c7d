package nomadclient

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/nomad/api"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/berthhq/terraform-provider-berth/internal/allocstatus"
)

// WaitTaskRunning follows a batch registration until the named task of
// the job's newest allocation runs. It fails with the scheduler's reasons
// when nothing could be placed, and with the task's events when the task
// failed or the allocation ended first. It waits with Nomad blocking
// queries on the job's allocations, each bounded by ctx's deadline.
func (c *Client) WaitTaskRunning(ctx context.Context, namespace, jobID, evalID, task string) error {
	_, err := c.waitTaskRunning(ctx, namespace, jobID, evalID, task)
	return err
}

// waitTaskRunning is WaitTaskRunning, returning the allocation whose task
// runs.
func (c *Client) waitTaskRunning(ctx context.Context, namespace, jobID, evalID, task string) (*api.AllocationListStub, error) {
	if err := c.waitPlaced(ctx, namespace, jobID, evalID); err != nil {
		return nil, err
	}
	what := fmt.Sprintf("task %q of job %q to run", task, jobID)
	start, lastLog := time.Now(), time.Now()
	state := "no allocation yet"
	var index uint64
	var wait time.Duration
	for {
		allocs, next, err := c.jobAllocationsAfter(ctx, namespace, jobID, index, wait)
		if err != nil {
			if ctx.Err() != nil {
				return nil, gaveUp(ctx, what, start, state)
			}
			return nil, err
		}
		index = max(next, 1) // never 0, which would not block
		newest := NewestAllocation(allocs)
		var settle time.Duration
		if newest != nil {
			running, err := taskStarted(newest, jobID, task)
			if running != nil || err != nil {
				return running, err
			}
			state, settle = taskState(newest, task)
		}
		if time.Since(lastLog) >= 15*time.Second {
			tflog.Info(ctx, "Waiting", map[string]any{"for": what, "elapsed": time.Since(start).Round(time.Second).String(), "state": state})
			lastLog = time.Now()
		}
		if ctx.Err() != nil {
			return nil, gaveUp(ctx, what, start, state)
		}
		// Nothing wakes a blocking query when a running task merely passes
		// settleTime, so wait no longer than that for it.
		wait = blockingWait(ctx)
		if settle > 0 && settle < wait {
			wait = settle
		}
	}
}

// taskStarted returns the allocation when task counts as started, or the
// error when it cannot start any more; (nil, nil) while it may still.
func taskStarted(a *api.AllocationListStub, jobID, task string) (*api.AllocationListStub, error) {
	ts := a.TaskStates[task]
	switch {
	case ts != nil && ts.State == "running" && allRunning(a) && time.Since(ts.StartedAt) >= settleTime,
		ts != nil && ts.State == "dead" && !ts.Failed && !ts.StartedAt.IsZero():
		// Running for a moment once the whole allocation runs (the client
		// reports task deaths late while other tasks of the allocation are
		// still starting, so a command that fails at once is seen "running"
		// until then), or already ran to completion.
		return a, nil
	case ts != nil && ts.Failed, !allocstatus.Live(a.ClientStatus):
		return nil, &RolloutError{JobID: jobID, Reason: fmt.Sprintf("task %q did not start", task),
			Details: FailedTaskEvents([]*api.AllocationListStub{a})}
	}
	return nil, nil
}

// taskState names the task's state for progress logs and says how long a
// running task still has to settle (0 when it is not running).
func taskState(a *api.AllocationListStub, task string) (string, time.Duration) {
	ts := a.TaskStates[task]
	if ts == nil {
		return "task pending", 0
	}
	if ts.State == "running" {
		return "task running", max(settleTime-time.Since(ts.StartedAt), 10*time.Millisecond)
	}
	return "task " + ts.State, 0
}

// jobAllocationsAfter lists the job's allocations once Nomad's index
// passes index, or after wait (index 0: at once). It returns the index to
// wait on next.
func (c *Client) jobAllocationsAfter(ctx context.Context, namespace, jobID string, index uint64, wait time.Duration) ([]*api.AllocationListStub, uint64, error) {
	type answer struct {
		allocs []*api.AllocationListStub
		index  uint64
	}
	a, err := readRetry(ctx, c, "list job allocations", func(ctx context.Context) (answer, error) {
		q := &api.QueryOptions{Namespace: namespace}
		if index > 0 {
			q.WaitIndex, q.WaitTime = index, wait
		}
		out, meta, err := c.api.Jobs().Allocations(jobID, true, c.query(ctx, q))
		if err != nil {
			return answer{}, err
		}
		return answer{out, meta.LastIndex}, nil
	})
	if err != nil {
		return nil, index, fmt.Errorf("listing allocations of job %q: %w", jobID, err)
	}
	return a.allocs, a.index, nil
}

// maxBlockingWait caps one blocking query, so a lost wake-up costs at most
// this long.
const maxBlockingWait = time.Minute

// blockingWait is how long one blocking query may wait: until ctx's
// deadline, at most maxBlockingWait.
func blockingWait(ctx context.Context) time.Duration {
	wait := maxBlockingWait
	if d, ok := ctx.Deadline(); ok {
		wait = min(wait, time.Until(d))
	}
	return max(wait, 10*time.Millisecond)
}

// gaveUp is the error of a wait that ctx ended, worded like poll's.
func gaveUp(ctx context.Context, what string, start time.Time, state string) error {
	return fmt.Errorf("gave up waiting for %s after %s (last state: %s): %w",
		what, time.Since(start).Round(time.Second), state, ctx.Err())
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
	return a.ClientStatus == allocstatus.Running
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

// TaskOutcome is what the newest of a job's allocations says about one
// of its tasks, without Nomad's API types.
type TaskOutcome struct {
	// NodeID and AllocationID name the newest allocation; empty when the
	// job has none.
	NodeID, AllocationID string
	// Running: the task runs.
	Running bool
	// Failed: the task or its allocation failed, for the reason in Error.
	Failed bool
	Error  string
	// Address and Ports say where the workload's ports are: the node's
	// address, and each port label's "<address>:<port>" (filled by
	// WorkloadPorts).
	Address string
	Ports   map[string]string
	// Signature is the cluster's signature over the outcome
	// (LeaseResultSignature); "" when there is none.
	Signature string
	// Overrun: the lease ended, but Nomad still runs an allocation of it
	// (lease.Overruns).
	Overrun bool
}

// NewestTaskOutcome reads task's outcome from the newest allocation.
func NewestTaskOutcome(allocs []*api.AllocationListStub, task string) TaskOutcome {
	newest := NewestAllocation(allocs)
	if newest == nil {
		return TaskOutcome{}
	}
	out := TaskOutcome{NodeID: newest.NodeID, AllocationID: newest.ID}
	ts := newest.TaskStates[task]
	switch {
	case ts != nil && ts.Failed:
		out.Failed = true
		out.Error = strings.Join(FailedTaskEvents([]*api.AllocationListStub{newest}), "; ")
	case newest.ClientStatus == allocstatus.Failed || newest.ClientStatus == allocstatus.Lost:
		out.Failed = true
		out.Error = fmt.Sprintf("allocation %s is %s: %s", newest.ID, newest.ClientStatus, newest.ClientDescription)
	case ts != nil && ts.State == "running":
		out.Running = true
	}
	return out
}

// WorkloadPorts fills o's Address and Ports from its allocation's ports,
// for a running workload that has any (one read of the allocation).
func (c *Client) WorkloadPorts(ctx context.Context, namespace string, o *TaskOutcome) error {
	if !o.Running || o.AllocationID == "" {
		return nil
	}
	a, err := readRetry(ctx, c, "read allocation", func(ctx context.Context) (*api.Allocation, error) {
		out, _, err := c.api.Allocations().Info(o.AllocationID, c.query(ctx, &api.QueryOptions{Namespace: namespace}))
		return out, err
	})
	if err != nil {
		return fmt.Errorf("reading the ports of allocation %s: %w", o.AllocationID, err)
	}
	if a.AllocatedResources == nil {
		return nil
	}
	for _, p := range a.AllocatedResources.Shared.Ports {
		if o.Ports == nil {
			o.Ports = map[string]string{}
		}
		if o.Address == "" {
			o.Address = p.HostIP
		}
		o.Ports[p.Label] = net.JoinHostPort(p.HostIP, strconv.Itoa(p.Value))
	}
	return nil
}
