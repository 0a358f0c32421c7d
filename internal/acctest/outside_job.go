package acctest

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"
)

// outsideWait bounds how long the wait helpers below wait for the scheduler.
const outsideWait = 2 * time.Minute

// NsOrDefault is the Nomad namespace a helper's empty ns stands for.
func NsOrDefault(ns string) string {
	if ns == "" {
		return "default"
	}
	return ns
}

// RegisterOutsideJob registers a plain service job in namespace ns (""
// means default) pinned to nodeID: node pool "all", a constraint on
// ${node.unique.id}, one allocation of one raw_exec task sleeping an hour
// with cpuMHz cpu and memMB memory, 10 MB of ephemeral disk (Nomad's
// minimum; its logs are kept below that), priority 50 (Nomad's default) and
// no update block. It returns the job's ID, fresh for every call, and
// purges the job when the test ends.
func RegisterOutsideJob(t *testing.T, ns, nodeID string, cpuMHz, memMB int) string {
	t.Helper()
	id := "berth-acc-outside-" + RandomHex(4)
	job := &api.Job{
		ID: Ptr(id), Name: Ptr(id), Namespace: Ptr(NsOrDefault(ns)),
		Type: Ptr(api.JobTypeService), Priority: Ptr(50),
		NodePool: Ptr(api.NodePoolAll), Datacenters: []string{"*"},
		Constraints: []*api.Constraint{api.NewConstraint("${node.unique.id}", "=", nodeID)},
		TaskGroups: []*api.TaskGroup{{
			Name:          Ptr("outside"),
			Count:         Ptr(1),
			EphemeralDisk: &api.EphemeralDisk{SizeMB: Ptr(10)},
			Tasks: []*api.Task{{
				Name: "sleep", Driver: "raw_exec",
				Config:    map[string]any{"command": "/bin/sleep", "args": []string{"3600"}},
				Resources: &api.Resources{CPU: Ptr(cpuMHz), MemoryMB: Ptr(memMB)},
				LogConfig: &api.LogConfig{MaxFiles: Ptr(1), MaxFileSizeMB: Ptr(1)},
			}},
		}},
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, _, err := Nomad(t).Jobs().Register(job, (&api.WriteOptions{Namespace: NsOrDefault(ns)}).WithContext(ctx)); err != nil {
		t.Fatalf("registering outside job %s on node %s: %v", id, nodeID, err)
	}
	t.Cleanup(func() { PurgeOutsideJob(t, ns, id) })
	return id
}

// PurgeOutsideJob deregisters and purges a job; a job already gone is fine.
// Its allocation is stopped, which frees its share of the node.
func PurgeOutsideJob(t *testing.T, ns, jobID string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, _, err := Nomad(t).Jobs().Deregister(jobID, true, (&api.WriteOptions{Namespace: NsOrDefault(ns)}).WithContext(ctx))
	if err != nil && !IsNotFound(err) {
		t.Errorf("purging job %s: %v", jobID, err)
	}
}

func IsNotFound(err error) bool {
	var ure api.UnexpectedResponseError
	return errors.As(err, &ure) && ure.StatusCode() == 404
}

// WaitNotPlaced waits until Nomad's scheduler has refused to place the job
// and holds it back: an evaluation of the job completed with failed
// placements, a blocked evaluation waits for capacity, no evaluation is
// still pending, and the job has no live (non-terminal) allocation. It
// returns the failed placement's metrics (one of them, if several task
// groups failed), where DimensionExhausted names what ran out. It fails the
// test, describing the job's evaluations and allocations, when that does
// not happen within two minutes.
func WaitNotPlaced(t *testing.T, ns, jobID string) *api.AllocationMetric {
	t.Helper()
	var failed *api.AllocationMetric
	watchJob(t, ns, jobID, "refused placement (failed placements, a blocked evaluation, no live allocation)", false,
		func(evals []*api.Evaluation, allocs []*api.AllocationListStub) bool {
			failed = nil
			blocked := false
			for _, e := range evals {
				switch e.Status {
				case api.EvalStatusPending:
					return false
				case api.EvalStatusBlocked:
					blocked = true
				case api.EvalStatusComplete:
					for _, m := range e.FailedTGAllocs {
						failed = m
					}
				}
			}
			return failed != nil && blocked && len(LiveAllocs(allocs)) == 0
		})
	return failed
}

// WaitPlaced waits until the job has a running allocation on nodeID.
func WaitPlaced(t *testing.T, ns, jobID, nodeID string) {
	t.Helper()
	watchJob(t, ns, jobID, "running on node "+nodeID, true,
		func(_ []*api.Evaluation, allocs []*api.AllocationListStub) bool {
			for _, a := range LiveAllocs(allocs) {
				if a.NodeID == nodeID && a.ClientStatus == api.AllocClientStatusRunning {
					return true
				}
			}
			return false
		})
}

// LiveAllocs are the allocations that still count against their node.
func LiveAllocs(allocs []*api.AllocationListStub) []*api.AllocationListStub {
	var live []*api.AllocationListStub
	for _, a := range allocs {
		switch {
		case a.DesiredStatus == api.AllocDesiredStatusStop || a.DesiredStatus == api.AllocDesiredStatusEvict:
		case a.ClientStatus == api.AllocClientStatusComplete || a.ClientStatus == api.AllocClientStatusFailed ||
			a.ClientStatus == api.AllocClientStatusLost:
		default:
			live = append(live, a)
		}
	}
	return live
}

// watchJob reads the job's evaluations and allocations until done holds,
// with blocking queries: on the allocations when onAllocs (a client
// reporting a task running changes only those), otherwise on the
// evaluations (every scheduling decision ends in one). Each round reads
// both, so done always sees a consistent pair as of that round.
func watchJob(t *testing.T, ns, jobID, what string, onAllocs bool,
	done func([]*api.Evaluation, []*api.AllocationListStub) bool,
) {
	t.Helper()
	c := Nomad(t)
	ctx, cancel := context.WithTimeout(context.Background(), outsideWait)
	defer cancel()
	var (
		index   uint64
		evals   []*api.Evaluation // as of the last round that read both
		allocs  []*api.AllocationListStub
		lastErr error // the last failed query that was not cut off by the deadline
	)
	for {
		q := func(wait bool) *api.QueryOptions {
			o := &api.QueryOptions{Namespace: NsOrDefault(ns)}
			if wait {
				o.WaitIndex, o.WaitTime = index, 5*time.Second
			}
			return o.WithContext(ctx)
		}
		var (
			es   []*api.Evaluation
			as   []*api.AllocationListStub
			meta *api.QueryMeta
			err  error
		)
		if onAllocs {
			as, meta, err = c.Jobs().Allocations(jobID, true, q(true))
			if err == nil {
				es, _, err = c.Jobs().Evaluations(jobID, q(false))
			}
		} else {
			es, meta, err = c.Jobs().Evaluations(jobID, q(true))
			if err == nil {
				as, _, err = c.Jobs().Allocations(jobID, true, q(false))
			}
		}
		if err == nil {
			evals, allocs = es, as
			if done(evals, allocs) {
				return
			}
			// An index going backwards (a new leader, a snapshot restore)
			// restarts the watch, as Nomad's blocking query docs advise; a
			// zero index would not block at all.
			prev := index
			index = max(meta.LastIndex, 1)
			if meta.LastIndex < prev {
				index = 1
			}
		} else if ctx.Err() == nil {
			lastErr = err
		}
		if ctx.Err() != nil {
			t.Fatalf("job %s in namespace %s was not %s within %s (last query error: %v); what Nomad last said:\n%s",
				jobID, NsOrDefault(ns), what, outsideWait, lastErr, describeJobState(evals, allocs))
		}
		if err != nil {
			// A failed query returns at once; don't spin on it.
			select {
			case <-ctx.Done():
			case <-time.After(250 * time.Millisecond):
			}
		}
	}
}

// describeJobState lists evaluations and allocations for a failure message.
func describeJobState(evals []*api.Evaluation, allocs []*api.AllocationListStub) string {
	var b strings.Builder
	if len(evals) == 0 && len(allocs) == 0 {
		return "  no evaluation and no allocation of this job: is it registered, in this namespace?\n"
	}
	sort.Slice(evals, func(i, j int) bool { return evals[i].CreateIndex < evals[j].CreateIndex })
	fmt.Fprintf(&b, "evaluations (%d):\n", len(evals))
	for _, e := range evals {
		fmt.Fprintf(&b, "  %s %s triggered by %s", shortID(e.ID), e.Status, e.TriggeredBy)
		if e.StatusDescription != "" {
			fmt.Fprintf(&b, " (%s)", e.StatusDescription)
		}
		if e.BlockedEval != "" {
			fmt.Fprintf(&b, ", blocked eval %s", shortID(e.BlockedEval))
		}
		for tg, m := range e.FailedTGAllocs {
			fmt.Fprintf(&b, ", group %q failed: %d nodes evaluated, %d filtered, %d exhausted, dimensions %v, constraints %v",
				tg, m.NodesEvaluated, m.NodesFiltered, m.NodesExhausted, m.DimensionExhausted, m.ConstraintFiltered)
		}
		b.WriteByte('\n')
	}
	fmt.Fprintf(&b, "allocations (%d):\n", len(allocs))
	for _, a := range allocs {
		fmt.Fprintf(&b, "  %s on node %s: desired %s, client %s\n", shortID(a.ID), shortID(a.NodeID), a.DesiredStatus, a.ClientStatus)
	}
	return b.String()
}

func shortID(id string) string {
	if len(id) > 8 {
		return id[:8]
	}
	return id
}
