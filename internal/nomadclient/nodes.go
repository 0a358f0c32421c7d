package nomadclient

import (
	"context"
	"fmt"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/nomad/api"

	"github.com/berthhq/terraform-provider-berth/internal/allocstatus"
	"github.com/berthhq/terraform-provider-berth/internal/capacity"
	"github.com/berthhq/terraform-provider-berth/internal/hold"
	"github.com/berthhq/terraform-provider-berth/internal/lease"
	"github.com/berthhq/terraform-provider-berth/internal/ledger"
)

// NodeFilter narrows a node listing. Empty fields do not filter. All of it
// is evaluated by Nomad, so filtering costs no extra calls.
type NodeFilter struct {
	Datacenter string
	NodePool   string
	NodeClass  string
	Status     string
	// Expression is a raw Nomad filter expression, ANDed with the rest.
	Expression string
}

// Expression renders f as one Nomad filter expression ("" when empty).
func (f NodeFilter) expression() string {
	var parts []string
	add := func(selector, value string) {
		if value != "" {
			parts = append(parts, fmt.Sprintf("%s == %s", selector, strconv.Quote(value)))
		}
	}
	add("Datacenter", f.Datacenter)
	add("NodePool", f.NodePool)
	add("NodeClass", f.NodeClass)
	add("Status", f.Status)
	if f.Expression != "" {
		parts = append(parts, "("+f.Expression+")")
	}
	return strings.Join(parts, " and ")
}

// NodeInfo is what berth reports for every node.
type NodeInfo struct {
	ID         string
	Name       string
	Datacenter string
	NodePool   string
	NodeClass  string
	Address    string
	Status     string
	Eligible   bool
	Draining   bool
	// Drivers names the drivers that are detected and healthy, sorted.
	Drivers []string
	// Meta is the node's client meta; nil when it was not fetched.
	Meta            map[string]string
	Capacity        capacity.Node
	AllocationCount int
	// Reservations are berth's node reservations on the node, by name.
	Reservations []NodeReservation
	// Leases are the active berth leases (berth_reservation) on the node.
	Leases []NodeLease
}

// NodeLease is an active berth lease as node listings show it.
type NodeLease struct {
	Name, Namespace, User, ExpiresAt string
	Resources                        capacity.Resources
}

// Ready reports whether the node can take new work: status ready, eligible
// for scheduling and not draining.
func (n NodeInfo) Ready() bool {
	return n.Status == api.NodeStatusReady && n.Eligible && !n.Draining
}

// NodeDetail adds what a single-node lookup reports.
type NodeDetail struct {
	NodeInfo
	StatusDescription string
	DriverDetails     []DriverDetail
	HostVolumes       []HostVolume
	// Events are the node's recent events, newest first.
	Events []NodeEvent
}

// DriverDetail is one task driver as the node fingerprinted it.
type DriverDetail struct {
	Name        string
	Detected    bool
	Healthy     bool
	Description string
}

// HostVolume is a host volume the node offers (static or dynamic).
type HostVolume struct {
	Name     string
	Path     string
	ReadOnly bool
	ID       string // set for dynamic host volumes only
}

// NodeEvent is one entry of a node's event history.
type NodeEvent struct {
	Time      time.Time
	Subsystem string
	Message   string
}

// nonTerminalAllocs selects allocations that still hold resources on their
// node (allocstatus.Live, evaluated by Nomad); Nomad's own fit check ignores
// client-terminal ones the same way.
var nonTerminalAllocs = allocstatus.LiveFilter()

// NodeReservation is a berth reservation as node listings show it.
type NodeReservation struct {
	Name        string
	Request     capacity.Resources
	Used        capacity.Resources
	Annotations map[string]string
}

