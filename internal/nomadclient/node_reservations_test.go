package nomadclient

import (
	"context"
	"errors"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"

	"github.com/berthhq/terraform-provider-berth/internal/capacity"
	"github.com/berthhq/terraform-provider-berth/internal/hold"
	"github.com/berthhq/terraform-provider-berth/internal/ledger"
)

func res(cpu, mem, disk int64) capacity.Resources {
	return capacity.Resources{CPU: cpu, MemoryMB: mem, DiskMB: disk}
}

// jobAlloc is a running allocation of namespace/job holding r on nodeID.
func jobAlloc(id, nodeID, namespace, job string, r capacity.Resources) *api.AllocationListStub {
	return &api.AllocationListStub{
		ID: id, NodeID: nodeID, Namespace: namespace, JobID: job, ClientStatus: "running",
		AllocatedResources: &api.AllocatedResources{
			Tasks: map[string]*api.AllocatedTaskResources{"t": {
				Cpu:    api.AllocatedCpuResources{CpuShares: r.CPU},
				Memory: api.AllocatedMemoryResources{MemoryMB: r.MemoryMB},
			}},
			Shared: api.AllocatedSharedResources{DiskMB: r.DiskMB},
		},
	}
}

// nodeRes is a node's fingerprinted total and agent-reserved block.
func nodeRes(total, reserved capacity.Resources) (*api.NodeResources, *api.NodeReservedResources) {
	return &api.NodeResources{
			Cpu:    api.NodeCpuResources{CpuShares: total.CPU},
			Memory: api.NodeMemoryResources{MemoryMB: total.MemoryMB},
			Disk:   api.NodeDiskResources{DiskMB: total.DiskMB},
		}, &api.NodeReservedResources{
			Cpu:    api.NodeReservedCpuResources{CpuShares: uint64(reserved.CPU)},
			Memory: api.NodeReservedMemoryResources{MemoryMB: uint64(reserved.MemoryMB)},
			Disk:   api.NodeReservedDiskResources{DiskMB: uint64(reserved.DiskMB)},
		}
}

// chargedLedger is node-a's ledger in the capacity tests: two
// reservations, one with apps/web and a volume charged to it.
func chargedLedger() map[string]ledger.Reservation {
	return map[string]ledger.Reservation{
		"zeta": {
			Request:     res(1000, 1024, 2000),
			Annotations: map[string]string{"team": "data"},
			CreatedAt:   t0,
			Consumers: map[string]capacity.Resources{
				InstanceConsumer("apps", "web"): res(300, 256, 0),
				VolumeConsumer("apps", "pg"):    res(0, 0, 500),
			},
		},
		"alpha": {Request: res(500, 512, 0), CreatedAt: t0},
	}
}

// nodeAAllocs are node-a's allocations: two of apps/web (charged to zeta,
// so not "allocated"), and two of jobs that are not charged — one of them
// a job named web in another namespace.
func nodeAAllocs(nodeID string) []*api.AllocationListStub {
	return []*api.AllocationListStub{
		jobAlloc("a1", nodeID, "apps", "web", res(300, 256, 0)),
		jobAlloc("a2", nodeID, "apps", "web", res(300, 256, 0)),
		jobAlloc("a3", nodeID, "default", "web", res(100, 64, 0)),
		jobAlloc("a4", nodeID, "apps", "api", res(200, 128, 50)),
	}
}

func wantNodeAReservations() []NodeReservation {
	return []NodeReservation{
		{Name: "alpha", Request: res(500, 512, 0)},
		{Name: "zeta", Request: res(1000, 1024, 2000), Used: res(300, 256, 500), Annotations: map[string]string{"team": "data"}},
	}
}

