package nomadclient

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/hashicorp/nomad/api"

	"github.com/berthhq/terraform-provider-berth/internal/allocstatus"
)

// forgottenGrace is how long, beyond the job's longest min_healthy_time, a
// deployment may stay "running" with every group at its desired healthy
// count before the wait stops following it. Once the last allocation
// counts as healthy, Nomad's deployment watcher only has to run one
// evaluation for the scheduler to mark the deployment successful: seconds,
// even on a saturated 2-core bench. 30s is many times that, and a small
// part of the 10-minute default progress_deadline a forgotten deployment
// otherwise holds the apply for. (min_healthy_time is already spent when an
// allocation counts as healthy; adding it keeps jobs with a long one from
// being judged sooner than the time they asked for.)
const forgottenGrace = 30 * time.Second

// forgottenAfter is how long a deployment of job may stay running once
// fully healthy: the longest min_healthy_time of its groups plus
// forgottenGrace.
func forgottenAfter(job *api.Job) time.Duration {
	var longest time.Duration
	if job != nil && job.Update != nil {
		longest = deref(job.Update.MinHealthyTime)
	}
	for _, g := range jobGroups(job) {
		if g != nil && g.Update != nil {
			longest = max(longest, deref(g.Update.MinHealthyTime))
		}
	}
	return longest + forgottenGrace
}

func jobGroups(job *api.Job) []*api.TaskGroup {
	if job == nil {
		return nil
	}
	return job.TaskGroups
}

// fullyHealthy reports whether d is running although every group reached
// its desired healthy count with its canaries (if any) promoted: what
// Nomad's scheduler marks successful at its next evaluation.
func fullyHealthy(d *api.Deployment) bool {
	if d.Status != api.DeploymentStatusRunning || len(d.TaskGroups) == 0 {
		return false
	}
	for _, s := range d.TaskGroups {
		if s == nil || s.HealthyAllocs < s.DesiredTotal || (s.DesiredCanaries > 0 && !s.Promoted) {
			return false
		}
	}
	return true
}

// forgottenWatch times how long a deployment has stayed fully healthy and
// running, on the client's clock.
type forgottenWatch struct {
	after time.Duration // forgottenAfter
	now   func() time.Time
	since time.Time // first seen fully healthy; zero: not now
}

// stuck records d and reports whether it has been fully healthy and
// running for longer than w.after.
func (w *forgottenWatch) stuck(d *api.Deployment) bool {
	if !fullyHealthy(d) {
		w.since = time.Time{}
		return false
	}
	if w.since.IsZero() {
		w.since = w.now()
	}
	return w.elapsed() > w.after
}

func (w *forgottenWatch) elapsed() time.Duration { return w.now().Sub(w.since) }

// limit shortens a blocking read so it returns when the deployment would
// count as forgotten, not up to rolloutMaxWait later.
func (w *forgottenWatch) limit(q *api.QueryOptions) {
	if w.since.IsZero() || q.WaitIndex == 0 {
		return
	}
	q.WaitTime = min(q.WaitTime, max(w.after-w.elapsed()+time.Second, 10*time.Millisecond))
}

// forgottenOutcome decides a deployment Nomad left running although every
// group is healthy, by asking Nomad for the job's allocations: when every
// one it wants running is of d's version, running and healthy, and each
// group has as many as it desires, the rollout is done and the returned
// note says what Nomad shows; otherwise it is a *RolloutError saying
// which allocations contradict the deployment's counts.
func (c *Client) forgottenOutcome(ctx context.Context, namespace, jobID string, d *api.Deployment, stuckFor time.Duration) (string, error) {
	allocs, err := readRetry(ctx, c, "list job allocations", func(ctx context.Context) ([]*api.AllocationListStub, error) {
		out, _, err := c.api.Jobs().Allocations(jobID, false, c.query(ctx, &api.QueryOptions{Namespace: namespace}))
		return out, err
	})
	if err != nil {
		return "", fmt.Errorf("reading the allocations of job %q to check deployment %s: %w", jobID, d.ID, err)
	}
	shows := fmt.Sprintf("Nomad still shows deployment %s of job %q (version %d) as %q (%s), %s after berth first saw every "+
		"task group at its desired healthy count: %s", d.ID, jobID, d.JobVersion, d.Status, d.StatusDescription,
		stuckFor.Round(time.Second), groupCounts(d))
	problems, good := allocationsAgainst(d, allocs)
	if len(problems) > 0 {
		return "", &RolloutError{JobID: jobID, DeploymentID: d.ID, DeploymentStatus: d.Status,
			Reason:  shows + ". But its allocations do not all run healthy, so the rollout is not done",
			Details: problems}
	}
	return fmt.Sprintf("%s. berth read the job's allocations from Nomad: all %s of version %d run and are healthy.",
		shows, plural(good, "allocation"), d.JobVersion), nil
}

// allocationsAgainst checks the allocations Nomad wants running (desired
// status run, not replaced) against d: each must be of d's job version,
// running and healthy, and every group must have its desired total of
// them. It returns what is wrong, one line each, and how many are good.
func allocationsAgainst(d *api.Deployment, allocs []*api.AllocationListStub) ([]string, int) {
	var bad []*api.AllocationListStub
	var problems []string
	good := map[string]int{}
	for _, a := range allocs {
		if a.DesiredStatus != api.AllocDesiredStatusRun || a.NextAllocation != "" {
			continue
		}
		healthy := a.DeploymentStatus != nil && deref(a.DeploymentStatus.Healthy)
		switch {
		case a.JobVersion != d.JobVersion:
			if allocstatus.Live(a.ClientStatus) {
				problems = append(problems, fmt.Sprintf("allocation %s on node %s still runs version %d of the job (status %s)",
					idPrefix(a.ID), nodeLabel(a), a.JobVersion, a.ClientStatus))
			}
		case a.ClientStatus == api.AllocClientStatusRunning && healthy:
			good[a.TaskGroup]++
		default:
			bad = append(bad, a)
		}
	}
	problems = append(problems, FailedTaskEvents(bad)...)
	groups := make([]string, 0, len(d.TaskGroups))
	for g := range d.TaskGroups {
		groups = append(groups, g)
	}
	sort.Strings(groups)
	total := 0
	for _, g := range groups {
		total += good[g]
		if s := d.TaskGroups[g]; s != nil && good[g] < s.DesiredTotal {
			problems = append(problems, fmt.Sprintf("task group %q has %d running and healthy allocations of version %d; it desires %d",
				g, good[g], d.JobVersion, s.DesiredTotal))
		}
	}
	return problems, total
}

// groupCounts is what a deployment counts per group, as
// `nomad deployment status` shows it.
func groupCounts(d *api.Deployment) string {
	var parts []string
	for name, s := range d.TaskGroups {
		if s == nil {
			continue
		}
		part := fmt.Sprintf("group %q %d healthy of %d desired, %d placed, %d unhealthy", name, s.HealthyAllocs, s.DesiredTotal,
			s.PlacedAllocs, s.UnhealthyAllocs)
		if s.DesiredCanaries > 0 {
			part += fmt.Sprintf(", %d canaries (promoted: %t)", s.DesiredCanaries, s.Promoted)
		}
		parts = append(parts, part)
	}
	sort.Strings(parts)
	return strings.Join(parts, "; ")
}
