package nomadclient

import (
	"context"
	"errors"
	"net/http"
	"reflect"
	"testing"

	"github.com/hashicorp/nomad/api"

	"github.com/berthhq/terraform-provider-berth/internal/capacity"
)

func allocStub(id, nodeID string, disk int64, tasks ...[2]int64) *api.AllocationListStub {
	r := &api.AllocatedResources{Tasks: map[string]*api.AllocatedTaskResources{}, Shared: api.AllocatedSharedResources{DiskMB: disk}}
	for i, tk := range tasks {
		r.Tasks[string(rune('a'+i))] = &api.AllocatedTaskResources{
			Cpu:    api.AllocatedCpuResources{CpuShares: tk[0]},
			Memory: api.AllocatedMemoryResources{MemoryMB: tk[1]},
		}
	}
	return &api.AllocationListStub{ID: id, NodeID: nodeID, ClientStatus: "running", AllocatedResources: r}
}

func TestListNodesCapacity(t *testing.T) {
	f := newFakeNomad(t)
	f.handle("GET /v1/nodes", replyJSON([]*api.NodeListStub{
		{
			ID: "node-b", Name: "beta", Datacenter: "dc1", NodePool: "default", NodeClass: "web", Address: "10.0.0.2",
			Status: "ready", SchedulingEligibility: api.NodeSchedulingEligible,
			Drivers: map[string]*api.DriverInfo{
				"exec":   {Detected: true, Healthy: true},
				"docker": {Detected: true, Healthy: false},
				"java":   {Detected: false, Healthy: true},
				"nil":    nil,
			},
			NodeResources: &api.NodeResources{
				Cpu: api.NodeCpuResources{CpuShares: 4000}, Memory: api.NodeMemoryResources{MemoryMB: 8192}, Disk: api.NodeDiskResources{DiskMB: 10240},
			},
			ReservedResources: &api.NodeReservedResources{
				Cpu: api.NodeReservedCpuResources{CpuShares: 100}, Memory: api.NodeReservedMemoryResources{MemoryMB: 256}, Disk: api.NodeReservedDiskResources{DiskMB: 1024},
			},
			CreateIndex: 20,
		},
		{
			ID: "node-a", Name: "alpha", Datacenter: "dc1", Status: "ready",
			SchedulingEligibility: api.NodeSchedulingIneligible, Drain: true,
			NodeResources: &api.NodeResources{
				Cpu: api.NodeCpuResources{CpuShares: 2000}, Memory: api.NodeMemoryResources{MemoryMB: 4096}, Disk: api.NodeDiskResources{DiskMB: 5000},
			},
			CreateIndex: 10,
		},
	}))
	f.handle("GET /v1/allocations", replyJSON([]*api.AllocationListStub{
		allocStub("alloc-1", "node-b", 300, [2]int64{500, 1024}, [2]int64{100, 128}),
		allocStub("alloc-2", "node-a", 0, [2]int64{250, 256}),
		allocStub("alloc-3", "node-not-listed", 9999, [2]int64{9999, 9999}),
	}))
	f.handle("GET /v1/vars", replyJSON([]*api.VariableMetadata{}))
	f.handleLeases()

	nodes, err := f.client().ListNodes(context.Background(), NodeFilter{Datacenter: "dc1", Expression: `Meta.x == "y"`}, false, "berth-system")
	if err != nil {
		t.Fatal(err)
	}
	if len(nodes) != 2 {
		t.Fatalf("%d nodes, want 2: %+v", len(nodes), nodes)
	}
	// Sorted by name: alpha first although Nomad listed it second.
	a, b := nodes[0], nodes[1]
	if a.ID != "node-a" || b.ID != "node-b" {
		t.Fatalf("order %s, %s; want node-a (alpha), node-b (beta)", a.ID, b.ID)
	}

	checks := []struct {
		node                       NodeInfo
		allocatable, alloc, free   capacity.Resources
		count                      int
		ready, eligible, draining  bool
		drivers                    []string
		address, pool, class, name string
	}{
		{
			node:        a,
			allocatable: capacity.Resources{CPU: 2000, MemoryMB: 4096, DiskMB: 5000},
			alloc:       capacity.Resources{CPU: 250, MemoryMB: 256},
			free:        capacity.Resources{CPU: 1750, MemoryMB: 3840, DiskMB: 5000},
			count:       1, ready: false, eligible: false, draining: true,
			drivers: []string{}, name: "alpha",
		},
		{
			node:        b,
			allocatable: capacity.Resources{CPU: 3900, MemoryMB: 7936, DiskMB: 9216},
			alloc:       capacity.Resources{CPU: 600, MemoryMB: 1152, DiskMB: 300},
			free:        capacity.Resources{CPU: 3300, MemoryMB: 6784, DiskMB: 8916},
			count:       1, ready: true, eligible: true,
			drivers: []string{"exec"}, address: "10.0.0.2", pool: "default", class: "web", name: "beta",
		},
	}
	for _, c := range checks {
		n := c.node
		if got := n.Capacity.Allocatable(); got != c.allocatable {
			t.Errorf("%s: Allocatable = %+v, want %+v", n.ID, got, c.allocatable)
		}
		if n.Capacity.Allocated != c.alloc {
			t.Errorf("%s: Allocated = %+v, want %+v", n.ID, n.Capacity.Allocated, c.alloc)
		}
		if got := n.Capacity.Free(); got != c.free {
			t.Errorf("%s: Free = %+v, want %+v", n.ID, got, c.free)
		}
		if n.AllocationCount != c.count {
			t.Errorf("%s: AllocationCount = %d, want %d", n.ID, n.AllocationCount, c.count)
		}
		if n.Ready() != c.ready || n.Eligible != c.eligible || n.Draining != c.draining {
			t.Errorf("%s: Ready/Eligible/Draining = %v/%v/%v, want %v/%v/%v",
				n.ID, n.Ready(), n.Eligible, n.Draining, c.ready, c.eligible, c.draining)
		}
		if !reflect.DeepEqual(n.Drivers, c.drivers) {
			t.Errorf("%s: Drivers = %#v, want %#v", n.ID, n.Drivers, c.drivers)
		}
		if n.Address != c.address || n.NodePool != c.pool || n.NodeClass != c.class || n.Name != c.name || n.Datacenter != "dc1" {
			t.Errorf("%s: identity fields %+v", n.ID, n)
		}
		if n.Meta != nil {
			t.Errorf("%s: Meta = %v without withMeta", n.ID, n.Meta)
		}
	}

	nodeReqs := f.requests("/v1/nodes")
	if len(nodeReqs) != 1 {
		t.Fatalf("%d node list requests, want 1", len(nodeReqs))
	}
	q := nodeReqs[0].Query
	if got := q.Get("resources"); got != "true" {
		t.Errorf("node list resources = %q, want true", got)
	}
	if got, want := q.Get("filter"), `Datacenter == "dc1" and (Meta.x == "y")`; got != want {
		t.Errorf("node list filter = %q, want %q", got, want)
	}
	allocReqs := f.requests("/v1/allocations")
	if len(allocReqs) != 1 {
		t.Fatalf("%d allocation requests, want 1 for all nodes", len(allocReqs))
	}
	aq := allocReqs[0].Query
	if aq.Get("namespace") != "*" || aq.Get("resources") != "true" || aq.Get("filter") != nonTerminalAllocs {
		t.Errorf("allocation query = %v, want namespace=*, resources=true, filter=%q", aq, nonTerminalAllocs)
	}
	if n := f.count(leaseJobsPath); n != 1 {
		t.Errorf("%d lease job list requests, want 1 for all nodes", n)
	}
	// Node list, allocation list, berth job list (leases and holds).
	if f.total() != 3 {
		t.Errorf("%d requests, want 3 without meta", f.total())
	}
	for _, n := range nodes {
		if !n.Capacity.Reserved.IsZero() || n.Reservations == nil || len(n.Reservations) != 0 {
			t.Errorf("%s: Reserved = %+v, Reservations = %#v; want zero and an empty non-nil slice", n.ID, n.Capacity.Reserved, n.Reservations)
		}
		if n.Leases == nil || len(n.Leases) != 0 {
			t.Errorf("%s: Leases = %#v, want an empty non-nil slice", n.ID, n.Leases)
		}
	}
}

