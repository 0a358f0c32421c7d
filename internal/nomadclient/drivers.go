package nomadclient

import (
	"context"
	"fmt"
	"maps"
	"sync"
	"time"

	"github.com/hashicorp/nomad/api"
)

// driversFresh is how long a node list read for its drivers answers later
// questions. A plan creating many instances asks once per instance (and
// Terraform plans again during apply); on a large cluster each node list is
// megabytes. Drivers appear and vanish far more slowly than this, and the
// check is advice: apply still fails with Nomad's own reason.
const driversFresh = 30 * time.Second

// driverCache remembers the last DetectedDrivers answer. Concurrent callers
// share one request: the first holds mu while it reads.
type driverCache struct {
	mu    sync.Mutex
	at    time.Time
	known map[string]bool
	nodes int
	now   func() time.Time // time.Now; tests move it
}

// DetectedDrivers returns the task drivers detected on at least one node of
// the cluster, and how many nodes the cluster has. A driver counts even
// while unhealthy: it exists and may recover, so it is not a typo. One call
// (the node list carries each node's drivers), reused for driversFresh.
func (c *Client) DetectedDrivers(ctx context.Context) (map[string]bool, int, error) {
	dc := &c.drivers
	dc.mu.Lock()
	defer dc.mu.Unlock()
	now := time.Now
	if dc.now != nil {
		now = dc.now
	}
	if dc.known != nil && now().Sub(dc.at) < driversFresh {
		return maps.Clone(dc.known), dc.nodes, nil
	}
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
	if len(stubs) > 0 {
		// An empty cluster is not remembered: its first node is about to
		// register.
		dc.at, dc.known, dc.nodes = now(), drivers, len(stubs)
	}
	return maps.Clone(drivers), len(stubs), nil
}
