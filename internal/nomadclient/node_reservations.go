package nomadclient

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/hashicorp/nomad/api"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/berthhq/terraform-provider-berth/internal/capacity"
	"github.com/berthhq/terraform-provider-berth/internal/hold"
	"github.com/berthhq/terraform-provider-berth/internal/ledger"
)

// InstanceConsumer, VolumeConsumer and LeaseConsumer name the work charged
// to a node reservation in the ledger.
func InstanceConsumer(namespace, job string) string { return "instance:" + namespace + "/" + job }

// VolumeConsumer names a volume charged to a node reservation.
func VolumeConsumer(namespace, name string) string { return "volume:" + namespace + "/" + name }

// LeaseConsumer names a lease (berth_reservation) charged to a node reservation.
func LeaseConsumer(namespace, name string) string { return "lease:" + namespace + "/" + name }

// JobConsumer names a berth_job charged to a node reservation.
func JobConsumer(namespace, job string) string { return "job:" + namespace + "/" + job }

// Placement narrows where a node reservation without a node may go.
type Placement struct {
	Datacenter, NodePool, NodeClass string
	Strategy                        ledger.Strategy
}

// NodeReservationRequest is one node reservation to create or resize.
type NodeReservationRequest struct {
	Name        string
	NodeID      string // "" = schedule with Placement
	Placement   Placement
	Request     capacity.Resources
	Annotations map[string]string
	// Create refuses a reservation of the same name that holds something
	// else, or was made by another create (another configuration's): only
	// this request's own earlier write, whose answer was lost, is taken.
	Create bool
	// CreatedAt stamps a new reservation. A create sets it once and keeps
	// it across its retries, so the stamp tells its own write from another
	// configuration's reservation of the same name and size. Zero means now.
	CreatedAt time.Time
}

// NodeReservationExistsError says a new node reservation's name is taken
// on its node by a reservation that holds something else.
type NodeReservationExistsError struct {
	Name, NodeID string
	Holds        capacity.Resources
}

func (e *NodeReservationExistsError) Error() string {
	return fmt.Sprintf("node %s already has a reservation named %q (holding %s), which this configuration did not create. "+
		"Choose another name, or import it: terraform import <address> %s/%s", e.NodeID, e.Name, e.Holds, e.NodeID, e.Name)
}

// NodeReservationState is a node reservation as the ledger holds it, with its node.
type NodeReservationState struct {
	ledger.Reservation
	Name       string
	NodeID     string
	NodeName   string
	Datacenter string
	NodeStatus string
	NodeGone   bool // the node left the cluster; the reservation is kept
	// NodeDraining says the node is draining or drained (ineligible after
	// a drain): the hold's allocation is stopped like any pinned work, so
	// the reservation's capacity is not held there meanwhile.
	NodeDraining bool
	// Hold is what Nomad's scheduler holds for the reservation now, read
	// from its hold job; HoldInSync says whether that job is what the
	// ledger asks for (false: the next write, or SyncHold, repairs it).
	Hold       HoldState
	HoldInSync bool
}

// allocatedOutside sums the allocations not charged to a reservation in
// l: work charged to one is already counted inside "reserved". A hold's
// allocation is that reservation's own unused budget, so only what it takes
// beyond the budget (disk raised to Nomad's minimum) counts; a hold the
// ledger no longer knows of counts in full, as it still takes the room.
func allocatedOutside(allocs []*api.AllocationListStub, l ledger.Ledger) capacity.Resources {
	charged := l.ConsumerKeys()
	holds := make(map[string]ledger.Reservation, len(l.Reservations))
	for name, r := range l.Reservations {
		holds[hold.JobID(l.NodeID, name)] = r
	}
	var out capacity.Resources
	for _, a := range allocs {
		// Instances and leases are jobs: their allocations are inside the
		// reservation they are charged to.
		if charged[InstanceConsumer(a.Namespace, a.JobID)] || charged[LeaseConsumer(a.Namespace, a.JobID)] ||
			charged[JobConsumer(a.Namespace, a.JobID)] {
			continue
		}
		res := AllocResources(a.AllocatedResources)
		if r, ok := holds[a.JobID]; ok {
			if a.DesiredStatus != api.AllocDesiredStatusRun {
				continue // a replaced hold: the scheduler no longer counts it
			}
			res = hold.Excess(res, r.Remaining())
		}
		out = out.Add(res)
	}
	return out
}

