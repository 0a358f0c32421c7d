package nomadclient

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/hashicorp/nomad/api"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/berthhq/terraform-provider-berth/internal/allocstatus"
)

// RolloutError says a job did not become healthy, with what Nomad reported:
// placement failures and the last events of the failed tasks.
type RolloutError struct {
	JobID        string
	DeploymentID string
	// DeploymentStatus is the deployment's status as Nomad shows it when
	// it did not fail (one Nomad left running); "" is "failed".
	DeploymentStatus string
	Reason           string   // e.g. "deployment failed: Failed due to unhealthy allocations"
	Details          []string // one line per failed placement or task
	// Outcome is what the job failed to do; "" is "become healthy".
	Outcome string
}

func (e *RolloutError) Error() string {
	var b strings.Builder
	outcome := e.Outcome
	if outcome == "" {
		outcome = "become healthy"
	}
	fmt.Fprintf(&b, "job %q did not %s: %s", e.JobID, outcome, e.Reason)
	for _, d := range e.Details {
		b.WriteString("\n  - ")
		b.WriteString(d)
	}
	return b.String()
}

// Waits use blocking queries: a read returns as soon as the evaluation,
// deployment or allocation changes (or after the wait), so berth neither
// polls Nomad on a timer nor notices a change late.
const (
	// rolloutMaxWait bounds one blocking read, so progress is logged
	// (poll logs at most every 15s, between reads).
	rolloutMaxWait = 15 * time.Second
	// blockingPause separates blocking reads: they return at once when
	// the index moved, and this keeps a stream of changes from spinning.
	blockingPause = 50 * time.Millisecond
)

// blocking returns query options that wait for a change after index, no
// longer than ctx's deadline (blockingWait) or rolloutMaxWait. The first
// read (index 0) does not block.
func blocking(ctx context.Context, namespace string, index uint64) *api.QueryOptions {
	q := &api.QueryOptions{Namespace: namespace}
	if index > 0 {
		q.WaitIndex, q.WaitTime = index, min(blockingWait(ctx), rolloutMaxWait)
	}
	return q
}

// WaitForRollout follows a registration to its end: the evaluation must
// place everything, and the deployment for the job version it produced
// must succeed. A deployment whose canaries Nomad does not promote by itself
// (auto_promote off) ends the wait once they are all placed and healthy:
// only a promotion moves it on (see AwaitingPromotion). A deployment Nomad
// leaves running once every group is healthy ends it too (see
// forgottenOutcome): then Deployment.Forgotten says what Nomad shows. It
// returns the deployment (nil when Nomad made none, e.g. for a stopped job
// or when nothing changed).
func (c *Client) WaitForRollout(ctx context.Context, namespace, jobID, evalID string) (*Deployment, error) {
	dep, forgotten, err := c.waitForRollout(ctx, namespace, jobID, evalID)
	out := deploymentOf(dep)
	if out != nil {
		out.Forgotten = forgotten
	}
	return out, err
}

func (c *Client) waitForRollout(ctx context.Context, namespace, jobID, evalID string) (*api.Deployment, string, error) {
	job, dep, err := c.placedDeployment(ctx, namespace, jobID, evalID)
	if err != nil || dep == nil {
		return nil, "", err
	}
	forgotten, err := c.waitDeployment(ctx, namespace, jobID, dep, manualPromotion(job), forgottenAfter(job))
	return dep, forgotten, err
}

// WaitForPlacement follows a registration until its evaluation placed
// everything and returns the deployment of the job version it produced as
// it stands, without waiting for it (nil when Nomad made none). It is for
// jobs whose allocations only a person marks healthy (health_check
// "manual"): nothing berth could wait for would end their deployment.
func (c *Client) WaitForPlacement(ctx context.Context, namespace, jobID, evalID string) (*Deployment, error) {
	dep, err := c.waitForPlacement(ctx, namespace, jobID, evalID)
	return deploymentOf(dep), err
}

func (c *Client) waitForPlacement(ctx context.Context, namespace, jobID, evalID string) (*api.Deployment, error) {
	_, dep, err := c.placedDeployment(ctx, namespace, jobID, evalID)
	return dep, err
}

// RegistrationLostError says that once a registration's evaluation ended,
// Nomad held an older version of the job than the one registered, with
// nothing newer written: the job's modify index is below the one the
// evaluation was made for (a write always moves it forward).
//
// Nomad does this when it marks an older version's deployment successful
// with a plan computed before the registration and applied after it:
// marking that version stable stores a copy of it as the job (the state
// store's updateJobStabilityImpl), which undoes the registration, and the
// evaluation then runs the old version. It takes an out-of-band change or
// an apply that did not wait for health, whose deployment is finishing
// just as the next registration lands; CPU load widens the window. By the
// time the registration's evaluation has ended that old deployment has
// ended too (Nomad runs a job's evaluations one at a time), so
// registering again, check-and-set against Live, sticks.
type RegistrationLostError struct {
	JobID string
	// Registered is the job modify index the registration wrote; Live
	// and LiveVersion are what Nomad holds instead.
	Registered, Live, LiveVersion uint64
}

