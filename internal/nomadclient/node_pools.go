package nomadclient

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/hashicorp/nomad/api"
)

// Nomad's built-in node pools: they always exist and cannot be created,
// changed or deleted.
const (
	NodePoolAll     = "all"
	NodePoolDefault = "default"
)

// IsBuiltInNodePool reports whether name is one of Nomad's built-in pools.
func IsBuiltInNodePool(name string) bool { return name == NodePoolAll || name == NodePoolDefault }

// NodePool is a node pool as berth manages it.
type NodePool struct {
	Name        string
	Description string
	Meta        map[string]string
	// SchedulerAlgorithm ("" when unset) and MemoryOversubscription (nil
	// when unset) are the pool's scheduler configuration, which only Nomad
	// Enterprise accepts.
	SchedulerAlgorithm     string
	MemoryOversubscription *bool
}

// HasSchedulerConfig reports whether p carries a scheduler configuration.
func (p NodePool) HasSchedulerConfig() bool {
	return p.SchedulerAlgorithm != "" || p.MemoryOversubscription != nil
}

func nodePoolFromAPI(p *api.NodePool) *NodePool {
	out := &NodePool{Name: p.Name, Description: p.Description, Meta: p.Meta}
	if sc := p.SchedulerConfiguration; sc != nil {
		out.SchedulerAlgorithm = string(sc.SchedulerAlgorithm)
		out.MemoryOversubscription = sc.MemoryOversubscriptionEnabled
	}
	return out
}

func (p NodePool) toAPI() *api.NodePool {
	out := &api.NodePool{Name: p.Name, Description: p.Description, Meta: p.Meta}
	if p.HasSchedulerConfig() {
		out.SchedulerConfiguration = &api.NodePoolSchedulerConfiguration{
			SchedulerAlgorithm:            api.SchedulerAlgorithm(p.SchedulerAlgorithm),
			MemoryOversubscriptionEnabled: p.MemoryOversubscription,
		}
	}
	return out
}

// GetNodePool reads a node pool; (nil, nil) when it does not exist.
func (c *Client) GetNodePool(ctx context.Context, name string) (*NodePool, error) {
	p, err := getOrNil(ctx, c, "read node pool", func(ctx context.Context) (*api.NodePool, error) {
		out, _, err := c.api.NodePools().Info(name, c.query(ctx, nil))
		return out, err
	}, "reading node pool %q", name)
	if err != nil || p == nil {
		return nil, err
	}
	return nodePoolFromAPI(p), nil
}

// ListNodePools lists the node pools whose name starts with prefix,
// sorted by name, built-in pools included.
func (c *Client) ListNodePools(ctx context.Context, prefix string) ([]NodePool, error) {
	pools, err := readRetry(ctx, c, "list node pools", func(ctx context.Context) ([]*api.NodePool, error) {
		out, _, err := c.api.NodePools().PrefixList(prefix, c.query(ctx, nil))
		return out, err
	})
	if err != nil {
		return nil, fmt.Errorf("listing node pools: %w", err)
	}
	out := make([]NodePool, 0, len(pools))
	for _, p := range pools {
		if p != nil {
			out = append(out, *nodePoolFromAPI(p))
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// EnterpriseRequiredError says Nomad refused a write because it needs a
// Nomad Enterprise feature this cluster does not have.
type EnterpriseRequiredError struct{ Err error }

func (e *EnterpriseRequiredError) Error() string { return e.Err.Error() }
func (e *EnterpriseRequiredError) Unwrap() error { return e.Err }

// isUnlicensed reports whether err is Nomad CE refusing an Enterprise
// feature (`Feature "…" is unlicensed`).
func isUnlicensed(err error) bool {
	return err != nil && strings.Contains(err.Error(), "is unlicensed")
}

// WriteNodePool creates or updates a node pool (one call; not retried).
// Nomad CE refuses a scheduler configuration as a whole, so a refused
// write changed nothing: it returns *EnterpriseRequiredError then.
func (c *Client) WriteNodePool(ctx context.Context, p NodePool) error {
	_, err := c.api.NodePools().Register(p.toAPI(), c.write(ctx, ""))
	if isUnlicensed(err) {
		return &EnterpriseRequiredError{Err: err}
	}
	if err != nil {
		return c.writeError(err)
	}
	return nil
}

// NodePoolInUseError says Nomad refused to delete a pool that still has
// nodes or non-terminal jobs. Nodes and Jobs name them, as far as berth
// could read them (Jobs as "<namespace>/<job>").
type NodePoolInUseError struct {
	Name        string
	Err         error
	Nodes, Jobs []string
	// ListErr is why Nodes or Jobs could not be read, if they could not.
	ListErr error
}

func (e *NodePoolInUseError) Error() string { return e.Err.Error() }
func (e *NodePoolInUseError) Unwrap() error { return e.Err }

// isPoolInUse reports whether err is Nomad refusing to delete a node pool
// that has nodes or jobs.
func isPoolInUse(err error) bool {
	if err == nil {
		return false
	}
	msg := err.Error()
	return strings.Contains(msg, "has non-terminal jobs in regions") || strings.Contains(msg, "has nodes in regions")
}

// DeleteNodePool deletes a node pool; one that does not exist is not an
// error. A pool that still has nodes or jobs is refused by Nomad: the
// *NodePoolInUseError then lists them.
func (c *Client) DeleteNodePool(ctx context.Context, name string) error {
	_, err := c.api.NodePools().Delete(name, c.write(ctx, ""))
	switch {
	case err == nil, IsNotFound(err):
		return nil
	case isPoolInUse(err):
		inUse := &NodePoolInUseError{Name: name, Err: err}
		inUse.Nodes, inUse.Jobs, inUse.ListErr = c.NodePoolMembers(ctx, name)
		return inUse
	}
	return c.writeError(err)
}

// NodePoolMembers lists the nodes (by name) and the non-terminal jobs (as
// "<namespace>/<job>", in every namespace the token can read) in a pool,
// each sorted.
func (c *Client) NodePoolMembers(ctx context.Context, name string) (nodes, jobs []string, err error) {
	nodeStubs, nerr := readRetry(ctx, c, "list node pool nodes", func(ctx context.Context) ([]*api.NodeListStub, error) {
		out, _, err := c.api.NodePools().ListNodes(name, c.query(ctx, nil))
		return out, err
	})
	for _, n := range nodeStubs {
		if n != nil {
			nodes = append(nodes, n.Name)
		}
	}
	jobStubs, jerr := readRetry(ctx, c, "list node pool jobs", func(ctx context.Context) ([]*api.JobListStub, error) {
		out, _, err := c.api.NodePools().ListJobs(name, c.query(ctx, &api.QueryOptions{Namespace: api.AllNamespacesNamespace}))
		return out, err
	})
	for _, j := range jobStubs {
		if j != nil && j.Status != "dead" {
			jobs = append(jobs, j.Namespace+"/"+j.ID)
		}
	}
	sort.Strings(nodes)
	sort.Strings(jobs)
	return nodes, jobs, errors.Join(nerr, jerr)
}
