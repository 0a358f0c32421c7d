package instance

import (
	"github.com/hashicorp/nomad/api"

	"github.com/berthhq/terraform-provider-berth/internal/allocstatus"
)

// Status summarizes the allocations of an instance.
type Status string

const (
	StatusPending  Status = "pending"
	StatusStarting Status = "starting"
	StatusRunning  Status = "running"
	StatusDegraded Status = "degraded"
	StatusFailed   Status = "failed"
	StatusStopped  Status = "stopped"
	// StatusComplete: every allocation of a batch job's current version
	// exited successfully.
	StatusComplete Status = "complete"
)

// Statuses lists every Status, for docs and validators.
func Statuses() []Status {
	return []Status{StatusPending, StatusStarting, StatusRunning, StatusDegraded, StatusFailed, StatusStopped, StatusComplete}
}

// Task states reported by Nomad clients (nomad/structs TaskState*).
const taskStatePending = "pending"

// DeriveStatus computes the instance status from the job's stop flag, its
// current version and its allocations (as listed by /v1/job/:id/allocations).
//
// Only current allocations count. An allocation is ignored when:
//  1. it has a NextAllocation (Nomad replaced it: reschedule or update);
//  2. its DesiredStatus is not "run" (Nomad is stopping or has stopped it on
//     purpose: scale down, update, job stop);
//  3. its ClientStatus is "complete" (it ended cleanly; for a service job
//     that only happens when it was stopped);
//  4. its JobVersion is older than the newest version with a running
//     allocation (that version replaced it), or, when nothing runs, older
//     than the newest version with a pending allocation (the replacement is
//     being placed); while a newer version is only pending, older running
//     allocations still serve and count, so an update in progress reads as
//     "starting";
//  5. no allocation is live (allocstatus.Live) and its JobVersion is older
//     than jobVersion (it failed with a spec that has since been replaced,
//     e.g. the image was fixed and the new allocations are not placed yet).
//
// "Running" in rule 4 includes "unknown": by berth's one rule
// (allocstatus.Live) an allocation on a disconnected client may still run,
// so it is never treated as stopped here either.
//
// Each remaining allocation is classified as:
//   - pending: ClientStatus "pending";
//   - failed: ClientStatus "failed", "lost" or "unknown" (a disconnected
//     client cannot vouch for it), or running but marked unhealthy by its
//     deployment (DeploymentStatus.Healthy == false);
//   - starting: running, but some task is still in state "pending" (an init
//     task is running, a main or sidecar task has not started), or its
//     deployment has not decided on health yet (DeploymentStatus set with
//     Healthy nil);
//   - healthy: running otherwise. Allocations outside a deployment
//     (DeploymentStatus nil) are healthy once all tasks have started.
//
// The status is then, first match wins:
//   - stopped: the job is stopped (allocations may still be shutting down);
//   - pending: no current allocation, or all current allocations pending;
//   - failed: all current allocations failed;
//   - degraded: some failed and some not (running, starting or pending);
//   - running: all current allocations healthy;
//   - starting: otherwise (a mix of pending, starting and healthy).
func DeriveStatus(jobStopped bool, jobVersion uint64, allocs []*api.AllocationListStub) Status {
	if jobStopped {
		return StatusStopped
	}
	current := currentAllocs(jobVersion, allocs)

	var pending, failed, starting, healthy int
	for _, a := range current {
		switch allocState(a) {
		case StatusPending:
			pending++
		case StatusFailed:
			failed++
		case StatusStarting:
			starting++
		default:
			healthy++
		}
	}
	n := len(current)
	switch {
	case n == 0 || pending == n:
		return StatusPending
	case failed == n:
		return StatusFailed
	case failed > 0:
		return StatusDegraded
	case healthy == n:
		return StatusRunning
	default:
		return StatusStarting
	}
}

// currentAllocs applies rules 1–5 of DeriveStatus.
func currentAllocs(jobVersion uint64, allocs []*api.AllocationListStub) []*api.AllocationListStub {
	var candidates []*api.AllocationListStub
	var newestRunning, newestPending uint64
	running, pending := false, false
	for _, a := range allocs {
		if a == nil || a.NextAllocation != "" ||
			(a.DesiredStatus != "" && a.DesiredStatus != api.AllocDesiredStatusRun) ||
			a.ClientStatus == api.AllocClientStatusComplete {
			continue
		}
		candidates = append(candidates, a)
		switch {
		case a.ClientStatus == allocstatus.Pending:
			newestPending, pending = max(newestPending, a.JobVersion), true
		case allocstatus.Live(a.ClientStatus): // running or unknown
			newestRunning, running = max(newestRunning, a.JobVersion), true
		}
	}
	// Rule 4: a version supersedes older ones once it runs; while it is only
	// being placed, the older running allocations still serve and count.
	// Rule 5: without live allocations the job's own version is the one that
	// matters: failures of older versions say nothing about the current spec.
	var cutoff uint64
	switch {
	case running:
		cutoff = newestRunning
	case pending:
		cutoff = newestPending
	default:
		cutoff = jobVersion
	}
	var out []*api.AllocationListStub
	for _, a := range candidates {
		if a.JobVersion >= cutoff {
			out = append(out, a)
		}
	}
	return out
}

// allocState classifies one current allocation, reusing Status values:
// pending, failed, starting or running (healthy).
func allocState(a *api.AllocationListStub) Status {
	switch a.ClientStatus {
	case api.AllocClientStatusPending:
		return StatusPending
	case api.AllocClientStatusRunning:
	default: // failed, lost, unknown
		return StatusFailed
	}
	if ds := a.DeploymentStatus; ds != nil {
		if ds.Healthy != nil && !*ds.Healthy {
			return StatusFailed
		}
		if ds.Healthy == nil {
			return StatusStarting
		}
	}
	for _, ts := range a.TaskStates {
		if ts != nil && ts.State == taskStatePending {
			return StatusStarting
		}
	}
	return StatusRunning
}