func (e *RegistrationLostError) Error() string {
	return fmt.Sprintf("Nomad undid the registration of job %q (job modify index %d): it holds version %d (job modify index %d) "+
		"again, an older version whose deployment Nomad marked successful after the registration", e.JobID, e.Registered, e.LiveVersion, e.Live)
}

// placedDeployment waits for the evaluation and returns the job and the
// deployment of its current version (nil when there is none). A job older
// than the one the evaluation was for is a *RegistrationLostError.
func (c *Client) placedDeployment(ctx context.Context, namespace, jobID, evalID string) (*api.Job, *api.Deployment, error) {
	eval, err := c.placedEval(ctx, namespace, jobID, evalID)
	if err != nil {
		return nil, nil, err
	}
	job, err := c.getJob(ctx, namespace, jobID)
	if err != nil || job == nil {
		return nil, nil, err
	}
	if live := deref(job.JobModifyIndex); live < eval.JobModifyIndex {
		tflog.Warn(ctx, "Nomad holds an older version of the job than the one just registered", map[string]any{
			"job": jobID, "registered_index": eval.JobModifyIndex, "live_index": live, "live_version": deref(job.Version)})
		return nil, nil, &RegistrationLostError{JobID: jobID, Registered: eval.JobModifyIndex, Live: live, LiveVersion: deref(job.Version)}
	}
	dep, err := c.latestDeployment(ctx, namespace, jobID)
	if err != nil {
		return nil, nil, err
	}
	if dep == nil || job.Version == nil || dep.JobVersion != *job.Version {
		tflog.Debug(ctx, "No deployment for this job version", map[string]any{"job": jobID})
		return job, nil, nil
	}
	return job, dep, nil
}

// waitPlaced waits for an evaluation to finish and fails with the
// scheduler's reasons when it could not place everything.
func (c *Client) waitPlaced(ctx context.Context, namespace, jobID, evalID string) error {
	_, err := c.placedEval(ctx, namespace, jobID, evalID)
	return err
}

// placedEval is waitPlaced, returning the evaluation.
func (c *Client) placedEval(ctx context.Context, namespace, jobID, evalID string) (*api.Evaluation, error) {
	eval, err := c.waitEval(ctx, namespace, jobID, evalID, 0)
	if err != nil {
		return nil, err
	}
	if eval.Status != "complete" {
		return nil, &RolloutError{JobID: jobID, Reason: fmt.Sprintf("evaluation %s ended %q: %s", idPrefix(evalID), eval.Status, eval.StatusDescription)}
	}
	if len(eval.FailedTGAllocs) > 0 {
		return nil, &RolloutError{JobID: jobID, Reason: "Nomad could not place all allocations", Details: placementFailures(eval.FailedTGAllocs)}
	}
	return eval, nil
}

// waitEval waits with blocking reads, the first at index (0: none), until
// evaluation evalID of job jobID is no longer pending, and returns it.
func (c *Client) waitEval(ctx context.Context, namespace, jobID, evalID string, index uint64) (*api.Evaluation, error) {
	var eval *api.Evaluation
	err := poll(ctx, fmt.Sprintf("evaluation %s of job %q", idPrefix(evalID), jobID), blockingPause, func() (bool, string, error) {
		e, err := readRetry(ctx, c, "read evaluation", func(ctx context.Context) (*api.Evaluation, error) {
			out, meta, err := c.api.Evaluations().Info(evalID, c.query(ctx, blocking(ctx, namespace, index)))
			if meta != nil {
				index = meta.LastIndex
			}
			return out, err
		})
		if err != nil {
			return false, "", fmt.Errorf("reading evaluation %s: %w", evalID, c.writeError(err))
		}
		eval = e
		return e.Status != "pending", e.Status, nil
	})
	return eval, err
}