func TestListNodesWithLedger(t *testing.T) {
	f := newFakeNomad(t)
	totalA, agentA := nodeRes(res(4000, 8192, 10000), res(100, 192, 0))
	totalB, _ := nodeRes(res(2000, 4096, 5000), capacity.Resources{})
	f.handle("GET /v1/nodes", replyJSON([]*api.NodeListStub{
		{ID: "node-b", Name: "beta", Status: "ready", NodeResources: totalB},
		{ID: "node-a", Name: "alpha", Status: "ready", NodeResources: totalA, ReservedResources: agentA},
	}))
	allocs := nodeAAllocs("node-a")
	// apps/web runs on node-b too, but is charged on node-a only.
	allocs = append(allocs, jobAlloc("b1", "node-b", "apps", "web", res(400, 512, 0)))
	f.handle("GET /v1/allocations", replyJSON(allocs))
	f.handleLeases(holdStubs(t, "node-a", chargedLedger())...)

	nodes, err := f.client().ListNodes(context.Background(), NodeFilter{}, false, ledgerNS)
	if err != nil {
		t.Fatal(err)
	}
	if len(nodes) != 2 || nodes[0].ID != "node-a" || nodes[1].ID != "node-b" {
		t.Fatalf("nodes = %+v, want node-a (alpha) then node-b (beta)", nodes)
	}
	a, b := nodes[0], nodes[1]

	if got, want := a.Capacity.Reserved, res(1500, 1536, 2000); got != want {
		t.Errorf("node-a Reserved = %+v, want %+v (sum of both requests)", got, want)
	}
	if got, want := a.Capacity.Allocated, res(300, 192, 50); got != want {
		t.Errorf("node-a Allocated = %+v, want %+v (apps/web left out, default/web kept)", got, want)
	}
	// allocatable 3900/8000/10000 − reserved − allocated
	if got, want := a.Capacity.Free(), res(3900-1500-300, 8000-1536-192, 10000-2000-50); got != want {
		t.Errorf("node-a Free = %+v, want %+v", got, want)
	}
	if a.AllocationCount != 4 {
		t.Errorf("node-a AllocationCount = %d, want 4 (charged allocations still count)", a.AllocationCount)
	}
	if !reflect.DeepEqual(a.Reservations, wantNodeAReservations()) {
		t.Errorf("node-a Reservations =\n %+v\nwant\n %+v", a.Reservations, wantNodeAReservations())
	}

	if !b.Capacity.Reserved.IsZero() || b.Reservations == nil || len(b.Reservations) != 0 {
		t.Errorf("node-b Reserved = %+v, Reservations = %#v; want none", b.Capacity.Reserved, b.Reservations)
	}
	if got, want := b.Capacity.Allocated, res(400, 512, 0); got != want {
		t.Errorf("node-b Allocated = %+v, want %+v (a charge on node-a does not hide node-b's allocation)", got, want)
	}
	if got, want := b.Capacity.Free(), res(1600, 3584, 5000); got != want {
		t.Errorf("node-b Free = %+v, want %+v", got, want)
	}

	// Node list, allocation list, one list of berth's jobs: reservations
	// come from the ledger items the hold jobs mirror, with no ledger read.
	if n := f.total(); n != 3 {
		t.Errorf("%d requests, want 3", n)
	}
}

// A ledger that cannot be decoded fails the listing, naming the item:
// treating it as empty would report reserved capacity as free.
func TestListNodesCorruptLedger(t *testing.T) {
	f := newFakeNomad(t)
	f.handle("GET /v1/nodes", replyJSON([]*api.NodeListStub{{ID: "node-a", Name: "alpha"}}))
	f.handle("GET /v1/allocations", replyJSON([]*api.AllocationListStub{}))
	f.handleLeases(&api.JobListStub{ID: hold.JobID("node-a", "db"), Namespace: ledgerNS, Meta: map[string]string{
		hold.MetaKind: hold.KindHold, hold.MetaNodeID: "node-a", hold.MetaNodeReservation: "db", hold.MetaLedgerItem: `{"version":1,"request":{"memory":1}}`,
	}})
	_, err := f.client().ListNodes(context.Background(), NodeFilter{}, false, ledgerNS)
	if err == nil || !strings.Contains(err.Error(), `item "db"`) {
		t.Errorf("err = %v, want a decoding error naming item db", err)
	}
}