func TestListNodesWithMeta(t *testing.T) {
	f := newFakeNomad(t)
	f.handle("GET /v1/nodes", replyJSON([]*api.NodeListStub{{ID: "n1", Name: "one"}, {ID: "n2", Name: "two"}}))
	f.handle("GET /v1/allocations", replyJSON([]*api.AllocationListStub{}))
	f.handle("GET /v1/vars", replyJSON([]*api.VariableMetadata{}))
	f.handleLeases()
	f.handle("GET /v1/node/n1", replyJSON(&api.Node{ID: "n1", Meta: map[string]string{"rack": "r1"}}))
	f.handle("GET /v1/node/n2", replyJSON(&api.Node{ID: "n2"}))

	nodes, err := f.client().ListNodes(context.Background(), NodeFilter{}, true, "default")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(nodes[0].Meta, map[string]string{"rack": "r1"}) {
		t.Errorf("n1 Meta = %#v", nodes[0].Meta)
	}
	if nodes[1].Meta == nil || len(nodes[1].Meta) != 0 {
		t.Errorf("n2 Meta = %#v, want an empty non-nil map", nodes[1].Meta)
	}
	if got := f.requests("/v1/nodes")[0].Query.Get("filter"); got != "" {
		t.Errorf("empty NodeFilter sent filter %q", got)
	}
}