// waitDeployment waits until dep succeeds (updating *dep as it goes) and
// fails with its failure; with untilPromotable it also ends once the
// deployment waits for a promotion that it is ready for. A deployment that
// stays running with every group healthy for longer than forgotten (see
// forgottenAfter) ends it as forgottenOutcome decides: with a note saying
// what Nomad shows, or with its error.
func (c *Client) waitDeployment(ctx context.Context, namespace, jobID string, dep *api.Deployment, untilPromotable bool,
	forgotten time.Duration) (string, error) {
	what := fmt.Sprintf("deployment %s of job %q (version %d)", idPrefix(dep.ID), jobID, dep.JobVersion)
	var index uint64
	var note string
	watch := forgottenWatch{after: forgotten, now: c.clock}
	err := poll(ctx, what, blockingPause, func() (bool, string, error) {
		d, err := readRetry(ctx, c, "read deployment", func(ctx context.Context) (*api.Deployment, error) {
			q := blocking(ctx, namespace, index)
			watch.limit(q)
			out, meta, err := c.api.Deployments().Info(dep.ID, c.query(ctx, q))
			if meta != nil {
				index = meta.LastIndex
			}
			return out, err
		})
		if err != nil {
			return false, "", fmt.Errorf("reading deployment %s: %w", dep.ID, c.writeError(err))
		}
		*dep = *d
		switch d.Status {
		case api.DeploymentStatusSuccessful:
			return true, d.Status, nil
		case api.DeploymentStatusFailed, api.DeploymentStatusCancelled:
			return false, "", c.deploymentFailure(ctx, namespace, jobID, d)
		}
		if untilPromotable && awaitingPromotion(d) && canariesReady(d) {
			return true, d.Status, nil
		}
		if watch.stuck(d) {
			tflog.Warn(ctx, "Deployment still running although every group is healthy", map[string]any{
				"job": jobID, "deployment": d.ID, "for": watch.elapsed().String(), "state": deploymentProgress(d)})
			n, err := c.forgottenOutcome(ctx, namespace, jobID, d, watch.elapsed())
			note = n
			return err == nil, d.Status, err
		}
		return false, deploymentProgress(d), nil
	})
	return note, err
}

func deploymentProgress(d *api.Deployment) string {
	var parts []string
	for name, s := range d.TaskGroups {
		if s == nil {
			continue
		}
		parts = append(parts, fmt.Sprintf("%s: %d/%d healthy, %d unhealthy", name, s.HealthyAllocs, s.DesiredTotal, s.UnhealthyAllocs))
	}
	sort.Strings(parts)
	return d.Status + " (" + strings.Join(parts, "; ") + ")"
}

// deploymentFailure explains a failed deployment with the events of the
// tasks that failed in its allocations.
func (c *Client) deploymentFailure(ctx context.Context, namespace, jobID string, d *api.Deployment) error {
	re := &RolloutError{JobID: jobID, DeploymentID: d.ID, Reason: fmt.Sprintf("deployment %s %s: %s", idPrefix(d.ID), d.Status, d.StatusDescription)}
	allocs, err := readRetry(ctx, c, "reading the allocations of deployment "+d.ID, func(ctx context.Context) ([]*api.AllocationListStub, error) {
		allocs, _, err := c.api.Deployments().Allocations(d.ID, c.query(ctx, &api.QueryOptions{Namespace: namespace}))
		return allocs, err
	})
	if err != nil {
		re.Details = append(re.Details, "could not read the deployment's allocations: "+err.Error())
		return re
	}
	re.Details = append(FailedTaskEvents(allocs), c.failingChecks(ctx, namespace, allocs)...)
	return re
}

// FailedTaskEvents describes, per allocation, the tasks that failed or
// restarted, quoting their last events as Nomad shows them.
func FailedTaskEvents(allocs []*api.AllocationListStub) []string {
	var out []string
	sort.Slice(allocs, func(i, j int) bool { return allocs[i].Name < allocs[j].Name })
	for _, a := range allocs {
		healthy := a.DeploymentStatus != nil && a.DeploymentStatus.Healthy != nil && *a.DeploymentStatus.Healthy
		if healthy && a.ClientStatus == api.AllocClientStatusRunning {
			continue
		}
		before := len(out)
		tasks := make([]string, 0, len(a.TaskStates))
		for name := range a.TaskStates {
			tasks = append(tasks, name)
		}
		sort.Strings(tasks)
		for _, name := range tasks {
			ts := a.TaskStates[name]
			if ts == nil || (!ts.Failed && ts.Restarts == 0 && ts.State != "pending") {
				continue
			}
			out = append(out, fmt.Sprintf("allocation %s on node %s: task %q is %s (restarts %d): %s",
				idPrefix(a.ID), nodeLabel(a), name, taskCondition(ts), ts.Restarts, lastEvents(ts.Events, 3)))
		}
		if n := len(out); n == before {
			// No task failed: the allocation ran but never became healthy,
			// which means its health checks did not pass in time.
			why := a.ClientDescription
			if a.ClientStatus == api.AllocClientStatusRunning {
				why = "its tasks run but it never became healthy: its service checks did not pass within healthy_deadline"
			}
			out = append(out, fmt.Sprintf("allocation %s on node %s is %s: %s", idPrefix(a.ID), nodeLabel(a), a.ClientStatus, why))
		}
	}
	return out
}