func TestFindNodeWithLedger(t *testing.T) {
	f := newFakeNomad(t)
	total, agent := nodeRes(res(4000, 8192, 10000), res(100, 192, 0))
	f.handle("GET /v1/nodes", replyJSON([]*api.NodeListStub{{ID: testNodeID, Name: "node-1"}}))
	f.handle("GET /v1/node/"+testNodeID, replyJSON(&api.Node{ID: testNodeID, Name: "node-1", NodeResources: total, ReservedResources: agent}))
	f.handle("GET /v1/allocations", replyJSON(nodeAAllocs(testNodeID)))
	newFakeVar(f, ledgerNS, LedgerPath(testNodeID), ledgerItems(t, testNodeID, chargedLedger()), 12)
	f.handleLeases()

	d, err := f.client().FindNode(context.Background(), testNodeID, "", ledgerNS)
	if err != nil {
		t.Fatal(err)
	}
	want := capacity.Node{
		Total: res(4000, 8192, 10000), AgentReserved: res(100, 192, 0),
		Allocated: res(300, 192, 50), Reserved: res(1500, 1536, 2000),
	}
	if d.Capacity != want || d.AllocationCount != 4 {
		t.Errorf("Capacity = %+v, AllocationCount = %d; want %+v and 4", d.Capacity, d.AllocationCount, want)
	}
	if !reflect.DeepEqual(d.Reservations, wantNodeAReservations()) {
		t.Errorf("Reservations = %+v", d.Reservations)
	}
}

func TestParseNodeReservationID(t *testing.T) {
	good := []struct{ id, node, name string }{
		{testNodeID + "/db", testNodeID, "db"},
		{"abc/a b", "abc", "a b"},
		// Node IDs hold no slash; a name may.
		{"abc/team/db", "abc", "team/db"},
	}
	for _, tc := range good {
		node, name, err := ParseNodeReservationID(tc.id)
		if err != nil || node != tc.node || name != tc.name {
			t.Errorf("ParseNodeReservationID(%q) = %q, %q, %v; want %q, %q", tc.id, node, name, err, tc.node, tc.name)
		}
	}
	for _, id := range []string{"", "abc", "/db", "abc/", "/"} {
		node, name, err := ParseNodeReservationID(id)
		if err == nil {
			t.Errorf("ParseNodeReservationID(%q) = %q, %q; want an error", id, node, name)
			continue
		}
		if node != "" || name != "" || !strings.Contains(err.Error(), "<node_id>/<name>") {
			t.Errorf("ParseNodeReservationID(%q) = %q, %q, %v", id, node, name, err)
		}
	}
}

func TestReleaseNodeReservationRefusesWhileCharged(t *testing.T) {
	f := newFakeNomad(t)
	v := newFakeVar(f, ledgerNS, LedgerPath(testNodeID), ledgerItems(t, testNodeID, chargedLedger()), 8)
	consumersExist(f, true, true)
	err := f.client().ReleaseNodeReservation(context.Background(), ledgerNS, testNodeID, "zeta", time.Time{})
	if err == nil {
		t.Fatal("released a reservation that still has work charged to it")
	}
	msg := err.Error()
	for _, want := range []string{`reservation "zeta"`, "0123abcd", "still has work charged", "instance:apps/web, volume:apps/pg"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q lacks %q", msg, want)
		}
	}
	if _, _, writes, _ := v.snapshot(); len(writes) != 0 {
		t.Errorf("writes = %+v, want none", writes)
	}
}

