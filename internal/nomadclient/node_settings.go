package nomadclient

import (
	"context"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/hashicorp/nomad/api"
)

// NodeSettings is what an operator sets on a node (eligibility, drain,
// metadata), as Nomad holds it.
type NodeSettings struct {
	ID, Name, NodePool, Status string
	Eligible                   bool
	// Drain is the drain in progress, nil when none.
	Drain *DrainSpec
	// LastDrain is how the node's last drain ended or stands: "" (never
	// drained), "draining", "complete" or "canceled".
	LastDrain string
	// Meta is the node's metadata as the servers hold it (the agent's
	// configuration merged with what the API set).
	Meta map[string]string
}

// DrainSpec is how a node is drained: allocations still on it when
// Deadline passes are stopped (0: no deadline); Force stops them at once;
// IgnoreSystemJobs leaves system jobs' allocations running.
type DrainSpec struct {
	Deadline         time.Duration
	IgnoreSystemJobs bool
	Force            bool
}

// StrandedAllocation is an allocation a drain stopped without a
// replacement elsewhere: Nomad could not place it on another node before
// the drain's deadline.
type StrandedAllocation struct {
	ID, Namespace, Job, Group string
}

func (a StrandedAllocation) String() string {
	return fmt.Sprintf("allocation %s of job %q (group %q, namespace %q)", a.ID, a.Job, a.Group, a.Namespace)
}

// GetNodeSettings reads a node by full ID.
func (c *Client) GetNodeSettings(ctx context.Context, id string) (*NodeSettings, error) {
	n, err := c.nodeInfo(ctx, id)
	if err != nil {
		return nil, err
	}
	return nodeSettingsOf(n), nil
}

func nodeSettingsOf(n *api.Node) *NodeSettings {
	s := &NodeSettings{ID: n.ID, Name: n.Name, NodePool: n.NodePool, Status: n.Status,
		Eligible: n.SchedulingEligibility == api.NodeSchedulingEligible, Meta: maps.Clone(n.Meta)}
	if n.DrainStrategy != nil {
		d := n.DrainStrategy.DrainSpec
		s.Drain = &DrainSpec{Deadline: max(d.Deadline, 0), IgnoreSystemJobs: d.IgnoreSystemJobs, Force: d.Deadline < 0}
	}
	if n.LastDrain != nil {
		s.LastDrain = string(n.LastDrain.Status)
	}
	return s
}

// NodeDynamicMeta reads the metadata set on a node through the API (not
// its agent's configuration), from the node's own agent, which has it
// without the servers' batching delay.
func (c *Client) NodeDynamicMeta(ctx context.Context, id string) (map[string]string, error) {
	resp, err := readRetry(ctx, c, "read node metadata", func(ctx context.Context) (*api.NodeMetaResponse, error) {
		return c.api.Nodes().Meta().Read(id, c.query(ctx, nil))
	})
	if err != nil {
		return nil, fmt.Errorf("reading the metadata of node %s: %w", id, err)
	}
	out := map[string]string{}
	for k, v := range resp.Dynamic {
		if v != nil {
			out[k] = *v
		}
	}
	return out, nil
}

// ApplyNodeMeta sets (a value) or removes (nil) keys of a node's dynamic
// metadata, then waits until the servers hold the result: a job
// constrained on `${meta.<key>}` registered after it returns is placed
// by what was set. Setting a value is idempotent, so a lost answer is
// retried.
func (c *Client) ApplyNodeMeta(ctx context.Context, id string, changes map[string]*string) error {
	if len(changes) == 0 {
		return nil
	}
	_, err := readRetry(ctx, c, "apply node metadata", func(ctx context.Context) (*api.NodeMetaResponse, error) {
		return c.api.Nodes().Meta().Apply(&api.NodeMetaApplyRequest{NodeID: id, Meta: changes}, c.query(ctx, nil))
	})
	if err != nil {
		return fmt.Errorf("setting metadata on node %s: %w", id, err)
	}
	_, err = c.waitNode(ctx, id, "the servers to hold node "+id+"'s new metadata", 0, func(n *api.Node) (bool, string) {
		for k, v := range changes {
			got, has := n.Meta[k]
			if v == nil && has || v != nil && got != *v {
				return false, fmt.Sprintf("meta %q is %q", k, got)
			}
		}
		return true, ""
	})
	return err
}

