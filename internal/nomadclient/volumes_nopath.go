package nomadclient

import (
	"context"
	"strconv"
	"strings"

	"github.com/hashicorp/nomad/api"

	"github.com/berthhq/terraform-provider-berth/internal/volume"
)

// noPathToNode is how Nomad (1.10) says its servers cannot reach the node
// a request is for: the node is down, or gone but still listed.
const noPathToNode = "No path to node"

// maxNoPathNodes bounds the node reads that name the candidates.
const maxNoPathNodes = 5

// VolumeNoPathError is Nomad failing a host volume create because its
// servers cannot reach the node it placed the volume on: Nomad's placement
// does not skip nodes that are down. Nothing was created (CreateVolume
// wraps it in a *WriteNotAppliedError). Nomad does not say which node it
// chose: Pinned says Nodes holds the one node_id named, else Nodes are the
// nodes that could hold the volume and are not ready (at most
// maxNoPathNodes; none when berth could not read them).
type VolumeNoPathError struct {
	Name   string
	Pool   string
	Pinned bool
	Nodes  []UnreachableNode
	Err    error
}

// UnreachableNode is a node a volume could not be created on.
type UnreachableNode struct{ ID, Name, Status string }

func (e *VolumeNoPathError) Error() string { return e.Err.Error() }
func (e *VolumeNoPathError) Unwrap() error { return e.Err }

// isNoPathToNode reports Nomad's answer that it cannot reach a node.
func isNoPathToNode(err error) bool {
	return statusCode(err) != 0 && strings.Contains(err.Error(), noPathToNode)
}

// noPathError names the nodes a create that Nomad could not deliver may
// have been placed on, as well as berth can tell; reads that fail leave
// them out (the error is about the create, not about them).
func (c *Client) noPathError(ctx context.Context, v *volume.Volume, err error) *VolumeNoPathError {
	out := &VolumeNoPathError{Name: v.Name, Pool: v.NodePool, Pinned: v.NodeID != "", Err: err}
	if out.Pinned {
		n, nerr := c.nodeInfo(ctx, v.NodeID)
		if nerr != nil {
			out.Nodes = []UnreachableNode{{ID: v.NodeID}}
			return out
		}
		out.Nodes = []UnreachableNode{{ID: n.ID, Name: n.Name, Status: n.Status}}
		return out
	}
	filter := `Status != "ready"`
	if v.NodePool != "" {
		filter += " and NodePool == " + strconv.Quote(v.NodePool)
	}
	stubs, lerr := readRetry(ctx, c, "list nodes", func(ctx context.Context) ([]*api.NodeListStub, error) {
		s, _, err := c.api.Nodes().List(c.query(ctx, &api.QueryOptions{Filter: filter}))
		return s, err
	})
	if lerr != nil {
		return out
	}
	plugin := v.PluginID
	if plugin == "" {
		plugin = volume.DefaultPlugin
	}
	for _, s := range stubs {
		if len(out.Nodes) == maxNoPathNodes {
			break
		}
		// Placement only considers nodes that fingerprinted the plugin.
		if n, nerr := c.nodeInfo(ctx, s.ID); nerr == nil && n.Attributes["plugins.host_volume."+plugin+".version"] != "" {
			out.Nodes = append(out.Nodes, UnreachableNode{ID: s.ID, Name: s.Name, Status: s.Status})
		}
	}
	return out
}