// A node that disappears between the list and the meta read fails the
// listing with a NodeNotFoundError rather than a bare 404.
func TestListNodesMetaNodeGone(t *testing.T) {
	f := newFakeNomad(t)
	f.handle("GET /v1/nodes", replyJSON([]*api.NodeListStub{{ID: "n1", Name: "one"}}))
	f.handle("GET /v1/allocations", replyJSON([]*api.AllocationListStub{}))
	f.handle("GET /v1/vars", replyJSON([]*api.VariableMetadata{}))
	f.handleLeases()
	f.handle("GET /v1/node/n1", replyRaw(404, "node not found"))
	_, err := f.client().ListNodes(context.Background(), NodeFilter{}, true, "default")
	var nf *NodeNotFoundError
	if !errors.As(err, &nf) || nf.Value != "n1" {
		t.Errorf("err = %v, want NodeNotFoundError for n1", err)
	}
}

func TestListNodesEmpty(t *testing.T) {
	f := newFakeNomad(t)
	f.handle("GET /v1/nodes", replyJSON([]*api.NodeListStub{}))
	nodes, err := f.client().ListNodes(context.Background(), NodeFilter{Status: "ready"}, true, "default")
	if err != nil {
		t.Fatal(err)
	}
	if nodes == nil || len(nodes) != 0 {
		t.Errorf("nodes = %#v, want an empty non-nil slice", nodes)
	}
	if f.total() != 1 {
		t.Errorf("%d requests, want 1: no allocations, ledgers or meta for no nodes", f.total())
	}
}

