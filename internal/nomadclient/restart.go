package nomadclient

import (
	"context"
	"fmt"
	"sort"

	"github.com/hashicorp/nomad/api"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/berthhq/terraform-provider-berth/internal/allocstatus"
)

// RestartAllocations restarts the running tasks of each running allocation
// of a job in place, one allocation at a time, waiting for every restarted
// task to run again before moving on. The job is not re-registered, so its
// version does not change. The error names the allocation that did not
// come back.
func (c *Client) RestartAllocations(ctx context.Context, namespace, jobID string) error {
	_, err := c.RestartAllocationsReporting(ctx, namespace, jobID, nil)
	return err
}

// RestartAllocationsReporting is RestartAllocations that calls progress
// (when not nil) as each allocation comes back, and returns how many were
// restarted.
func (c *Client) RestartAllocationsReporting(ctx context.Context, namespace, jobID string, progress func(done, total int, alloc string)) (int, error) {
	allocs, err := c.jobAllocations(ctx, namespace, jobID)
	if err != nil {
		return 0, err
	}
	sort.Slice(allocs, func(i, j int) bool { return allocs[i].Name < allocs[j].Name })
	var running []*api.AllocationListStub
	for _, stub := range allocs {
		if stub.ClientStatus == api.AllocClientStatusRunning && stub.DesiredStatus == api.AllocDesiredStatusRun {
			running = append(running, stub)
		}
	}
	for i, stub := range running {
		if err := c.restartOne(ctx, namespace, stub); err != nil {
			return i, err
		}
		if progress != nil {
			progress(i+1, len(running), stub.Name)
		}
	}
	return len(running), nil
}

func (c *Client) restartOne(ctx context.Context, namespace string, stub *api.AllocationListStub) error {
	alloc, index, err := c.allocationAfter(ctx, namespace, stub.ID, 0)
	if err != nil {
		return err
	}
	// Remember which tasks run now and how often they restarted, to know
	// when each has come back.
	before := map[string]uint64{}
	for name, ts := range alloc.TaskStates {
		if ts != nil && ts.State == "running" {
			before[name] = ts.Restarts
		}
	}
	tflog.Info(ctx, "Restarting allocation", map[string]any{"allocation": alloc.ID, "tasks": len(before)})
	if err := c.api.Allocations().Restart(alloc, "", c.query(ctx, &api.QueryOptions{Namespace: namespace})); err != nil {
		return fmt.Errorf("restarting allocation %s: %w", alloc.ID, c.writeError(err))
	}
	what := fmt.Sprintf("allocation %s (%s) to run again after restart", idPrefix(alloc.ID), alloc.Name)
	err = poll(ctx, what, blockingPause, func() (bool, string, error) {
		a, next, err := c.allocationAfter(ctx, namespace, alloc.ID, index)
		if err != nil {
			return false, "", err
		}
		index = next
		if !allocstatus.Live(a.ClientStatus) {
			return false, "", fmt.Errorf("allocation %s (%s) did not come back after the restart: it is %s; %s",
				alloc.ID, alloc.Name, a.ClientStatus, lastEventsOf(a.TaskStates))
		}
		for name, restarts := range before {
			ts := a.TaskStates[name]
			if ts == nil || ts.Restarts <= restarts || ts.State != "running" {
				return false, fmt.Sprintf("task %q not running again yet", name), nil
			}
		}
		return true, "", nil
	})
	if err != nil {
		return fmt.Errorf("restart of allocation %s (%s): %w", alloc.ID, alloc.Name, err)
	}
	return nil
}

// allocationAfter reads an allocation, with retries; with index > 0 it is
// a blocking query that returns once the allocation changed after index
// (or the wait ends). It also returns the index to wait on next.
func (c *Client) allocationAfter(ctx context.Context, namespace, id string, index uint64) (*api.Allocation, uint64, error) {
	type read struct {
		alloc *api.Allocation
		index uint64
	}
	r, err := readRetry(ctx, c, "reading allocation "+id, func(ctx context.Context) (read, error) {
		a, meta, err := c.api.Allocations().Info(id, c.query(ctx, blocking(ctx, namespace, index)))
		if err != nil {
			return read{}, err
		}
		return read{a, meta.LastIndex}, nil
	})
	return r.alloc, r.index, err
}

func lastEventsOf(states map[string]*api.TaskState) string {
	names := make([]string, 0, len(states))
	for n := range states {
		names = append(names, n)
	}
	sort.Strings(names)
	out := ""
	for _, n := range names {
		if ts := states[n]; ts != nil {
			out += fmt.Sprintf("task %q: %s. ", n, lastEvents(ts.Events, 3))
		}
	}
	return out
}
