package nomadclient

import (
	"context"
	"fmt"

	"github.com/hashicorp/nomad/api"
)

// DetectedDrivers returns the task drivers detected on at least one node of
// the cluster, and how many nodes the cluster has. A driver counts even
// while unhealthy: it exists and may recover, so it is not a typo. One call
// (the node list carries each node's drivers).
func (c *Client) DetectedDrivers(ctx context.Context) (map[string]bool, int, error) {
	stubs, err := readRetry(ctx, c, "list node drivers", func(ctx context.Context) ([]*api.NodeListStub, error) {
		out, _, err := c.api.Nodes().List(c.query(ctx, nil))
		return out, err
	})
	if err != nil {
		return nil, 0, fmt.Errorf("listing nodes for their drivers: %w", err)
	}
	drivers := map[string]bool{}
	for _, s := range stubs {
		for name, d := range s.Drivers {
			if d != nil && d.Detected {
				drivers[name] = true
			}
		}
	}
	return drivers, len(stubs), nil
}