func taskCondition(ts *api.TaskState) string {
	if ts.Failed {
		return "failed"
	}
	return ts.State
}

func nodeLabel(a *api.AllocationListStub) string {
	if a.NodeName != "" {
		return a.NodeName
	}
	return idPrefix(a.NodeID)
}

// lastEvents quotes the newest n events, oldest first, as "Type: message".
func lastEvents(events []*api.TaskEvent, n int) string {
	if len(events) > n {
		events = events[len(events)-n:]
	}
	parts := make([]string, 0, len(events))
	for _, e := range events {
		if e == nil {
			continue
		}
		msg := e.DisplayMessage
		if msg == "" {
			msg = e.Message
		}
		parts = append(parts, fmt.Sprintf("%q", strings.TrimSpace(e.Type+": "+msg)))
	}
	if len(parts) == 0 {
		return "no task events yet"
	}
	return strings.Join(parts, ", ")
}

// placementFailures turns the scheduler's metrics into sentences such as
// `task group "app": Resources exhausted on 1 node: memory`.
func placementFailures(failed map[string]*api.AllocationMetric) []string {
	groups := make([]string, 0, len(failed))
	for g := range failed {
		groups = append(groups, g)
	}
	sort.Strings(groups)
	var out []string
	for _, g := range groups {
		m := failed[g]
		if m == nil {
			continue
		}
		var why []string
		if m.NodesEvaluated == 0 {
			why = append(why, fmt.Sprintf("no nodes were eligible for evaluation (node pool %q has %d nodes)", m.NodePool, m.NodesInPool))
		}
		for dim, n := range m.DimensionExhausted {
			why = append(why, fmt.Sprintf("Resources exhausted on %s: %s", plural(n, "node"), dim))
		}
		for c, n := range m.ConstraintFiltered {
			why = append(why, fmt.Sprintf("Constraint %s filtered %s", c, plural(n, "node")))
		}
		for c, n := range m.ClassFiltered {
			why = append(why, fmt.Sprintf("Class %q filtered %s", c, plural(n, "node")))
		}
		sort.Strings(why)
		if len(why) == 0 {
			why = append(why, fmt.Sprintf("%d nodes evaluated, %d filtered, %d exhausted", m.NodesEvaluated, m.NodesFiltered, m.NodesExhausted))
		}
		out = append(out, fmt.Sprintf("task group %q could not be placed: %s", g, strings.Join(why, "; ")))
	}
	return out
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// idPrefix is the first 8 characters of a Nomad ID, as the nomad CLI
// shows them.
func idPrefix(id string) string {
	if len(id) > 8 {
		return id[:8]
	}
	return id
}

// WaitAllocationsStopped waits until none of the job's allocations may
// still run (allocstatus.Live). An allocation on a disconnected client
// ("unknown") keeps the wait going: its tasks may still run there, so the
// job must not be purged yet.
func (c *Client) WaitAllocationsStopped(ctx context.Context, namespace, jobID string) error {
	return c.waitStopped(ctx, namespace, jobID, func(*api.AllocationListStub) bool { return true })
}

// waitStopped waits until none of the job's allocations that counts
// selects may still run.
func (c *Client) waitStopped(ctx context.Context, namespace, jobID string, counts func(*api.AllocationListStub) bool) error {
	var index uint64
	return poll(ctx, fmt.Sprintf("allocations of job %q to stop", jobID), blockingPause, func() (bool, string, error) {
		allocs, next, err := c.jobAllocationsAfter(ctx, namespace, jobID, index, min(blockingWait(ctx), rolloutMaxWait))
		index = next
		if IsNotFound(err) {
			return true, "", nil
		}
		if err != nil {
			return false, "", err
		}
		live, state := liveSummary(slices.DeleteFunc(allocs, func(a *api.AllocationListStub) bool { return !counts(a) }))
		return live == 0, state, nil
	})
}

// liveSummary counts the allocations that may still run and says so,
// naming those on disconnected clients, which no retry can hurry.
func liveSummary(allocs []*api.AllocationListStub) (int, string) {
	live, unknown := 0, 0
	for _, a := range allocs {
		if allocstatus.Live(a.ClientStatus) {
			live++
		}
		if a.ClientStatus == allocstatus.Unknown {
			unknown++
		}
	}
	state := fmt.Sprintf("%d still running", live)
	if unknown > 0 {
		state += fmt.Sprintf(", %d of them on a disconnected client (status unknown: they stop when it reconnects "+
			"or when Nomad marks them lost)", unknown)
	}
	return live, state
}
