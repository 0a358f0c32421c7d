package nomadclient

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/hashicorp/nomad/api"

	"github.com/berthhq/terraform-provider-berth/internal/jobspec"
)

// JobPlan is what Nomad's scheduler would do with a job (a dry run of its
// registration, `nomad job plan`): per group, what it would change, and
// the groups it could not place.
type JobPlan struct {
	Groups   map[string]GroupChanges
	Failures []PlacementFailure
	Warnings string
	// Moving says the job was not at rest when asked (an evaluation
	// pending, an allocation starting, a deployment under way, a batch
	// allocation running): the counts may differ by the time an apply
	// registers it.
	Moving bool
}

// GroupChanges counts the allocations of one group the scheduler would
// place, stop, update in place, replace (destructive), start as canaries,
// migrate, leave alone or preempt.
type GroupChanges struct {
	Place, Stop, InPlace, Destructive, Canary, Migrate, Ignore, Preempt int
}

// PlacementFailure is one group the scheduler could not place: how many
// allocations, and why, as `nomad job plan` would say it.
type PlacementFailure struct {
	Group    string
	Unplaced int
	Reasons  []string
}

func (f PlacementFailure) String() string {
	return fmt.Sprintf("group %q: %d allocation(s) not placed: %s", f.Group, f.Unplaced, joinReasons(f.Reasons))
}

func joinReasons(rs []string) string {
	if len(rs) == 0 {
		return "the scheduler gave no reason"
	}
	out := rs[0]
	for _, r := range rs[1:] {
		out += "; " + r
	}
	return out
}

// String lists the group's non-zero counts as `nomad job plan` names them
// ("2 create, 1 in-place update"), "no change" when all are zero.
func (g GroupChanges) String() string {
	var out []string
	for _, c := range []struct {
		n    int
		what string
	}{{g.Place, "create"}, {g.Destructive, "create/destroy update"}, {g.InPlace, "in-place update"}, {g.Canary, "canary"},
		{g.Migrate, "migrate"}, {g.Stop, "destroy"}, {g.Preempt, "preempt"}, {g.Ignore, "ignore"}} {
		if c.n > 0 {
			out = append(out, fmt.Sprintf("%d %s", c.n, c.what))
		}
	}
	if len(out) == 0 {
		return "no change"
	}
	return strings.Join(out, ", ")
}

// PlanJobspec asks Nomad's scheduler what registering s (in namespace
// when it names none) would do, without registering it, and, for a job
// that exists, whether it is at rest (JobPlan.Moving). Nothing is
// written: it is retried like a read.
func (c *Client) PlanJobspec(ctx context.Context, s jobspec.Spec, namespace string, exists bool) (*JobPlan, error) {
	job, extra, err := jobspec.Parse(s, c.parser(ctx, namespace))
	if err != nil {
		return nil, err
	}
	if job.Namespace == nil || *job.Namespace == "" {
		job.Namespace = &namespace
	}
	resp, err := readRetry(ctx, c, "plan job", func(ctx context.Context) (*api.JobPlanResponse, error) {
		return c.sendPlan(ctx, job, extra, false)
	})
	if err != nil {
		return nil, err
	}
	out := planOf(resp)
	if exists {
		if out.Moving, err = c.jobMoving(ctx, *job.Namespace, *job.ID); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// jobMoving reports whether the job is changing on its own: an evaluation
// pending, an allocation pending, a batch or sysbatch allocation running
// (it completes), or a deployment under way. The scheduler's counts for
// such a job move between a plan and its apply.
func (c *Client) jobMoving(ctx context.Context, ns, id string) (bool, error) {
	evals, err := readRetry(ctx, c, "list job evaluations", func(ctx context.Context) ([]*api.Evaluation, error) {
		out, _, err := c.api.Jobs().Evaluations(id, c.query(ctx, &api.QueryOptions{Namespace: ns}))
		return out, err
	})
	if err != nil {
		return false, fmt.Errorf("listing the evaluations of job %q: %w", id, err)
	}
	for _, e := range evals {
		if e.Status == api.EvalStatusPending {
			return true, nil
		}
	}
	allocs, err := c.jobAllocations(ctx, ns, id)
	if err != nil {
		return false, err
	}
	for _, a := range allocs {
		if a.DesiredStatus != api.AllocDesiredStatusRun {
			continue
		}
		if a.ClientStatus == api.AllocClientStatusPending ||
			(a.ClientStatus == api.AllocClientStatusRunning && (a.JobType == "batch" || a.JobType == "sysbatch")) {
			return true, nil
		}
	}
	d, err := c.latestDeployment(ctx, ns, id)
	return DeploymentActive(d), err
}

func planOf(resp *api.JobPlanResponse) *JobPlan {
	out := &JobPlan{Groups: map[string]GroupChanges{}, Warnings: resp.Warnings}
	if resp.Annotations != nil {
		for g, u := range resp.Annotations.DesiredTGUpdates {
			out.Groups[g] = GroupChanges{Place: int(u.Place), Stop: int(u.Stop), InPlace: int(u.InPlaceUpdate),
				Destructive: int(u.DestructiveUpdate), Canary: int(u.Canary), Migrate: int(u.Migrate), Ignore: int(u.Ignore),
				Preempt: int(u.Preemptions)}
		}
	}
	for _, g := range slices.Sorted(maps.Keys(resp.FailedTGAllocs)) {
		m := resp.FailedTGAllocs[g]
		out.Failures = append(out.Failures, PlacementFailure{Group: g, Unplaced: m.CoalescedFailures + 1, Reasons: failureReasons(m)})
	}
	return out
}

// failureReasons says why the scheduler placed nothing, from its metrics,
// in the words `nomad job plan` uses.
func failureReasons(m *api.AllocationMetric) []string {
	var out []string
	if m.NodesEvaluated == 0 {
		if m.NodesInPool == 0 {
			out = append(out, fmt.Sprintf("no nodes in node pool %q", m.NodePool))
		} else {
			out = append(out, "no nodes were eligible for evaluation (datacenters or node pool match none that is ready)")
		}
	}
	each := func(counts map[string]int, format string) {
		keys := slices.Collect(maps.Keys(counts))
		sort.Strings(keys)
		for _, k := range keys {
			out = append(out, fmt.Sprintf(format, k, counts[k]))
		}
	}
	each(m.ClassFiltered, "class %q filtered %d nodes")
	each(m.ConstraintFiltered, "constraint `%s` filtered %d nodes")
	each(m.ClassExhausted, "class %q exhausted on %d nodes")
	each(m.DimensionExhausted, "%s exhausted on %d nodes")
	for _, q := range m.QuotaExhausted {
		out = append(out, "quota exhausted: "+q)
	}
	return out
}
