package nomadclient

import (
	"context"
	"fmt"
	"sort"

	"github.com/hashicorp/nomad/api"
)

// DeploymentView is one deployment as berth_deployments reports it.
type DeploymentView struct {
	ID, Namespace, JobID      string
	JobVersion                uint64
	Status, StatusDescription string
	// CreateTime and ModifyTime are Unix nanoseconds.
	CreateTime, ModifyTime int64
	Groups                 map[string]DeploymentGroupView
}

// DeploymentGroupView is a task group's progress in a deployment.
type DeploymentGroupView struct {
	AutoRevert, Promoted                         bool
	DesiredTotal, DesiredCanaries                int
	PlacedAllocs, HealthyAllocs, UnhealthyAllocs int
}

// ListDeployments lists deployments in namespace ("*" every one, "" the
// provider's), of job when set, newest first (by create index).
func (c *Client) ListDeployments(ctx context.Context, namespace, job string) ([]DeploymentView, error) {
	deps, err := readRetry(ctx, c, "list deployments", func(ctx context.Context) ([]*api.Deployment, error) {
		q := c.query(ctx, &api.QueryOptions{Namespace: namespace})
		if job != "" {
			out, _, err := c.api.Jobs().Deployments(job, true, q)
			return out, err
		}
		out, _, err := c.api.Deployments().List(q)
		return out, err
	})
	if IsNotFound(err) && job != "" {
		return []DeploymentView{}, nil // no such job: none of its deployments
	}
	if err != nil {
		return nil, fmt.Errorf("listing deployments: %w", err)
	}
	sort.Slice(deps, func(i, j int) bool { return deps[i].CreateIndex > deps[j].CreateIndex })
	out := make([]DeploymentView, 0, len(deps))
	for _, d := range deps {
		if d == nil {
			continue
		}
		v := DeploymentView{ID: d.ID, Namespace: d.Namespace, JobID: d.JobID, JobVersion: d.JobVersion, Status: d.Status,
			StatusDescription: d.StatusDescription, CreateTime: d.CreateTime, ModifyTime: d.ModifyTime,
			Groups: make(map[string]DeploymentGroupView, len(d.TaskGroups))}
		for name, g := range d.TaskGroups {
			if g == nil {
				continue
			}
			v.Groups[name] = DeploymentGroupView{AutoRevert: g.AutoRevert, Promoted: g.Promoted, DesiredTotal: g.DesiredTotal,
				DesiredCanaries: g.DesiredCanaries, PlacedAllocs: g.PlacedAllocs, HealthyAllocs: g.HealthyAllocs,
				UnhealthyAllocs: g.UnhealthyAllocs}
		}
		out = append(out, v)
	}
	return out, nil
}

// ScalingPolicyView is one scaling policy.
type ScalingPolicyView struct {
	ID, Type string
	Enabled  bool
	// Target says what the policy scales: Namespace, Job, Group (and
	// Task for vertical policies).
	Target map[string]string
}

// ListScalingPolicies lists the scaling policies in namespace ("*" every
// one, "" the provider's), of job and of type when set, sorted by ID.
func (c *Client) ListScalingPolicies(ctx context.Context, namespace, job, typ string) ([]ScalingPolicyView, error) {
	params := map[string]string{}
	if job != "" {
		params["job"] = job
	}
	if typ != "" {
		params["type"] = typ
	}
	stubs, err := readRetry(ctx, c, "list scaling policies", func(ctx context.Context) ([]*api.ScalingPolicyListStub, error) {
		out, _, err := c.api.Scaling().ListPolicies(c.query(ctx, &api.QueryOptions{Namespace: namespace, Params: params}))
		return out, err
	})
	if err != nil {
		return nil, fmt.Errorf("listing scaling policies: %w", err)
	}
	out := make([]ScalingPolicyView, 0, len(stubs))
	for _, p := range stubs {
		if p != nil {
			out = append(out, ScalingPolicyView{ID: p.ID, Type: p.Type, Enabled: p.Enabled, Target: p.Target})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}
