package nomadclient

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sort"
	"strconv"
	"strings"

	"github.com/hashicorp/nomad/api"

	"github.com/berthhq/terraform-provider-berth/internal/ledger"
)

// NodeNotFoundError says no node matched a lookup.
type NodeNotFoundError struct {
	By    string // "id" or "name"
	Value string
}

func (e *NodeNotFoundError) Error() string {
	return fmt.Sprintf("no Nomad node has %s %q", e.By, e.Value)
}

// AmbiguousNodeError says several nodes matched a lookup that must name one.
type AmbiguousNodeError struct {
	By      string
	Value   string
	Matches []NodeRef
}

// NodeRef identifies a node in messages.
type NodeRef struct{ ID, Name, Datacenter, Status string }

func (e *AmbiguousNodeError) Error() string {
	lines := make([]string, 0, len(e.Matches))
	for _, m := range e.Matches {
		lines = append(lines, fmt.Sprintf("  %s  name=%s datacenter=%s status=%s", m.ID, m.Name, m.Datacenter, m.Status))
	}
	return fmt.Sprintf("%d Nomad nodes match %s %q; use a longer ID prefix or the full ID:\n%s",
		len(e.Matches), e.By, e.Value, strings.Join(lines, "\n"))
}

// FindNode looks a node up by ID (full or unique prefix) when id is set,
// else by exact name, and returns its details with capacity.
func (c *Client) FindNode(ctx context.Context, id, name, ledgerNS string) (*NodeDetail, error) {
	by, value := "id", id
	q := &api.QueryOptions{}
	if id != "" {
		if strings.Trim(strings.ToLower(id), "0123456789abcdef-") != "" {
			// Not hex: no node ID can start with it (and Nomad's index
			// would answer 500).
			return nil, &NodeNotFoundError{By: "id", Value: id}
		}
		q.Prefix = evenPrefix(id)
	} else {
		by, value = "name", name
		q.Filter = "Name == " + strconv.Quote(name)
	}
	stubs, err := readRetry(ctx, c, "find node", func(ctx context.Context) ([]*api.NodeListStub, error) {
		out, _, err := c.api.Nodes().List(c.query(ctx, q))
		return out, err
	})
	if err != nil {
		return nil, fmt.Errorf("looking up node by %s %q: %w", by, value, err)
	}
	if id != "" {
		stubs = withPrefix(stubs, id)
	}
	match, err := pickNode(stubs, by, value)
	if err != nil {
		return nil, err
	}
	node, err := c.nodeInfo(ctx, match.ID)
	if err != nil {
		return nil, err
	}
	allocs, err := c.NodeAllocations(ctx, node.ID)
	if err != nil {
		return nil, err
	}
	cur, err := c.ReadLedger(ctx, ledgerNS, node.ID)
	if err != nil {
		return nil, err
	}
	l, err := ledger.Decode(node.ID, cur.Items)
	if err != nil {
		return nil, err
	}
	leases, err := c.leaseJobs(ctx)
	if err != nil {
		return nil, err
	}
	d := nodeDetailFromNode(node)
	applyLedger(&d.NodeInfo, allocs, l)
	applyLeases(&d.NodeInfo, allocs, leases)
	return d, nil
}

// pickNode chooses the one stub a lookup means. An exact ID match wins over
// longer IDs sharing the prefix.
func pickNode(stubs []*api.NodeListStub, by, value string) (*api.NodeListStub, error) {
	switch len(stubs) {
	case 0:
		return nil, &NodeNotFoundError{By: by, Value: value}
	case 1:
		return stubs[0], nil
	}
	if by == "id" {
		for _, s := range stubs {
			if s.ID == value {
				return s, nil
			}
		}
	}
	refs := make([]NodeRef, 0, len(stubs))
	for _, s := range stubs {
		refs = append(refs, NodeRef{ID: s.ID, Name: s.Name, Datacenter: s.Datacenter, Status: s.Status})
	}
	sort.Slice(refs, func(i, j int) bool { return refs[i].ID < refs[j].ID })
	return nil, &AmbiguousNodeError{By: by, Value: value, Matches: refs}
}

func nodeDetailFromNode(n *api.Node) *NodeDetail {
	d := &NodeDetail{
		NodeInfo: NodeInfo{
			ID:         n.ID,
			Name:       n.Name,
			Datacenter: n.Datacenter,
			NodePool:   n.NodePool,
			NodeClass:  n.NodeClass,
			Address:    hostOf(n.HTTPAddr),
			Status:     n.Status,
			Eligible:   n.SchedulingEligibility == api.NodeSchedulingEligible,
			Draining:   n.Drain,
			Drivers:    healthyDrivers(n.Drivers),
			Meta:       nonNilMap(n.Meta),
			Capacity:   nodeCapacity(n.NodeResources, n.ReservedResources),
		},
		StatusDescription: n.StatusDescription,
		DriverDetails:     []DriverDetail{},
		HostVolumes:       []HostVolume{},
		Events:            []NodeEvent{},
	}
	for name, drv := range n.Drivers {
		if drv == nil {
			continue
		}
		d.DriverDetails = append(d.DriverDetails, DriverDetail{Name: name, Detected: drv.Detected, Healthy: drv.Healthy, Description: drv.HealthDescription})
	}
	sort.Slice(d.DriverDetails, func(i, j int) bool { return d.DriverDetails[i].Name < d.DriverDetails[j].Name })
	for name, hv := range n.HostVolumes {
		if hv == nil {
			continue
		}
		d.HostVolumes = append(d.HostVolumes, HostVolume{Name: name, Path: hv.Path, ReadOnly: hv.ReadOnly, ID: hv.ID})
	}
	sort.Slice(d.HostVolumes, func(i, j int) bool { return d.HostVolumes[i].Name < d.HostVolumes[j].Name })
	for i := len(n.Events) - 1; i >= 0; i-- {
		if e := n.Events[i]; e != nil {
			d.Events = append(d.Events, NodeEvent{Time: e.Timestamp, Subsystem: e.Subsystem, Message: e.Message})
		}
	}
	return d
}

// hostOf strips the port from a host:port address, as Nomad's node list
// does for its Address field.
func hostOf(addr string) string {
	if host, _, err := net.SplitHostPort(addr); err == nil {
		return host
	}
	return addr
}

// NodeName returns a node's name; "" when the node is unknown (it may have
// left the cluster).
func (c *Client) NodeName(ctx context.Context, id string) (string, error) {
	if id == "" {
		return "", nil
	}
	n, err := c.nodeInfo(ctx, id)
	var nf *NodeNotFoundError
	if errors.As(err, &nf) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	return n.Name, nil
}

// evenPrefix trims an ID prefix to an even number of hex digits: Nomad's
// index answers 500 to odd-length prefixes, so ask for one digit less and
// filter (as the Nomad CLI does).
func evenPrefix(prefix string) string {
	if len(strings.ReplaceAll(prefix, "-", ""))%2 == 1 {
		prefix = strings.TrimSuffix(prefix[:len(prefix)-1], "-")
	}
	return prefix
}

func withPrefix(stubs []*api.NodeListStub, prefix string) []*api.NodeListStub {
	out := stubs[:0:0]
	for _, s := range stubs {
		if strings.HasPrefix(s.ID, prefix) {
			out = append(out, s)
		}
	}
	return out
}
