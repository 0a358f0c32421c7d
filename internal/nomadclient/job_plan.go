package nomadclient

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sort"

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

// PlanJobspec asks Nomad's scheduler what registering s (in namespace
// when it names none) would do, without registering it. Nothing is
// written: it is retried like a read.
func (c *Client) PlanJobspec(ctx context.Context, s jobspec.Spec, namespace string) (*JobPlan, error) {
	job, err := jobspec.Parse(s)
	if err != nil {
		return nil, err
	}
	if job.Namespace == nil || *job.Namespace == "" {
		job.Namespace = &namespace
	}
	resp, err := readRetry(ctx, c, "plan job", func(ctx context.Context) (*api.JobPlanResponse, error) {
		out, _, err := c.api.Jobs().PlanOpts(job, &api.PlanOptions{}, (&api.WriteOptions{Namespace: *job.Namespace}).WithContext(ctx))
		return out, err
	})
	if err != nil {
		return nil, err
	}
	return planOf(resp), nil
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
