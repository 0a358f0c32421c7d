package nomadclient

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/hashicorp/nomad/api"

	"github.com/berthhq/terraform-provider-berth/internal/jwks"
)

// ListRegions lists every region the cluster knows of (federated regions
// included), sorted.
func (c *Client) ListRegions(ctx context.Context) ([]string, error) {
	regions, err := readRetry(ctx, c, "list regions", func(ctx context.Context) ([]string, error) {
		var out []string
		_, err := c.api.Raw().Query("/v1/regions", &out, c.query(ctx, nil))
		return out, err
	})
	if err != nil {
		return nil, fmt.Errorf("listing regions: %w", err)
	}
	sort.Strings(regions)
	return regions, nil
}

// ListDatacenters lists the datacenters of the region's client nodes
// whose name starts with prefix, sorted and without repeats; with
// ignoreDown, nodes whose status is down do not count.
func (c *Client) ListDatacenters(ctx context.Context, prefix string, ignoreDown bool) ([]string, error) {
	nodes, err := readRetry(ctx, c, "list nodes", func(ctx context.Context) ([]*api.NodeListStub, error) {
		n, _, err := c.api.Nodes().List(c.query(ctx, nil))
		return n, err
	})
	if err != nil {
		return nil, fmt.Errorf("listing nodes: %w", err)
	}
	seen := map[string]bool{}
	out := []string{}
	for _, n := range nodes {
		if n == nil || !strings.HasPrefix(n.Datacenter, prefix) || seen[n.Datacenter] ||
			ignoreDown && n.Status == api.NodeStatusDown {
			continue
		}
		seen[n.Datacenter] = true
		out = append(out, n.Datacenter)
	}
	sort.Strings(out)
	return out, nil
}

// WorkloadIdentityKeys reads the public keys that sign the cluster's
// workload identities, /.well-known/jwks.json, sorted by key ID.
func (c *Client) WorkloadIdentityKeys(ctx context.Context) ([]jwks.Key, error) {
	raw, err := readRetry(ctx, c, "read JWKS", func(ctx context.Context) (json.RawMessage, error) {
		var out json.RawMessage
		_, err := c.api.Raw().Query("/.well-known/jwks.json", &out, c.query(ctx, nil))
		return out, err
	})
	if err != nil {
		return nil, fmt.Errorf("reading the workload identity keys (/.well-known/jwks.json): %w", err)
	}
	keys, err := jwks.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("reading the workload identity keys (/.well-known/jwks.json): %w", err)
	}
	return keys, nil
}

// CSIPluginView is a CSI plugin and its health: how many of the
// controllers and node plugins Nomad expects are healthy.
type CSIPluginView struct {
	ID, Provider                            string
	ControllerRequired                      bool
	ControllersHealthy, ControllersExpected int
	NodesHealthy, NodesExpected             int
}

// ListCSIPlugins lists the region's CSI plugins, sorted by ID.
func (c *Client) ListCSIPlugins(ctx context.Context) ([]CSIPluginView, error) {
	stubs, err := readRetry(ctx, c, "list CSI plugins", func(ctx context.Context) ([]*api.CSIPluginListStub, error) {
		out, _, err := c.api.CSIPlugins().List(c.query(ctx, nil))
		return out, err
	})
	if err != nil {
		return nil, fmt.Errorf("listing CSI plugins: %w", err)
	}
	out := make([]CSIPluginView, 0, len(stubs))
	for _, p := range stubs {
		if p == nil {
			continue
		}
		out = append(out, CSIPluginView{ID: p.ID, Provider: p.Provider, ControllerRequired: p.ControllerRequired,
			ControllersHealthy: p.ControllersHealthy, ControllersExpected: p.ControllersExpected,
			NodesHealthy: p.NodesHealthy, NodesExpected: p.NodesExpected})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}