// ListNodes returns the nodes that match f with their capacity, sorted by
// name then ID. Calls: the node list, the allocation list and one list of
// berth's lease and hold jobs with their meta, whatever the number of
// nodes or reservations (reservations are read from the ledger items their
// hold jobs mirror: Nomad's variable list carries no items), plus, with
// withMeta, one read per node (Nomad's node list carries no meta).
func (c *Client) ListNodes(ctx context.Context, f NodeFilter, withMeta bool, ledgerNS string) ([]NodeInfo, error) {
	stubs, err := readRetry(ctx, c, "list nodes", func(ctx context.Context) ([]*api.NodeListStub, error) {
		out, _, err := c.api.Nodes().List(c.query(ctx, &api.QueryOptions{
			Params: map[string]string{"resources": "true"},
			Filter: f.expression(),
		}))
		return out, err
	})
	if err != nil {
		return nil, fmt.Errorf("listing nodes: %w", err)
	}
	if len(stubs) == 0 {
		return []NodeInfo{}, nil
	}
	allocs, err := c.allocationsByNode(ctx)
	if err != nil {
		return nil, err
	}
	ledgers, leases, err := c.berthJobs(ctx, ledgerNS)
	if err != nil {
		return nil, err
	}
	nodes := make([]NodeInfo, 0, len(stubs))
	for _, s := range stubs {
		n := nodeInfoFromStub(s)
		applyLedger(&n, allocs[s.ID], ledgers[s.ID])
		applyLeases(&n, allocs[s.ID], leases)
		nodes = append(nodes, n)
	}
	sortNodes(nodes)
	if withMeta {
		for i := range nodes {
			full, err := c.nodeInfo(ctx, nodes[i].ID)
			if err != nil {
				return nil, err
			}
			nodes[i].Meta = nonNilMap(full.Meta)
		}
	}
	return nodes, nil
}

// applyLedger fills a node's allocated and reserved capacity: allocations
// charged to a reservation on the node count once, inside reserved.
func applyLedger(n *NodeInfo, allocs []*api.AllocationListStub, l ledger.Ledger) {
	n.AllocationCount = len(allocs)
	n.Capacity.Allocated = allocatedOutside(allocs, l)
	n.Capacity.Reserved = l.Reserved()
	n.Reservations = []NodeReservation{}
	names := make([]string, 0, len(l.Reservations))
	for name := range l.Reservations {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		r := l.Reservations[name]
		n.Reservations = append(n.Reservations, NodeReservation{Name: name, Request: r.Request, Used: r.Used(), Annotations: r.Annotations})
	}
}

// berthJobs lists berth's lease jobs (every namespace) and hold jobs (in
// ledgerNS) with their meta in one call. It returns each node's ledger as
// its hold jobs mirror it, and the leases keyed by "<namespace>/<job>".
func (c *Client) berthJobs(ctx context.Context, ledgerNS string) (map[string]ledger.Ledger, map[string]*api.JobListStub, error) {
	stubs, err := readRetry(ctx, c, "list berth jobs", func(ctx context.Context) ([]*api.JobListStub, error) {
		out, _, err := c.api.Jobs().ListOptions(&api.JobListOptions{Fields: &api.JobListFields{Meta: true}},
			c.query(ctx, &api.QueryOptions{Namespace: "*", Filter: fmt.Sprintf("Meta[%q] == %q or Meta[%q] == %q",
				lease.MetaKind, lease.KindLease, hold.MetaKind, hold.KindHold)}))
		return out, err
	})
	if err != nil {
		return nil, nil, fmt.Errorf("listing berth's lease and hold jobs: %w", err)
	}
	ledgers := map[string]ledger.Ledger{}
	leases := map[string]*api.JobListStub{}
	for _, s := range stubs {
		switch {
		case s.Meta[lease.MetaKind] == lease.KindLease:
			leases[s.Namespace+"/"+s.ID] = s
		case s.Namespace == ledgerNS && !s.Stop:
			nodeID, name := s.Meta[hold.MetaNodeID], s.Meta[hold.MetaNodeReservation]
			r, err := ledger.DecodeItem(name, s.Meta[hold.MetaLedgerItem])
			if err != nil {
				return nil, nil, fmt.Errorf("hold job %q mirrors an invalid ledger item %q: %w", s.ID, name, err)
			}
			l, ok := ledgers[nodeID]
			if !ok {
				l = ledger.Ledger{NodeID: nodeID, Reservations: map[string]ledger.Reservation{}}
				ledgers[nodeID] = l
			}
			l.Reservations[name] = r
		}
	}
	return ledgers, leases, nil
}