func nodeStateOf(n *api.Node, allocs []*api.AllocationListStub, l ledger.Ledger) ledger.NodeState {
	c := nodeCapacity(n.NodeResources, n.ReservedResources)
	return ledger.NodeState{ID: n.ID, Name: n.Name, Allocatable: c.Allocatable(), Allocated: allocatedOutside(allocs, l)}
}

// ReserveOn creates or resizes node reservation req.Name on nodeID under
// check-and-set (req.NodeID is ignored). A request that no longer fits is
// a *ledger.NotEnoughError; choosing another node is the caller's
// (workflow.NodeReservations) decision.
func (c *Client) ReserveOn(ctx context.Context, ns, nodeID string, req NodeReservationRequest) error {
	node, err := c.nodeInfo(ctx, nodeID)
	if err != nil {
		return err
	}
	return c.UpdateLedger(ctx, ns, nodeID, func(items map[string]string) (map[string]string, error) {
		l, err := ledger.Decode(nodeID, items)
		if err != nil {
			return nil, err
		}
		// Allocations are re-read on every attempt: capacity is checked
		// against the ledger version being written.
		allocs, err := c.NodeAllocations(ctx, nodeID)
		if err != nil {
			return nil, err
		}
		if old, taken := l.Reservations[req.Name]; taken && req.Create && !ownEarlierWrite(old, req) {
			return nil, &NodeReservationExistsError{Name: req.Name, NodeID: nodeID, Holds: old.Request}
		}
		c.pruneVanishedConsumers(ctx, &l, req.Name)
		if err := l.Reserve(nodeStateOf(node, allocs, l), req.Name, req.Request, req.Annotations, stamp(req.CreatedAt)); err != nil {
			return nil, err
		}
		if err := l.CheckSize(node.Name); err != nil {
			return nil, err
		}
		return l.Encode()
	})
}

// CheckNodeReservation reports whether req would fit now, without writing
// (plan-time check). A missing node is reported as *NodeNotFoundError.
func (c *Client) CheckNodeReservation(ctx context.Context, ns string, req NodeReservationRequest) error {
	node, err := c.nodeInfo(ctx, req.NodeID)
	if err != nil {
		return err
	}
	cur, err := c.ReadLedger(ctx, ns, req.NodeID)
	if err != nil {
		return err
	}
	l, err := ledger.Decode(req.NodeID, cur.Items)
	if err != nil {
		return err
	}
	allocs, err := c.NodeAllocations(ctx, req.NodeID)
	if err != nil {
		return err
	}
	c.pruneVanishedConsumers(ctx, &l, req.Name)
	return l.Reserve(nodeStateOf(node, allocs, l), req.Name, req.Request, req.Annotations, stamp(req.CreatedAt))
}

// ownEarlierWrite reports whether the reservation found under a create's
// name is that create's own write: same stamp, request and annotations.
func ownEarlierWrite(found ledger.Reservation, req NodeReservationRequest) bool {
	sameAnnotations := maps.Equal(found.Annotations, req.Annotations) || len(found.Annotations)+len(req.Annotations) == 0
	return !req.CreatedAt.IsZero() && found.CreatedAt.Equal(req.CreatedAt) && found.Request == req.Request && sameAnnotations
}

// stamp is t in UTC, or now when t is zero.
func stamp(t time.Time) time.Time {
	if t.IsZero() {
		return time.Now().UTC()
	}
	return t.UTC()
}