func TestReleaseNodeReservation(t *testing.T) {
	t.Run("others remain, even with consumers", func(t *testing.T) {
		f := newFakeNomad(t)
		v := newFakeVar(f, ledgerNS, LedgerPath(testNodeID), ledgerItems(t, testNodeID, chargedLedger()), 8)
		if err := f.client().ReleaseNodeReservation(context.Background(), ledgerNS, testNodeID, "alpha", time.Time{}); err != nil {
			t.Fatal(err)
		}
		items, _, writes, _ := v.snapshot()
		if len(writes) != 1 || writes[0].Method != http.MethodPut || writes[0].CAS != 8 {
			t.Fatalf("writes = %+v, want one PUT cas=8", writes)
		}
		want := chargedLedger()
		delete(want, "alpha")
		if got := decodeItems(t, testNodeID, items); !reflect.DeepEqual(got.Reservations, want) {
			t.Errorf("ledger after release = %+v, want %+v", got.Reservations, want)
		}
	})
	t.Run("another create's item of that name is left alone", func(t *testing.T) {
		f := newFakeNomad(t)
		v := newFakeVar(f, ledgerNS, LedgerPath(testNodeID), ledgerItems(t, testNodeID, map[string]ledger.Reservation{
			"db": {Request: res(1, 1, 1), CreatedAt: t0},
		}), 9)
		if err := f.client().ReleaseNodeReservation(context.Background(), ledgerNS, testNodeID, "db", t0.Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		if _, _, writes, _ := v.snapshot(); len(writes) != 0 {
			t.Fatalf("writes = %+v, want none: the item was made by another create", writes)
		}
		// Its own stamp, to the second as state keeps it, releases it.
		if err := f.client().ReleaseNodeReservation(context.Background(), ledgerNS, testNodeID, "db", t0.Truncate(time.Second)); err != nil {
			t.Fatal(err)
		}
		if _, _, writes, _ := v.snapshot(); len(writes) != 1 || writes[0].Method != http.MethodDelete {
			t.Fatalf("writes = %+v, want one DELETE", writes)
		}
	})
	t.Run("last one deletes the variable", func(t *testing.T) {
		f := newFakeNomad(t)
		v := newFakeVar(f, ledgerNS, LedgerPath(testNodeID), ledgerItems(t, testNodeID, map[string]ledger.Reservation{
			"db": {Request: res(1, 1, 1), CreatedAt: t0},
		}), 9)
		if err := f.client().ReleaseNodeReservation(context.Background(), ledgerNS, testNodeID, "db", time.Time{}); err != nil {
			t.Fatal(err)
		}
		items, _, writes, _ := v.snapshot()
		if len(writes) != 1 || writes[0].Method != http.MethodDelete || writes[0].CAS != 9 {
			t.Fatalf("writes = %+v, want one DELETE cas=9", writes)
		}
		if items != nil {
			t.Errorf("variable still holds %v", items)
		}
	})
	t.Run("absent ledger is success without a write", func(t *testing.T) {
		f := newFakeNomad(t)
		v := newFakeVar(f, ledgerNS, LedgerPath(testNodeID), nil, 0)
		if err := f.client().ReleaseNodeReservation(context.Background(), ledgerNS, testNodeID, "db", time.Time{}); err != nil {
			t.Fatal(err)
		}
		if _, _, writes, _ := v.snapshot(); len(writes) != 0 {
			t.Errorf("writes = %+v, want none", writes)
		}
	})
	t.Run("missing reservation is success and keeps the others", func(t *testing.T) {
		f := newFakeNomad(t)
		v := newFakeVar(f, ledgerNS, LedgerPath(testNodeID), ledgerItems(t, testNodeID, chargedLedger()), 8)
		if err := f.client().ReleaseNodeReservation(context.Background(), ledgerNS, testNodeID, "gone", time.Time{}); err != nil {
			t.Fatal(err)
		}
		items, _, _, _ := v.snapshot()
		if got := decodeItems(t, testNodeID, items); !reflect.DeepEqual(got.Reservations, chargedLedger()) {
			t.Errorf("ledger changed: %+v", got.Reservations)
		}
	})
}

func TestChargeAndUncharge(t *testing.T) {
	f := newFakeNomad(t)
	v := newFakeVar(f, ledgerNS, LedgerPath(testNodeID), ledgerItems(t, testNodeID, chargedLedger()), 8)
	c := f.client()
	id := testNodeID + "/zeta"
	consumer := InstanceConsumer("apps", "api")

	// zeta: request 1000/1024/2000, others use 300/256/500.
	if err := c.Charge(context.Background(), ledgerNS, id, consumer, res(700, 768, 1500)); err != nil {
		t.Fatalf("exact fit: %v", err)
	}
	items, _, _, _ := v.snapshot()
	if got := decodeItems(t, testNodeID, items).Reservations["zeta"].Consumers[consumer]; got != res(700, 768, 1500) {
		t.Errorf("charge stored %+v", got)
	}

	err := c.Charge(context.Background(), ledgerNS, id, consumer, res(701, 0, 0))
	var be *ledger.BudgetError
	if !errors.As(err, &be) || be.Dimension != capacity.CPU {
		t.Errorf("over budget: err = %v, want a cpu *ledger.BudgetError", err)
	}
	err = c.Charge(context.Background(), ledgerNS, testNodeID+"/nope", consumer, res(1, 0, 0))
	var mr *ledger.MissingReservationError
	if !errors.As(err, &mr) {
		t.Errorf("missing reservation: err = %v, want *ledger.MissingReservationError", err)
	}
	if err := c.Charge(context.Background(), ledgerNS, "no-slash", consumer, res(1, 0, 0)); err == nil {
		t.Error("Charge accepted a malformed reservation ID")
	}
	_, _, writes, _ := v.snapshot()
	if len(writes) != 1 {
		t.Errorf("%d writes, want 1: refused charges write nothing", len(writes))
	}

	if err := c.Uncharge(context.Background(), ledgerNS, id, consumer); err != nil {
		t.Fatal(err)
	}
	items, _, _, _ = v.snapshot()
	if got := decodeItems(t, testNodeID, items).Reservations; !reflect.DeepEqual(got, chargedLedger()) {
		t.Errorf("ledger after uncharge = %+v, want the original", got)
	}
	if err := c.Uncharge(context.Background(), ledgerNS, testNodeID+"/nope", consumer); err != nil {
		t.Errorf("uncharging a missing reservation: %v", err)
	}
}

// reserveFixture is a node with allocatable 3900/8000/10000 and node-a's
// ledger and allocations: free is 2100/6272/7950.
func reserveFixture(t *testing.T) (*fakeNomad, *fakeVar) {
	f := newFakeNomad(t)
	total, agent := nodeRes(res(4000, 8192, 10000), res(100, 192, 0))
	f.handle("GET /v1/node/"+testNodeID, replyJSON(&api.Node{ID: testNodeID, Name: "node-1", Datacenter: "dc1", NodeResources: total, ReservedResources: agent}))
	f.handle("GET /v1/allocations", replyJSON(nodeAAllocs(testNodeID)))
	v := newFakeVar(f, ledgerNS, LedgerPath(testNodeID), ledgerItems(t, testNodeID, chargedLedger()), 8)
	return f, v
}

func TestReserveOnNode(t *testing.T) {
	f, v := reserveFixture(t)
	req := NodeReservationRequest{Name: "new", NodeID: testNodeID, Request: res(2100, 6272, 7950), Annotations: map[string]string{"k": "v"}}
	err := f.client().ReserveOn(context.Background(), ledgerNS, testNodeID, req)
	if err != nil {
		t.Fatalf("ReserveOn: %v; want an exact fit on %s", err, testNodeID)
	}
	items, _, writes, _ := v.snapshot()
	if len(writes) != 1 || writes[0].CAS != 8 {
		t.Errorf("writes = %+v, want one PUT cas=8", writes)
	}
	got := decodeItems(t, testNodeID, items).Reservations["new"]
	if got.Request != req.Request || !reflect.DeepEqual(got.Annotations, req.Annotations) || got.CreatedAt.IsZero() {
		t.Errorf("stored reservation %+v", got)
	}
	allocReqs := f.requests("/v1/allocations")
	if len(allocReqs) != 1 || allocReqs[0].Query.Get("filter") != `NodeID == "`+testNodeID+`" and `+nonTerminalAllocs {
		t.Errorf("allocation requests %+v, want one filtered to the node", allocReqs)
	}
}

func TestReserveOnNodeNotEnough(t *testing.T) {
	f, v := reserveFixture(t)
	err := f.client().ReserveOn(context.Background(), ledgerNS, testNodeID, NodeReservationRequest{Name: "new", Request: res(0, 6273, 0)})
	var ne *ledger.NotEnoughError
	if !errors.As(err, &ne) || ne.Dimension != capacity.Memory || ne.Reserved != 1536 || ne.Allocated != 192 {
		t.Fatalf("err = %v, want a memory *ledger.NotEnoughError with reserved 1536, allocated 192", err)
	}
	if _, _, writes, _ := v.snapshot(); len(writes) != 0 {
		t.Errorf("writes = %+v, want none", writes)
	}
}

func TestCheckNodeReservation(t *testing.T) {
	f, v := reserveFixture(t)
	c := f.client()
	if err := c.CheckNodeReservation(context.Background(), ledgerNS, NodeReservationRequest{Name: "new", NodeID: testNodeID, Request: res(2100, 0, 0)}); err != nil {
		t.Errorf("fitting request: %v", err)
	}
	err := c.CheckNodeReservation(context.Background(), ledgerNS, NodeReservationRequest{Name: "new", NodeID: testNodeID, Request: res(2101, 0, 0)})
	var ne *ledger.NotEnoughError
	if !errors.As(err, &ne) {
		t.Errorf("err = %v, want *ledger.NotEnoughError", err)
	}
	if _, _, writes, _ := v.snapshot(); len(writes) != 0 {
		t.Errorf("writes = %+v, want none from a check", writes)
	}

	f.handle("GET /v1/node/gone", replyRaw(404, "node not found"))
	err = c.CheckNodeReservation(context.Background(), ledgerNS, NodeReservationRequest{Name: "x", NodeID: "gone"})
	var nf *NodeNotFoundError
	if !errors.As(err, &nf) {
		t.Errorf("err = %v, want *NodeNotFoundError", err)
	}
}

func TestNodeCandidatesForPick(t *testing.T) {
	f := newFakeNomad(t)
	big, _ := nodeRes(res(8000, 16384, 20000), capacity.Resources{})
	small, _ := nodeRes(res(2000, 2048, 2000), capacity.Resources{})
	f.handle("GET /v1/nodes", replyJSON([]*api.NodeListStub{
		{ID: "node-big", Name: "big", Status: "ready", SchedulingEligibility: api.NodeSchedulingEligible, NodeResources: big},
		{ID: "node-small", Name: "small", Status: "ready", SchedulingEligibility: api.NodeSchedulingEligible, NodeResources: small},
	}))
	f.handle("GET /v1/allocations", replyJSON([]*api.AllocationListStub{}))
	f.handle("GET /v1/vars", replyJSON([]*api.VariableMetadata{}))
	f.handle("GET /v1/node/node-small", replyJSON(&api.Node{ID: "node-small", Name: "small", NodeResources: small}))
	v := newFakeVar(f, ledgerNS, LedgerPath("node-small"), nil, 0)

	cands, err := f.client().NodeCandidates(context.Background(), ledgerNS, Placement{Datacenter: "dc1", Strategy: ledger.Binpack})
	if err != nil {
		t.Fatal(err)
	}
	node, err := ledger.Pick(cands, res(1000, 1024, 0), ledger.Binpack)
	if err != nil || node != "node-small" {
		t.Fatalf("Pick = %q, %v; want binpack onto node-small", node, err)
	}
	if err := f.client().ReserveOn(context.Background(), ledgerNS, node, NodeReservationRequest{Name: "db", Request: res(1000, 1024, 0)}); err != nil {
		t.Fatal(err)
	}
	if _, _, writes, _ := v.snapshot(); len(writes) != 1 || writes[0].CAS != 0 {
		t.Errorf("writes = %+v, want one create", writes)
	}
	if got := f.requests("/v1/nodes")[0].Query.Get("filter"); got != `Datacenter == "dc1"` {
		t.Errorf("node list filter = %q", got)
	}
}

func TestReadNodeReservation(t *testing.T) {
	f := newFakeNomad(t)
	newFakeVar(f, ledgerNS, LedgerPath(testNodeID), ledgerItems(t, testNodeID, chargedLedger()), 8)
	newFakeVar(f, ledgerNS, LedgerPath("gone"), ledgerItems(t, "gone", chargedLedger()), 8)
	f.handle("GET /v1/node/"+testNodeID, replyJSON(&api.Node{ID: testNodeID, Name: "node-1", Datacenter: "dc1"}))
	f.handle("GET /v1/node/gone", replyRaw(404, "node not found"))
	f.handle("GET /v1/job/berth-hold-0123abcd-zeta", replyRaw(404, "job not found"))
	f.handle("GET /v1/job/berth-hold-gone-alpha", replyRaw(404, "job not found"))
	c := f.client()

	r, found, err := c.ReadNodeReservation(context.Background(), ledgerNS, testNodeID, "zeta")
	if err != nil || !found {
		t.Fatalf("ReadNodeReservation = %v, %v", found, err)
	}
	if r.Name != "zeta" || r.NodeID != testNodeID || r.NodeName != "node-1" || r.Datacenter != "dc1" || r.NodeGone ||
		!reflect.DeepEqual(r.Reservation, chargedLedger()["zeta"]) {
		t.Errorf("reservation = %+v", r)
	}
	if r.Hold.JobID != "berth-hold-0123abcd-zeta" || !r.Hold.Held.IsZero() {
		t.Errorf("hold = %+v, want the job ID and nothing held (no hold job)", r.Hold)
	}

	_, found, err = c.ReadNodeReservation(context.Background(), ledgerNS, testNodeID, "nope")
	if err != nil || found {
		t.Errorf("missing reservation: found = %v, err = %v", found, err)
	}

	r, found, err = c.ReadNodeReservation(context.Background(), ledgerNS, "gone", "alpha")
	if err != nil || !found || !r.NodeGone || r.NodeName != "" {
		t.Errorf("node gone: %+v, %v, %v; want found with NodeGone", r, found, err)
	}
}

func TestOwnEarlierWrite(t *testing.T) {
	found := ledger.Reservation{Request: res(10, 20, 0), CreatedAt: t0}
	own := NodeReservationRequest{Name: "db", Request: res(10, 20, 0), Create: true, CreatedAt: t0}
	cases := []struct {
		name string
		req  func(r NodeReservationRequest) NodeReservationRequest
		want bool
	}{
		{"same stamp, request and annotations", func(r NodeReservationRequest) NodeReservationRequest { return r }, true},
		{"identical but another create's stamp", func(r NodeReservationRequest) NodeReservationRequest {
			r.CreatedAt = t0.Add(time.Second)
			return r
		}, false},
		{"no stamp", func(r NodeReservationRequest) NodeReservationRequest { r.CreatedAt = time.Time{}; return r }, false},
		{"other request", func(r NodeReservationRequest) NodeReservationRequest { r.Request.CPU++; return r }, false},
		{"other annotations", func(r NodeReservationRequest) NodeReservationRequest {
			r.Annotations = map[string]string{"a": "b"}
			return r
		}, false},
		{"empty and nil annotations are the same", func(r NodeReservationRequest) NodeReservationRequest {
			r.Annotations = map[string]string{}
			return r
		}, true},
	}
	for _, tc := range cases {
		if got := ownEarlierWrite(found, tc.req(own)); got != tc.want {
			t.Errorf("%s: ownEarlierWrite = %v, want %v", tc.name, got, tc.want)
		}
	}
}
