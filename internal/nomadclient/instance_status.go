package nomadclient

import (
	"context"
	"fmt"

	"github.com/hashicorp/nomad/api"
)

// Usage is a one-shot resource usage sample of an allocation.
type Usage struct {
	CPUPercent float64
	RSSMiB     float64
}

// LatestDeployment returns a job's most recent deployment, or nil.
func (c *Client) LatestDeployment(ctx context.Context, namespace, jobID string) (*Deployment, error) {
	d, err := c.latestDeployment(ctx, namespace, jobID)
	return deploymentOf(d), err
}

func (c *Client) latestDeployment(ctx context.Context, namespace, jobID string) (*api.Deployment, error) {
	d, err := readRetry(ctx, c, "latest deployment", func(ctx context.Context) (*api.Deployment, error) {
		out, _, err := c.api.Jobs().LatestDeployment(jobID, c.query(ctx, &api.QueryOptions{Namespace: namespace}))
		return out, err
	})
	if err != nil {
		return nil, fmt.Errorf("reading the latest deployment of job %q: %w", jobID, err)
	}
	return d, nil
}

// AllocationUsage samples an allocation's CPU and memory once, through the
// client agent that runs it.
func (c *Client) AllocationUsage(ctx context.Context, namespace, allocID string) (*Usage, error) {
	u, err := readRetry(ctx, c, "allocation stats", func(ctx context.Context) (*api.AllocResourceUsage, error) {
		return c.api.Allocations().Stats(&api.Allocation{ID: allocID}, c.query(ctx, &api.QueryOptions{Namespace: namespace}))
	})
	if err != nil {
		return nil, fmt.Errorf("reading usage of allocation %s: %w", allocID, err)
	}
	if u == nil || u.ResourceUsage == nil {
		return &Usage{}, nil
	}
	out := &Usage{}
	if cs := u.ResourceUsage.CpuStats; cs != nil {
		out.CPUPercent = cs.Percent
	}
	if ms := u.ResourceUsage.MemoryStats; ms != nil {
		out.RSSMiB = float64(ms.RSS) / (1 << 20)
	}
	return out, nil
}