// NodeCandidates gathers the nodes matching p with their ledgers and
// current allocations, for ledger.Pick.
func (c *Client) NodeCandidates(ctx context.Context, ns string, p Placement) ([]ledger.Candidate, error) {
	stubs, err := readRetry(ctx, c, "list nodes", func(ctx context.Context) ([]*api.NodeListStub, error) {
		out, _, err := c.api.Nodes().List(c.query(ctx, &api.QueryOptions{
			Params: map[string]string{"resources": "true"},
			Filter: NodeFilter{Datacenter: p.Datacenter, NodePool: p.NodePool, NodeClass: p.NodeClass}.expression(),
		}))
		return out, err
	})
	if err != nil {
		return nil, fmt.Errorf("listing nodes for scheduling: %w", err)
	}
	byNode, err := c.allocationsByNode(ctx)
	if err != nil {
		return nil, err
	}
	ledgers, err := c.readLedgers(ctx, ns)
	if err != nil {
		return nil, err
	}
	cands := make([]ledger.Candidate, 0, len(stubs))
	for _, s := range stubs {
		l := ledgers[s.ID]
		if l.NodeID == "" {
			l = ledger.Ledger{NodeID: s.ID, Reservations: map[string]ledger.Reservation{}}
		}
		capNode := nodeCapacity(s.NodeResources, s.ReservedResources)
		cands = append(cands, ledger.Candidate{
			Node:     ledger.NodeState{ID: s.ID, Name: s.Name, Allocatable: capNode.Allocatable(), Allocated: allocatedOutside(byNode[s.ID], l)},
			Ledger:   l,
			Status:   s.Status,
			Eligible: s.SchedulingEligibility == api.NodeSchedulingEligible,
			Draining: s.Drain,
		})
	}
	return cands, nil
}

// allocationsByNode lists every non-terminal allocation once, by node.
func (c *Client) allocationsByNode(ctx context.Context) (map[string][]*api.AllocationListStub, error) {
	stubs, err := readRetry(ctx, c, "list allocations", func(ctx context.Context) ([]*api.AllocationListStub, error) {
		out, _, err := c.api.Allocations().List(c.query(ctx, &api.QueryOptions{
			Namespace: "*", Params: map[string]string{"resources": "true"}, Filter: nonTerminalAllocs,
		}))
		return out, err
	})
	if err != nil {
		return nil, fmt.Errorf("listing allocations: %w", err)
	}
	out := map[string][]*api.AllocationListStub{}
	for _, a := range stubs {
		out[a.NodeID] = append(out[a.NodeID], a)
	}
	return out, nil
}

// readLedgers reads every node ledger: one list call, then one read per
// node that has reservations (Nomad's list does not return items).
func (c *Client) readLedgers(ctx context.Context, ns string) (map[string]ledger.Ledger, error) {
	ids, err := c.LedgerNodes(ctx, ns)
	if err != nil {
		return nil, err
	}
	out := make(map[string]ledger.Ledger, len(ids))
	for _, id := range ids {
		cur, err := c.ReadLedger(ctx, ns, id)
		if err != nil {
			return nil, err
		}
		l, err := ledger.Decode(id, cur.Items)
		if err != nil {
			return nil, err
		}
		out[id] = l
	}
	return out, nil
}

// ReadNodeReservation reads one node reservation; found is false when its ledger
// item is gone. A node that left the cluster is reported with NodeGone.
func (c *Client) ReadNodeReservation(ctx context.Context, ns, nodeID, name string) (*NodeReservationState, bool, error) {
	cur, err := c.ReadLedger(ctx, ns, nodeID)
	if err != nil {
		return nil, false, err
	}
	l, err := ledger.Decode(nodeID, cur.Items)
	if err != nil {
		return nil, false, err
	}
	r, ok := l.Reservations[name]
	if !ok {
		return nil, false, nil
	}
	out := &NodeReservationState{Reservation: r, Name: name, NodeID: nodeID}
	if out.Hold, out.HoldInSync, err = c.readHold(ctx, ns, nodeID, name, l); err != nil {
		return nil, false, err
	}
	node, err := c.nodeInfo(ctx, nodeID)
	var nf *NodeNotFoundError
	switch {
	case errors.As(err, &nf):
		out.NodeGone = true
	case err != nil:
		return nil, false, err
	default:
		out.NodeName, out.Datacenter, out.NodeStatus = node.Name, node.Datacenter, node.Status
		out.NodeDraining = node.DrainStrategy != nil ||
			node.SchedulingEligibility != api.NodeSchedulingEligible && node.LastDrain != nil && node.LastDrain.Status == api.DrainStatusComplete
	}
	return out, true, nil
}

