package nomadclient

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"time"

	"github.com/hashicorp/nomad/api"
)

// The single-object reads behind the data sources that read one CSI
// plugin or one scaling policy (the listings are in views_cluster.go and
// views_jobs.go).

// CSIPluginInstance is one controller or node instance of a CSI plugin.
type CSIPluginInstance struct {
	NodeID            string
	Healthy           bool
	HealthDescription string
}

// CSIPluginDetail is one CSI plugin: its health counts, its version and
// its instances, each sorted by node ID.
type CSIPluginDetail struct {
	CSIPluginView
	Version            string
	Controllers, Nodes []CSIPluginInstance
}

// GetCSIPlugin reads the CSI plugin id; (nil, nil) when Nomad has none.
func (c *Client) GetCSIPlugin(ctx context.Context, id string) (*CSIPluginDetail, error) {
	p, err := readRetry(ctx, c, "read CSI plugin", func(ctx context.Context) (*api.CSIPlugin, error) {
		out, _, err := c.api.CSIPlugins().Info(id, c.query(ctx, nil))
		return out, err
	})
	if IsNotFound(err) || (err == nil && p == nil) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading CSI plugin %q: %w", id, err)
	}
	return &CSIPluginDetail{
		CSIPluginView: CSIPluginView{ID: p.ID, Provider: p.Provider, ControllerRequired: p.ControllerRequired,
			ControllersHealthy: p.ControllersHealthy, ControllersExpected: p.ControllersExpected,
			NodesHealthy: p.NodesHealthy, NodesExpected: p.NodesExpected},
		Version: p.Version, Controllers: csiInstances(p.Controllers), Nodes: csiInstances(p.Nodes),
	}, nil
}

func csiInstances(byNode map[string]*api.CSIInfo) []CSIPluginInstance {
	out := make([]CSIPluginInstance, 0, len(byNode))
	for nodeID, info := range byNode {
		if info != nil {
			out = append(out, CSIPluginInstance{NodeID: nodeID, Healthy: info.Healthy, HealthDescription: info.HealthDescription})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].NodeID < out[j].NodeID })
	return out
}

// ScalingPolicyDetail is one scaling policy with its bounds and its
// policy block (as JSON: its shape is the autoscaler's, not Nomad's).
type ScalingPolicyDetail struct {
	ScalingPolicyView
	Min, Max   *int64
	PolicyJSON string
}

// GetScalingPolicy reads the scaling policy id; (nil, nil) when Nomad has
// none.
func (c *Client) GetScalingPolicy(ctx context.Context, id string) (*ScalingPolicyDetail, error) {
	p, err := readRetry(ctx, c, "read scaling policy", func(ctx context.Context) (*api.ScalingPolicy, error) {
		out, _, err := c.api.Scaling().GetPolicy(id, c.query(ctx, nil))
		return out, err
	})
	if IsNotFound(err) || (err == nil && p == nil) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading scaling policy %q: %w", id, err)
	}
	policy := []byte("{}")
	if len(p.Policy) > 0 {
		if policy, err = json.Marshal(p.Policy); err != nil {
			return nil, fmt.Errorf("reading scaling policy %q: its policy block is not JSON: %w", id, err)
		}
	}
	return &ScalingPolicyDetail{
		ScalingPolicyView: ScalingPolicyView{ID: p.ID, Type: p.Type, Enabled: p.Enabled != nil && *p.Enabled, Target: p.Target},
		Min:               p.Min, Max: p.Max, PolicyJSON: string(policy),
	}, nil
}

// Healthy reports whether every expected instance of the plugin is
// healthy and at least one node plugin is (and one controller, when the
// plugin needs one): volumes of the plugin can be claimed.
func (p CSIPluginView) Healthy() bool {
	return p.NodesHealthy > 0 && p.NodesHealthy >= p.NodesExpected && p.ControllersHealthy >= p.ControllersExpected &&
		(!p.ControllerRequired || p.ControllersHealthy > 0)
}

// WaitCSIPlugin reads the CSI plugin id until it is registered and, when
// healthy is set, Healthy; it gives up when ctx ends.
func (c *Client) WaitCSIPlugin(ctx context.Context, id string, healthy bool) (*CSIPluginDetail, error) {
	what := "CSI plugin " + id + " to be registered"
	if healthy {
		what = "CSI plugin " + id + " to be healthy"
	}
	var plugin *CSIPluginDetail
	err := poll(ctx, what, time.Second, func() (bool, string, error) {
		p, err := c.GetCSIPlugin(ctx, id)
		if err != nil || p == nil {
			return false, "not registered", err
		}
		plugin = p
		return !healthy || p.Healthy(), fmt.Sprintf("%d/%d controllers and %d/%d nodes healthy",
			p.ControllersHealthy, p.ControllersExpected, p.NodesHealthy, p.NodesExpected), nil
	})
	return plugin, err
}