// SetNodeEligibility marks a node eligible or ineligible for scheduling.
func (c *Client) SetNodeEligibility(ctx context.Context, id string, eligible bool) error {
	_, err := retry(ctx, c.retry, "set node eligibility", func(ctx context.Context, _ int) (struct{}, bool, error) {
		_, err := c.api.Nodes().ToggleEligibility(id, eligible, c.write(ctx, ""))
		return struct{}{}, isRetryable(err) || isTimeout(err), err
	})
	if err != nil {
		return fmt.Errorf("setting the eligibility of node %s: %w", id, c.classify(err, "set node eligibility"))
	}
	return nil
}

// StartDrain drains a node (which also makes it ineligible) and returns
// the allocations on it when the drain began.
func (c *Client) StartDrain(ctx context.Context, id string, spec DrainSpec) ([]string, error) {
	allocs, err := c.NodeAllocations(ctx, id)
	if err != nil {
		return nil, err
	}
	deadline := spec.Deadline
	if spec.Force {
		deadline = -1
	}
	_, err = retry(ctx, c.retry, "drain node", func(ctx context.Context, _ int) (struct{}, bool, error) {
		_, err := c.api.Nodes().UpdateDrainOpts(id, &api.DrainOptions{
			DrainSpec: &api.DrainSpec{Deadline: deadline, IgnoreSystemJobs: spec.IgnoreSystemJobs},
			Meta:      map[string]string{"by": "berth"},
		}, c.write(ctx, ""))
		return struct{}{}, isRetryable(err) || isTimeout(err), err
	})
	if err != nil {
		return nil, fmt.Errorf("draining node %s: %w", id, c.classify(err, "drain node"))
	}
	ids := make([]string, 0, len(allocs))
	for _, a := range allocs {
		if spec.IgnoreSystemJobs && (a.JobType == "system" || a.JobType == "sysbatch") {
			continue
		}
		ids = append(ids, a.ID)
	}
	return ids, nil
}

// StopDrain cancels a drain in progress, marking the node eligible again
// when eligible is true (a finished drain leaves the node ineligible: it
// is marked eligible either way then).
func (c *Client) StopDrain(ctx context.Context, id string, eligible bool) error {
	n, err := c.nodeInfo(ctx, id)
	if err != nil {
		return err
	}
	if n.DrainStrategy == nil {
		if eligible && n.SchedulingEligibility != api.NodeSchedulingEligible {
			return c.SetNodeEligibility(ctx, id, true)
		}
		return nil
	}
	_, err = retry(ctx, c.retry, "cancel node drain", func(ctx context.Context, _ int) (struct{}, bool, error) {
		_, err := c.api.Nodes().UpdateDrainOpts(id, &api.DrainOptions{MarkEligible: eligible}, c.write(ctx, ""))
		return struct{}{}, isRetryable(err) || isTimeout(err), err
	})
	if err != nil {
		return fmt.Errorf("canceling the drain of node %s: %w", id, c.classify(err, "cancel node drain"))
	}
	return nil
}

