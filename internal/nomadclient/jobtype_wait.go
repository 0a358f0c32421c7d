package nomadclient

import (
	"context"
	"fmt"
	"sort"

	"github.com/hashicorp/nomad/api"

	"github.com/berthhq/terraform-provider-berth/internal/allocstatus"
)

// WaitBatchComplete follows a batch job's registration to its end: the
// evaluation must place everything, then every allocation of the job
// version it produced must exit successfully. It fails as soon as one of
// them fails (or is lost), quoting its tasks' exit codes and last events,
// without waiting for Nomad to reschedule it. A version that placed
// nothing new (an earlier version's allocations ended) is done once
// nothing of the job still runs.
func (c *Client) WaitBatchComplete(ctx context.Context, namespace, jobID, evalID string) error {
	version, err := c.placedVersion(ctx, namespace, jobID, evalID)
	if err != nil {
		return err
	}
	var index uint64
	return poll(ctx, fmt.Sprintf("batch job %q (version %d) to complete", jobID, version), blockingPause, func() (bool, string, error) {
		allocs, next, err := c.jobAllocationsAfter(ctx, namespace, jobID, index, min(blockingWait(ctx), rolloutMaxWait))
		index = next
		if err != nil {
			return false, "", err
		}
		return batchOutcome(jobID, version, allocs)
	})
}

// batchOutcome decides a batch wait from the job's allocations.
func batchOutcome(jobID string, version uint64, allocs []*api.AllocationListStub) (bool, string, error) {
	var failed []*api.AllocationListStub
	live, done := 0, 0
	for _, a := range allocs {
		if allocstatus.Live(a.ClientStatus) {
			live++
		}
		if a.JobVersion != version || a.DesiredStatus != api.AllocDesiredStatusRun {
			continue
		}
		switch a.ClientStatus {
		case api.AllocClientStatusFailed, api.AllocClientStatusLost:
			failed = append(failed, a)
		case api.AllocClientStatusComplete:
			done++
		}
	}
	if len(failed) > 0 {
		return false, "", &RolloutError{JobID: jobID, Reason: fmt.Sprintf("batch job version %d failed", version),
			Details: ExitDetails(failed), Outcome: "complete"}
	}
	return live == 0, fmt.Sprintf("%d completed, %d still pending or running", done, live), nil
}

// WaitSystemRunning follows a system job's registration until every node
// Nomad's scheduler chose runs the job's current version: the evaluation
// must place everything (a node without room fails it), then each
// allocation the job should run (desired status "run") must be of the
// current version with all its tasks started. Nomad 1.10 runs no
// deployment for system jobs, so there is no health to wait for, and a
// rolling update (max_parallel, stagger) is followed through Nomad's own
// follow-up evaluations. Nodes that cannot run the job at all (another
// node pool or datacenter, ineligible, draining, down, without the task
// driver) are filtered by the scheduler and not waited for. It fails as
// soon as an allocation of the current version fails.
func (c *Client) WaitSystemRunning(ctx context.Context, namespace, jobID, evalID string) error {
	version, err := c.placedVersion(ctx, namespace, jobID, evalID)
	if err != nil {
		return err
	}
	var index uint64
	return poll(ctx, fmt.Sprintf("system job %q (version %d) to run on every node", jobID, version), blockingPause, func() (bool, string, error) {
		allocs, next, err := c.jobAllocationsAfter(ctx, namespace, jobID, index, min(blockingWait(ctx), rolloutMaxWait))
		index = next
		if err != nil {
			return false, "", err
		}
		return systemOutcome(jobID, version, allocs)
	})
}

// systemOutcome decides a system wait from the job's allocations.
func systemOutcome(jobID string, version uint64, allocs []*api.AllocationListStub) (bool, string, error) {
	var failed []*api.AllocationListStub
	nodes, running, old := 0, 0, 0
	for _, a := range allocs {
		if a.DesiredStatus != api.AllocDesiredStatusRun || a.NextAllocation != "" {
			continue
		}
		if a.JobVersion != version {
			if allocstatus.Live(a.ClientStatus) {
				nodes++
				old++
			}
			continue
		}
		switch {
		case a.ClientStatus == api.AllocClientStatusFailed || a.ClientStatus == api.AllocClientStatusLost:
			failed = append(failed, a)
		case a.ClientStatus == api.AllocClientStatusComplete:
			// A system task that exited cleanly: Nomad leaves it so.
		case tasksStarted(a):
			nodes++
			running++
		default:
			nodes++
		}
	}
	if len(failed) > 0 {
		return false, "", &RolloutError{JobID: jobID, Reason: fmt.Sprintf("system job version %d failed on %s", version, plural(len(failed), "node")),
			Details: ExitDetails(failed), Outcome: "run on every node"}
	}
	state := fmt.Sprintf("%d of %d nodes run version %d", running, nodes, version)
	if old > 0 {
		state += fmt.Sprintf(", %d still on an older version", old)
	}
	return running == nodes, state, nil
}

// placedVersion waits for the evaluation to place everything and returns
// the job version it placed.
func (c *Client) placedVersion(ctx context.Context, namespace, jobID, evalID string) (uint64, error) {
	if err := c.waitPlaced(ctx, namespace, jobID, evalID); err != nil {
		return 0, err
	}
	job, err := c.getJob(ctx, namespace, jobID)
	if err != nil {
		return 0, err
	}
	if job == nil {
		return 0, fmt.Errorf("job %q disappeared from namespace %q", jobID, namespace)
	}
	return deref(job.Version), nil
}

// ExitDetails describes failed allocations task by task: the exit code of
// each task's last run when it ended with one, and its last events.
func ExitDetails(allocs []*api.AllocationListStub) []string {
	sort.Slice(allocs, func(i, j int) bool {
		return allocs[i].Name < allocs[j].Name || allocs[i].Name == allocs[j].Name && allocs[i].ID < allocs[j].ID
	})
	var out []string
	for _, a := range allocs {
		names := make([]string, 0, len(a.TaskStates))
		for name, ts := range a.TaskStates {
			if ts != nil && (ts.Failed || lastExitCode(ts) != 0) {
				names = append(names, name)
			}
		}
		sort.Strings(names)
		for _, name := range names {
			ts := a.TaskStates[name]
			exit := ""
			if code := lastExitCode(ts); code != 0 {
				exit = fmt.Sprintf(" with exit code %d", code)
			}
			out = append(out, fmt.Sprintf("allocation %s on node %s: task %q failed%s (restarts %d): %s",
				idPrefix(a.ID), nodeLabel(a), name, exit, ts.Restarts, lastEvents(ts.Events, 3)))
		}
		if len(names) == 0 {
			out = append(out, fmt.Sprintf("allocation %s on node %s is %s: %s", idPrefix(a.ID), nodeLabel(a), a.ClientStatus, a.ClientDescription))
		}
	}
	return out
}

// lastExitCode is the exit code of the task's newest "Terminated" event,
// 0 when there is none.
func lastExitCode(ts *api.TaskState) int {
	for i := len(ts.Events) - 1; i >= 0; i-- {
		if e := ts.Events[i]; e != nil && e.Type == api.TaskTerminated {
			return e.ExitCode
		}
	}
	return 0
}

// tasksStarted: the allocation runs and none of its tasks waits to start
// (an init task that already exited is "dead", which is fine).
func tasksStarted(a *api.AllocationListStub) bool {
	if a.ClientStatus != api.AllocClientStatusRunning {
		return false
	}
	for _, ts := range a.TaskStates {
		if ts == nil || ts.State == "pending" {
			return false
		}
	}
	return true
}