// ReleaseNodeReservation removes a node reservation; a missing one is success.
// It refuses while work is still charged to it.
//
// createdAt, when not zero, is the reservation's creation stamp as state
// knows it (to the second): an item of that name with another stamp was
// made by another create, after this one was released or never landed,
// and is left alone.
func (c *Client) ReleaseNodeReservation(ctx context.Context, ns, nodeID, name string, createdAt time.Time) error {
	return c.UpdateLedger(ctx, ns, nodeID, func(items map[string]string) (map[string]string, error) {
		l, err := ledger.Decode(nodeID, items)
		if err != nil {
			return nil, err
		}
		if r, ok := l.Reservations[name]; ok && !createdAt.IsZero() && !r.CreatedAt.Truncate(time.Second).Equal(createdAt.Truncate(time.Second)) {
			tflog.Info(ctx, "A reservation of that name made by another create is left alone", map[string]any{
				"node": nodeID, "name": name, "created_at": r.CreatedAt, "ours": createdAt,
			})
			return items, nil // unchanged: nothing is written
		}
		c.pruneVanishedConsumers(ctx, &l, name)
		if r, ok := l.Reservations[name]; ok && len(r.Consumers) > 0 {
			keys := make([]string, 0, len(r.Consumers))
			for k := range r.Consumers {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			return nil, fmt.Errorf("reservation %q on node %s still has work charged to it: %s; destroy that work first",
				name, idPrefix(nodeID), strings.Join(keys, ", "))
		}
		l.Release(name)
		return l.Encode()
	})
}

// ParseNodeReservationID splits a node reservation ID, "<node_id>/<name>".
func ParseNodeReservationID(id string) (nodeID, name string, err error) {
	nodeID, name, ok := strings.Cut(id, "/")
	if !ok || nodeID == "" || name == "" {
		return "", "", fmt.Errorf("%q is not a node reservation ID: expected <node_id>/<name>", id)
	}
	return nodeID, name, nil
}

// Charge records work against a node reservation (replacing an earlier charge
// by the same consumer) under check-and-set.
func (c *Client) Charge(ctx context.Context, ns, reservationID, consumer string, amount capacity.Resources) error {
	nodeID, name, err := ParseNodeReservationID(reservationID)
	if err != nil {
		return err
	}
	return c.UpdateLedger(ctx, ns, nodeID, func(items map[string]string) (map[string]string, error) {
		l, err := ledger.Decode(nodeID, items)
		if err != nil {
			return nil, err
		}
		if err := l.Charge(name, consumer, amount); err != nil {
			return nil, err
		}
		return l.Encode()
	})
}

// Uncharge releases a consumer's charge; a missing reservation or charge
// is success.
func (c *Client) Uncharge(ctx context.Context, ns, reservationID, consumer string) error {
	nodeID, name, err := ParseNodeReservationID(reservationID)
	if err != nil {
		return err
	}
	return c.UpdateLedger(ctx, ns, nodeID, func(items map[string]string) (map[string]string, error) {
		l, err := ledger.Decode(nodeID, items)
		if err != nil {
			return nil, err
		}
		l.Uncharge(name, consumer)
		return l.Encode()
	})
}

// NodeReservationRef names one node reservation.
type NodeReservationRef struct{ NodeID, Name string }

// ListNodeReservations lists the reservations in the ledgers of ns, on
// one node (nodeID, a full ID) or on all, whose names start with
// namePrefix, sorted by node and name.
func (c *Client) ListNodeReservations(ctx context.Context, ns, nodeID, namePrefix string) ([]NodeReservationRef, error) {
	ledgers := map[string]ledger.Ledger{}
	if nodeID != "" {
		cur, err := c.ReadLedger(ctx, ns, nodeID)
		if err != nil {
			return nil, err
		}
		l, err := ledger.Decode(nodeID, cur.Items)
		if err != nil {
			return nil, err
		}
		ledgers[nodeID] = l
	} else {
		var err error
		if ledgers, err = c.readLedgers(ctx, ns); err != nil {
			return nil, err
		}
	}
	var out []NodeReservationRef
	for node, l := range ledgers {
		for name := range l.Reservations {
			if strings.HasPrefix(name, namePrefix) {
				out = append(out, NodeReservationRef{NodeID: node, Name: name})
			}
		}
	}
	slices.SortFunc(out, func(a, b NodeReservationRef) int {
		return strings.Compare(a.NodeID+"/"+a.Name, b.NodeID+"/"+b.Name)
	})
	return out, nil
}
