package nomadclient

import (
	"context"
	"fmt"

	"github.com/hashicorp/nomad/api"
)

// NodeNotReadyError says a node was still not ready when a wait for it
// ended (ctx's deadline or cancellation, in Err).
type NodeNotReadyError struct {
	ID, Name, Status string
	Err              error
}

func (e *NodeNotReadyError) Error() string {
	name := e.ID
	if e.Name != "" {
		name = fmt.Sprintf("%s (%s)", e.Name, e.ID)
	}
	return fmt.Sprintf("node %s is not ready (status %q): %v", name, e.Status, e.Err)
}

func (e *NodeNotReadyError) Unwrap() error { return e.Err }

// WaitNodeReady waits until node id is ready and returns the index to wait
// on next. Its reads are blocking queries after index (0 answers at once),
// so a node that already reads ready, but was read at index before, is
// seen again only once it changes (it registers again after a restart) or
// the blocking wait lapses. A node Nomad no longer knows is a
// *NodeNotFoundError at once; one not ready when ctx ends, a
// *NodeNotReadyError.
func (c *Client) WaitNodeReady(ctx context.Context, id string, index uint64) (uint64, error) {
	var last *api.Node
	index, err := c.waitNode(ctx, id, "node "+idPrefix(id)+" to be ready", index, func(n *api.Node) (bool, string) {
		last = n
		return n.Status == api.NodeStatusReady, n.Status
	})
	switch {
	case err == nil:
		return index, nil
	case IsNotFound(err):
		return index, &NodeNotFoundError{By: "id", Value: id}
	case ctx.Err() == nil:
		return index, err
	}
	out := &NodeNotReadyError{ID: id, Status: "unknown", Err: err}
	if last != nil {
		out.Name, out.Status = last.Name, last.Status
	}
	return index, out
}