// leaseJobs lists berth's lease jobs in every namespace with their meta,
// in one call, keyed by "<namespace>/<job>".
func (c *Client) leaseJobs(ctx context.Context) (map[string]*api.JobListStub, error) {
	stubs, err := readRetry(ctx, c, "list lease jobs", func(ctx context.Context) ([]*api.JobListStub, error) {
		out, _, err := c.api.Jobs().ListOptions(&api.JobListOptions{Fields: &api.JobListFields{Meta: true}},
			c.query(ctx, &api.QueryOptions{Namespace: "*", Filter: fmt.Sprintf("Meta[%q] == %q", lease.MetaKind, lease.KindLease)}))
		return out, err
	})
	if err != nil {
		return nil, fmt.Errorf("listing berth leases: %w", err)
	}
	out := make(map[string]*api.JobListStub, len(stubs))
	for _, s := range stubs {
		out[s.Namespace+"/"+s.ID] = s
	}
	return out, nil
}

// applyLeases lists the leases whose allocations run on the node.
func applyLeases(n *NodeInfo, allocs []*api.AllocationListStub, leases map[string]*api.JobListStub) {
	n.Leases = []NodeLease{}
	for _, a := range allocs {
		job, ok := leases[a.Namespace+"/"+a.JobID]
		if !ok {
			continue
		}
		n.Leases = append(n.Leases, NodeLease{
			Name: a.JobID, Namespace: a.Namespace, User: job.Meta[lease.MetaUser], ExpiresAt: job.Meta[lease.MetaExpiresAt],
			Resources: AllocResources(a.AllocatedResources),
		})
	}
	sort.Slice(n.Leases, func(i, j int) bool {
		return n.Leases[i].Namespace+"/"+n.Leases[i].Name < n.Leases[j].Namespace+"/"+n.Leases[j].Name
	})
}

func sortNodes(nodes []NodeInfo) {
	sort.Slice(nodes, func(i, j int) bool {
		if nodes[i].Name != nodes[j].Name {
			return nodes[i].Name < nodes[j].Name
		}
		return nodes[i].ID < nodes[j].ID
	})
}

// AllocResources is what one allocation holds on its node: the sum of its
// tasks' CPU and memory plus the group's shared disk.
func AllocResources(r *api.AllocatedResources) capacity.Resources {
	var out capacity.Resources
	if r == nil {
		return out
	}
	for _, t := range r.Tasks {
		if t == nil {
			continue
		}
		out.CPU += t.Cpu.CpuShares
		out.MemoryMB += t.Memory.MemoryMB
	}
	out.DiskMB += r.Shared.DiskMB
	return out
}

func nodeCapacity(total *api.NodeResources, reserved *api.NodeReservedResources) capacity.Node {
	var n capacity.Node
	if total != nil {
		n.Total = capacity.Resources{CPU: total.Cpu.CpuShares, MemoryMB: total.Memory.MemoryMB, DiskMB: total.Disk.DiskMB}
	}
	if reserved != nil {
		n.AgentReserved = capacity.Resources{
			CPU:      int64(reserved.Cpu.CpuShares),
			MemoryMB: int64(reserved.Memory.MemoryMB),
			DiskMB:   int64(reserved.Disk.DiskMB),
		}
	}
	return n
}

func healthyDrivers(drivers map[string]*api.DriverInfo) []string {
	out := []string{}
	for name, d := range drivers {
		if d != nil && d.Detected && d.Healthy {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

func nodeInfoFromStub(s *api.NodeListStub) NodeInfo {
	return NodeInfo{
		ID:         s.ID,
		Name:       s.Name,
		Datacenter: s.Datacenter,
		NodePool:   s.NodePool,
		NodeClass:  s.NodeClass,
		Address:    s.Address,
		Status:     s.Status,
		Eligible:   s.SchedulingEligibility == api.NodeSchedulingEligible,
		Draining:   s.Drain,
		Drivers:    healthyDrivers(s.Drivers),
		Capacity:   nodeCapacity(s.NodeResources, s.ReservedResources),
	}
}

func nonNilMap(m map[string]string) map[string]string {
	if m == nil {
		return map[string]string{}
	}
	return m
}

func (c *Client) nodeInfo(ctx context.Context, id string) (*api.Node, error) {
	n, err := readRetry(ctx, c, "read node", func(ctx context.Context) (*api.Node, error) {
		// The api package puts the ID into the path unescaped.
		out, _, err := c.api.Nodes().Info(url.PathEscape(id), c.query(ctx, nil))
		return out, err
	})
	if err != nil {
		if IsNotFound(err) {
			return nil, &NodeNotFoundError{By: "id", Value: id}
		}
		return nil, fmt.Errorf("reading node %s: %w", id, err)
	}
	return n, nil
}