// WaitDrained waits, by blocking queries, until the node's drain ends and
// the replacements it placed elsewhere have started, then reports which
// of the allocations on it when the drain began were stopped without
// moving: told to stop with no replacement, and not system jobs' (which a
// drain stops and never moves). A drain someone canceled is an error.
func (c *Client) WaitDrained(ctx context.Context, id string, began []string) ([]StrandedAllocation, error) {
	var last *api.Node
	_, err := c.waitNode(ctx, id, "node "+id+" to drain", 0, func(n *api.Node) (bool, string) {
		last = n
		if n.DrainStrategy != nil {
			return false, "draining"
		}
		return true, ""
	})
	if err != nil {
		return nil, c.withAllocsLeft(ctx, id, err)
	}
	if last.LastDrain != nil && last.LastDrain.Status == api.DrainStatusCanceled {
		return nil, fmt.Errorf("the drain of node %s was canceled before it completed (not by berth: check `nomad node status %s`)", id, id)
	}
	var stranded []StrandedAllocation
	var moved []string
	for _, allocID := range began {
		// Nomad can end a drain (a forced one above all) before its
		// scheduler has stopped what the drain marked: wait until the
		// allocation is stopped, replaced, or ended on its own.
		var a *api.Allocation
		err := poll(ctx, "allocation "+allocID+" to leave the drained node", 250*time.Millisecond, func() (bool, string, error) {
			var err error
			a, err = readRetry(ctx, c, "read allocation", func(ctx context.Context) (*api.Allocation, error) {
				out, _, err := c.api.Allocations().Info(allocID, c.query(ctx, &api.QueryOptions{Namespace: "*"}))
				return out, err
			})
			if err != nil {
				return false, "", err
			}
			settled := a.DesiredStatus != api.AllocDesiredStatusRun || a.NextAllocation != "" || a.ClientTerminalStatus() ||
				(a.Job != nil && a.Job.Type != nil && (*a.Job.Type == "system" || *a.Job.Type == "sysbatch"))
			return settled, a.DesiredStatus + "/" + a.ClientStatus, nil
		})
		if IsNotFound(err) {
			continue // garbage-collected: its job is gone
		}
		if err != nil {
			return nil, fmt.Errorf("reading allocation %s after the drain: %w", allocID, err)
		}
		jobType := ""
		if a.Job != nil && a.Job.Type != nil {
			jobType = *a.Job.Type
		}
		if a.NextAllocation != "" {
			moved = append(moved, a.NextAllocation)
			continue
		}
		// Finished on its own (a batch run) or never moved by design (a
		// system job): not stranded. Stopped by the drain: it is.
		if a.DesiredStatus == api.AllocDesiredStatusRun || jobType == "system" || jobType == "sysbatch" {
			continue
		}
		stranded = append(stranded, StrandedAllocation{ID: a.ID, Namespace: a.Namespace, Job: a.JobID, Group: a.TaskGroup})
	}
	if err := c.waitStarted(ctx, moved); err != nil {
		return nil, err
	}
	slices.SortFunc(stranded, func(a, b StrandedAllocation) int { return strings.Compare(a.ID, b.ID) })
	return stranded, nil
}

// withAllocsLeft adds to a drain wait that ended early the allocations
// still on the node (read with a fresh deadline: the wait's own may be
// what ended).
func (c *Client) withAllocsLeft(ctx context.Context, id string, err error) error {
	read, cancel := context.WithTimeout(context.WithoutCancel(ctx), 15*time.Second)
	defer cancel()
	allocs, lerr := c.NodeAllocations(read, id)
	if lerr != nil || len(allocs) == 0 {
		return err
	}
	left := make([]string, len(allocs))
	for i, a := range allocs {
		left[i] = fmt.Sprintf("allocation %s of job %q (namespace %q, %s)", a.ID, a.JobID, a.Namespace, a.ClientStatus)
	}
	return fmt.Errorf("%w; still on the node: %s", err, strings.Join(left, "; "))
}

// waitStarted waits until each allocation has started (or ended): the
// replacements a drain placed elsewhere are running when the apply
// returns.
func (c *Client) waitStarted(ctx context.Context, allocs []string) error {
	for _, id := range allocs {
		err := poll(ctx, "replacement allocation "+id+" to start", 250*time.Millisecond, func() (bool, string, error) {
			a, err := readRetry(ctx, c, "read allocation", func(ctx context.Context) (*api.Allocation, error) {
				out, _, err := c.api.Allocations().Info(id, c.query(ctx, &api.QueryOptions{Namespace: "*"}))
				return out, err
			})
			if err != nil {
				return false, "", fmt.Errorf("reading allocation %s: %w", id, err)
			}
			return a.ClientStatus != api.AllocClientStatusPending, a.ClientStatus, nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// waitNode follows a node by blocking queries until done says so, the
// first after index (0 reads at once), and returns the index to wait on
// next: a caller that waits again sees the node only once it changed.
func (c *Client) waitNode(ctx context.Context, id, what string, index uint64, done func(*api.Node) (bool, string)) (uint64, error) {
	err := poll(ctx, what, blockingPause, func() (bool, string, error) {
		type answer struct {
			node  *api.Node
			index uint64
		}
		a, err := readRetry(ctx, c, "read node", func(ctx context.Context) (answer, error) {
			q := &api.QueryOptions{}
			if index > 0 {
				q.WaitIndex, q.WaitTime = index, min(blockingWait(ctx), maxBlockingWait)
			}
			out, meta, err := c.api.Nodes().Info(url.PathEscape(id), c.query(ctx, q))
			if err != nil {
				return answer{}, err
			}
			return answer{out, meta.LastIndex}, nil
		})
		if err != nil {
			return false, "", fmt.Errorf("reading node %s: %w", id, err)
		}
		index = a.index
		ok, state := done(a.node)
		return ok, state, nil
	})
	return index, err
}