func TestNodeFilterExpression(t *testing.T) {
	cases := []struct {
		f    NodeFilter
		want string
	}{
		{NodeFilter{}, ""},
		{NodeFilter{Datacenter: "dc1"}, `Datacenter == "dc1"`},
		{NodeFilter{Expression: `Meta.x == "y"`}, `(Meta.x == "y")`},
		{
			NodeFilter{Datacenter: "dc1", NodePool: "gpu", NodeClass: "big", Status: "ready", Expression: `a or b`},
			`Datacenter == "dc1" and NodePool == "gpu" and NodeClass == "big" and Status == "ready" and (a or b)`,
		},
		{NodeFilter{NodeClass: `we"ird\`}, `NodeClass == "we\"ird\\"`},
	}
	for _, tc := range cases {
		if got := tc.f.expression(); got != tc.want {
			t.Errorf("%+v.expression() = %q, want %q", tc.f, got, tc.want)
		}
	}
}

func TestSortNodesByNameThenID(t *testing.T) {
	nodes := []NodeInfo{{ID: "3", Name: "b"}, {ID: "2", Name: "a"}, {ID: "1", Name: "b"}, {ID: "0", Name: ""}}
	sortNodes(nodes)
	var got []string
	for _, n := range nodes {
		got = append(got, n.Name+"/"+n.ID)
	}
	if want := []string{"/0", "a/2", "b/1", "b/3"}; !reflect.DeepEqual(got, want) {
		t.Errorf("order %v, want %v", got, want)
	}
}

func TestAllocResources(t *testing.T) {
	if got := AllocResources(nil); !got.IsZero() {
		t.Errorf("AllocResources(nil) = %+v", got)
	}
	r := &api.AllocatedResources{
		Tasks: map[string]*api.AllocatedTaskResources{
			"a":   {Cpu: api.AllocatedCpuResources{CpuShares: 100}, Memory: api.AllocatedMemoryResources{MemoryMB: 64, MemoryMaxMB: 1024}},
			"b":   {Cpu: api.AllocatedCpuResources{CpuShares: 200}, Memory: api.AllocatedMemoryResources{MemoryMB: 128}},
			"nil": nil,
		},
		Shared: api.AllocatedSharedResources{DiskMB: 150},
	}
	// Memory counts the reservation, not the oversubscription ceiling.
	want := capacity.Resources{CPU: 300, MemoryMB: 192, DiskMB: 150}
	if got := AllocResources(r); got != want {
		t.Errorf("AllocResources = %+v, want %+v", got, want)
	}
}

func TestListNodesLeases(t *testing.T) {
	leaseJob := func(ns, id, user, expires string) *api.JobListStub {
		return &api.JobListStub{ID: id, Namespace: ns, Meta: map[string]string{
			"berth.kind": "lease", "berth.user": user, "berth.expires_at": expires,
		}}
	}
	nodes := []*api.NodeListStub{{ID: "node-a", Name: "alpha"}, {ID: "node-b", Name: "beta"}, {ID: "node-c", Name: "gamma"}}
	allocs := []*api.AllocationListStub{
		jobAlloc("a1", "node-a", "dev", "alice-box", res(1000, 2048, 100)),
		jobAlloc("a2", "node-a", "apps", "web", res(300, 256, 0)),
		// Same job name as a lease, other namespace: not a lease.
		jobAlloc("a3", "node-a", "prod", "alice-box", res(50, 32, 0)),
		jobAlloc("a4", "node-a", "apps", "bob-box", res(500, 512, 0)),
		jobAlloc("b1", "node-b", "dev", "carol-box", res(200, 128, 10)),
		jobAlloc("c1", "node-c", "apps", "web", res(300, 256, 0)),
	}

	t.Run("leases by node", func(t *testing.T) {
		f := newFakeNomad(t)
		f.handle("GET /v1/nodes", replyJSON(nodes))
		f.handle("GET /v1/allocations", replyJSON(allocs))
		f.handle("GET /v1/vars", replyJSON([]*api.VariableMetadata{}))
		f.handleLeases(
			leaseJob("dev", "alice-box", "alice", "2025-01-02T03:04:05Z"),
			leaseJob("apps", "bob-box", "bob", "2025-02-03T04:05:06Z"),
			leaseJob("dev", "carol-box", "carol", "2025-03-04T05:06:07Z"),
			// A lease with no allocation shows on no node.
			leaseJob("dev", "idle-box", "dave", "2025-04-05T06:07:08Z"),
		)

		got, err := f.client().ListNodes(context.Background(), NodeFilter{}, false, "default")
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 3 {
			t.Fatalf("%d nodes, want 3: %+v", len(got), got)
		}
		want := map[string][]NodeLease{
			// Sorted by namespace/name: apps/bob-box before dev/alice-box.
			"node-a": {
				{Name: "bob-box", Namespace: "apps", User: "bob", ExpiresAt: "2025-02-03T04:05:06Z", Resources: res(500, 512, 0)},
				{Name: "alice-box", Namespace: "dev", User: "alice", ExpiresAt: "2025-01-02T03:04:05Z", Resources: res(1000, 2048, 100)},
			},
			"node-b": {
				{Name: "carol-box", Namespace: "dev", User: "carol", ExpiresAt: "2025-03-04T05:06:07Z", Resources: res(200, 128, 10)},
			},
			"node-c": {},
		}
		for _, n := range got {
			if n.Leases == nil {
				t.Errorf("%s: Leases is nil, want a non-nil slice", n.ID)
			}
			if !reflect.DeepEqual(n.Leases, want[n.ID]) {
				t.Errorf("%s: Leases =\n %+v\nwant\n %+v", n.ID, n.Leases, want[n.ID])
			}
		}
		// Leases do not change the capacity accounting.
		if got[0].AllocationCount != 4 {
			t.Errorf("node-a AllocationCount = %d, want 4", got[0].AllocationCount)
		}

		reqs := f.requests(leaseJobsPath)
		if len(reqs) != 1 {
			t.Fatalf("%d lease job list requests, want 1 for all nodes", len(reqs))
		}
		q := reqs[0].Query
		if q.Get("meta") != "true" {
			t.Errorf("lease job list meta = %q, want true", q.Get("meta"))
		}
		if q.Get("namespace") != "*" {
			t.Errorf("lease job list namespace = %q, want *", q.Get("namespace"))
		}
		if want := `Meta["berth.kind"] == "lease" or Meta["berth.kind"] == "node-reservation-hold"`; q.Get("filter") != want {
			t.Errorf("lease job list filter = %q, want %q", q.Get("filter"), want)
		}
		if reqs[0].Method != http.MethodGet {
			t.Errorf("lease job list method = %s, want GET", reqs[0].Method)
		}
		// Node list, allocation list, berth job list.
		if n := f.total(); n != 3 {
			t.Errorf("%d requests, want 3", n)
		}
	})

	t.Run("no leases", func(t *testing.T) {
		f := newFakeNomad(t)
		f.handle("GET /v1/nodes", replyJSON(nodes))
		f.handle("GET /v1/allocations", replyJSON(allocs))
		f.handle("GET /v1/vars", replyJSON([]*api.VariableMetadata{}))
		f.handleLeases()

		got, err := f.client().ListNodes(context.Background(), NodeFilter{}, false, "default")
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range got {
			if n.Leases == nil || len(n.Leases) != 0 {
				t.Errorf("%s: Leases = %#v, want an empty non-nil slice", n.ID, n.Leases)
			}
		}
	})
}
