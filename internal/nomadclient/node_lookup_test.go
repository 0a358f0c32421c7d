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
)

func TestFindNodeByIDPrefixAmbiguous(t *testing.T) {
	f := newFakeNomad(t)
	// Nomad's client library orders stubs by descending CreateIndex, which
	// here is not ID order.
	f.handle("GET /v1/nodes", replyJSON([]*api.NodeListStub{
		{ID: "ab12ffff-0000-4000-8000-000000000000", Name: "zeta", Datacenter: "dc2", Status: "down", CreateIndex: 10},
		{ID: "ab120000-0000-4000-8000-000000000000", Name: "alpha", Datacenter: "dc1", Status: "ready", CreateIndex: 5},
	}))
	_, err := f.client().FindNode(context.Background(), "ab12", "", "default")

	var amb *AmbiguousNodeError
	if !errors.As(err, &amb) {
		t.Fatalf("err = %v (%T), want *AmbiguousNodeError", err, err)
	}
	want := []NodeRef{
		{ID: "ab120000-0000-4000-8000-000000000000", Name: "alpha", Datacenter: "dc1", Status: "ready"},
		{ID: "ab12ffff-0000-4000-8000-000000000000", Name: "zeta", Datacenter: "dc2", Status: "down"},
	}
	if amb.By != "id" || amb.Value != "ab12" || !reflect.DeepEqual(amb.Matches, want) {
		t.Errorf("AmbiguousNodeError = %+v, want By id, Value ab12, Matches %+v", amb, want)
	}
	msg := err.Error()
	for _, s := range []string{`2 Nomad nodes match id "ab12"`, want[0].ID, want[1].ID, "name=alpha", "datacenter=dc2", "status=down", "longer ID prefix"} {
		if !strings.Contains(msg, s) {
			t.Errorf("message %q lacks %q", msg, s)
		}
	}
	if strings.Index(msg, want[0].ID) > strings.Index(msg, want[1].ID) {
		t.Errorf("message lists IDs out of order:\n%s", msg)
	}
	reqs := f.requests("/v1/nodes")
	if len(reqs) != 1 {
		t.Fatalf("%d node list requests, want 1", len(reqs))
	}
	if got := reqs[0].Query.Get("prefix"); got != "ab12" {
		t.Errorf("prefix = %q, want ab12", got)
	}
	if got := reqs[0].Query.Get("filter"); got != "" {
		t.Errorf("filter = %q, want none for an ID lookup", got)
	}
	if n := f.total(); n != 1 {
		t.Errorf("%d requests, want only the list: an ambiguous lookup reads no node", n)
	}
}

func TestFindNodeExactIDWins(t *testing.T) {
	f := newFakeNomad(t)
	f.handle("GET /v1/nodes", replyJSON([]*api.NodeListStub{
		{ID: "abcd12", Name: "n2", CreateIndex: 3},
		{ID: "abcd", Name: "n1", CreateIndex: 2},
		{ID: "abcd34", Name: "n3", CreateIndex: 1},
	}))
	f.handle("GET /v1/node/abcd", replyJSON(&api.Node{ID: "abcd", Name: "n1", Status: "ready"}))
	f.handle("GET /v1/allocations", replyJSON([]*api.AllocationListStub{}))
	f.handle("GET /v1/var/berth/nodes/abcd", replyRaw(404, "variable not found"))
	f.handleLeases()

	d, err := f.client().FindNode(context.Background(), "abcd", "", "berth-system")
	if err != nil {
		t.Fatal(err)
	}
	if d.ID != "abcd" || d.Name != "n1" {
		t.Errorf("found %s (%s), want abcd (n1)", d.ID, d.Name)
	}
	for _, other := range []string{"/v1/node/abcd12", "/v1/node/abcd34"} {
		if n := f.count(other); n != 0 {
			t.Errorf("%d requests to %s", n, other)
		}
	}
	allocReqs := f.requests("/v1/allocations")
	if len(allocReqs) != 1 {
		t.Fatalf("%d allocation requests, want 1", len(allocReqs))
	}
	wantFilter := `NodeID == "abcd" and ` + nonTerminalAllocs
	if got := allocReqs[0].Query.Get("filter"); got != wantFilter {
		t.Errorf("allocation filter = %q, want %q", got, wantFilter)
	}
	if got := allocReqs[0].Query.Get("namespace"); got != "*" {
		t.Errorf("allocation namespace = %q, want *", got)
	}
	ledgerReqs := f.requests("/v1/var/berth/nodes/abcd")
	if len(ledgerReqs) != 1 || ledgerReqs[0].Query.Get("namespace") != "berth-system" {
		t.Errorf("ledger reads %+v, want one in namespace berth-system", ledgerReqs)
	}
	if f.count("/v1/vars") != 0 {
		t.Error("FindNode listed every ledger; it needs only its node's")
	}
	if n := f.count(leaseJobsPath); n != 1 {
		t.Errorf("%d lease job list requests, want 1", n)
	}
	if d.Reservations == nil || len(d.Reservations) != 0 || !d.Capacity.Reserved.IsZero() {
		t.Errorf("absent ledger: Reservations = %#v, Reserved = %+v", d.Reservations, d.Capacity.Reserved)
	}
	if d.Leases == nil || len(d.Leases) != 0 {
		t.Errorf("no leases: Leases = %#v, want an empty non-nil slice", d.Leases)
	}
}

func TestFindNodeNotFound(t *testing.T) {
	cases := []struct {
		name, id, nodeName string
		wantBy, wantValue  string
		wantPrefix         string
		wantFilter         string
	}{
		{name: "by id", id: "ffff", wantBy: "id", wantValue: "ffff", wantPrefix: "ffff"},
		{name: "by name", nodeName: `web "1"`, wantBy: "name", wantValue: `web "1"`, wantFilter: `Name == "web \"1\""`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeNomad(t)
			f.handle("GET /v1/nodes", replyJSON([]*api.NodeListStub{}))
			d, err := f.client().FindNode(context.Background(), tc.id, tc.nodeName, "default")
			if d != nil {
				t.Errorf("FindNode returned %+v", d)
			}
			var nf *NodeNotFoundError
			if !errors.As(err, &nf) {
				t.Fatalf("err = %v (%T), want *NodeNotFoundError", err, err)
			}
			if nf.By != tc.wantBy || nf.Value != tc.wantValue {
				t.Errorf("NodeNotFoundError = %+v", nf)
			}
			if !strings.Contains(err.Error(), "no Nomad node has "+tc.wantBy) {
				t.Errorf("message %q", err)
			}
			q := f.requests("/v1/nodes")[0].Query
			if q.Get("prefix") != tc.wantPrefix || q.Get("filter") != tc.wantFilter {
				t.Errorf("query prefix=%q filter=%q, want prefix=%q filter=%q",
					q.Get("prefix"), q.Get("filter"), tc.wantPrefix, tc.wantFilter)
			}
			if n := f.total(); n != 1 {
				t.Errorf("%d requests, want 1", n)
			}
		})
	}
}

// A node listed but gone by the time it is read is "not found", not a 404.
func TestFindNodeVanished(t *testing.T) {
	f := newFakeNomad(t)
	f.handle("GET /v1/nodes", replyJSON([]*api.NodeListStub{{ID: testNodeID}}))
	f.handle("GET /v1/node/"+testNodeID, replyRaw(404, "node not found"))
	_, err := f.client().FindNode(context.Background(), "0123", "", "default")
	var nf *NodeNotFoundError
	if !errors.As(err, &nf) || nf.By != "id" || nf.Value != testNodeID {
		t.Errorf("err = %v, want NodeNotFoundError for id %s", err, testNodeID)
	}
	if n := f.count("/v1/node/" + testNodeID); n != 1 {
		t.Errorf("%d node requests, want 1", n)
	}
}

func TestFindNodeByNameAmbiguous(t *testing.T) {
	f := newFakeNomad(t)
	f.handle("GET /v1/nodes", replyJSON([]*api.NodeListStub{
		{ID: "bbbb", Name: "web", CreateIndex: 2},
		{ID: "aaaa", Name: "web", CreateIndex: 1},
	}))
	_, err := f.client().FindNode(context.Background(), "", "web", "default")
	var amb *AmbiguousNodeError
	if !errors.As(err, &amb) {
		t.Fatalf("err = %v, want *AmbiguousNodeError", err)
	}
	if amb.By != "name" || len(amb.Matches) != 2 || amb.Matches[0].ID != "aaaa" || amb.Matches[1].ID != "bbbb" {
		t.Errorf("AmbiguousNodeError = %+v", amb)
	}
}

func TestPickNode(t *testing.T) {
	stubs := func(ids ...string) []*api.NodeListStub {
		var out []*api.NodeListStub
		for _, id := range ids {
			out = append(out, &api.NodeListStub{ID: id, Name: "n-" + id})
		}
		return out
	}
	cases := []struct {
		name      string
		stubs     []*api.NodeListStub
		by, value string
		wantID    string   // the picked node
		wantAmb   []string // IDs of an ambiguity error, sorted
		wantNone  bool
	}{
		{name: "nil list", stubs: nil, by: "id", value: "ab", wantNone: true},
		{name: "one match", stubs: stubs("abcd"), by: "id", value: "ab", wantID: "abcd"},
		{name: "one match by name", stubs: stubs("x1"), by: "name", value: "n-x1", wantID: "x1"},
		{name: "exact among prefixes", stubs: stubs("ab99", "ab", "ab01"), by: "id", value: "ab", wantID: "ab"},
		{name: "prefix only", stubs: stubs("ab99", "ab01", "ab50"), by: "id", value: "ab", wantAmb: []string{"ab01", "ab50", "ab99"}},
		{name: "by name never uses IDs", stubs: stubs("web", "other"), by: "name", value: "web", wantAmb: []string{"other", "web"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := pickNode(tc.stubs, tc.by, tc.value)
			switch {
			case tc.wantNone:
				var nf *NodeNotFoundError
				if !errors.As(err, &nf) || nf.By != tc.by || nf.Value != tc.value {
					t.Errorf("err = %v, want NodeNotFoundError", err)
				}
			case tc.wantAmb != nil:
				var amb *AmbiguousNodeError
				if !errors.As(err, &amb) {
					t.Fatalf("err = %v, want AmbiguousNodeError", err)
				}
				var ids []string
				for _, m := range amb.Matches {
					ids = append(ids, m.ID)
				}
				if !reflect.DeepEqual(ids, tc.wantAmb) {
					t.Errorf("match IDs %v, want %v", ids, tc.wantAmb)
				}
			default:
				if err != nil || got == nil || got.ID != tc.wantID {
					t.Errorf("pickNode = %+v, %v; want %s", got, err, tc.wantID)
				}
			}
		})
	}
}

func TestFindNodeDetail(t *testing.T) {
	events0 := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	f := newFakeNomad(t)
	f.handle("GET /v1/nodes", replyJSON([]*api.NodeListStub{{ID: testNodeID, Name: "node-1"}}))
	f.handle("GET /v1/node/"+testNodeID, replyJSON(&api.Node{
		ID:                    testNodeID,
		Name:                  "node-1",
		Datacenter:            "dc1",
		NodePool:              "default",
		NodeClass:             "web",
		HTTPAddr:              "10.0.0.5:4646",
		Status:                "ready",
		StatusDescription:     "ok",
		SchedulingEligibility: api.NodeSchedulingEligible,
		Drivers: map[string]*api.DriverInfo{
			"raw_exec": {Detected: false, Healthy: false, HealthDescription: "disabled"},
			"docker":   {Detected: true, Healthy: true, HealthDescription: "Healthy"},
			"broken":   nil,
		},
		HostVolumes: map[string]*api.HostVolumeInfo{
			"data":  {Path: "/srv/data"},
			"certs": {Path: "/etc/certs", ReadOnly: true, ID: "vol-1"},
			"nil":   nil,
		},
		Events: []*api.NodeEvent{
			{Message: "Node registered", Subsystem: "Cluster", Timestamp: events0},
			nil,
			{Message: "Node heartbeat", Subsystem: "Cluster", Timestamp: events0.Add(time.Minute)},
		},
		NodeResources: &api.NodeResources{
			Cpu: api.NodeCpuResources{CpuShares: 4000}, Memory: api.NodeMemoryResources{MemoryMB: 8192}, Disk: api.NodeDiskResources{DiskMB: 10000},
		},
	}))
	f.handle("GET /v1/allocations", replyJSON([]*api.AllocationListStub{
		{ID: "a1", NodeID: testNodeID, AllocatedResources: &api.AllocatedResources{
			Tasks:  map[string]*api.AllocatedTaskResources{"t": {Cpu: api.AllocatedCpuResources{CpuShares: 500}, Memory: api.AllocatedMemoryResources{MemoryMB: 256}}},
			Shared: api.AllocatedSharedResources{DiskMB: 300},
		}},
		{ID: "a2", NodeID: testNodeID},
	}))
	f.handle("GET /v1/var/berth/nodes/"+testNodeID, replyRaw(404, "variable not found"))
	f.handleLeases()

	d, err := f.client().FindNode(context.Background(), testNodeID, "", "default")
	if err != nil {
		t.Fatal(err)
	}
	if d.Address != "10.0.0.5" || !d.Eligible || !d.Ready() || d.StatusDescription != "ok" {
		t.Errorf("detail = %+v", d.NodeInfo)
	}
	if d.Meta == nil || len(d.Meta) != 0 {
		t.Errorf("Meta = %#v, want an empty non-nil map", d.Meta)
	}
	if !reflect.DeepEqual(d.Drivers, []string{"docker"}) {
		t.Errorf("Drivers = %v, want [docker]", d.Drivers)
	}
	if len(d.DriverDetails) != 2 || d.DriverDetails[0].Name != "docker" || d.DriverDetails[1].Name != "raw_exec" {
		t.Errorf("DriverDetails = %+v", d.DriverDetails)
	}
	wantVols := []HostVolume{{Name: "certs", Path: "/etc/certs", ReadOnly: true, ID: "vol-1"}, {Name: "data", Path: "/srv/data"}}
	if !reflect.DeepEqual(d.HostVolumes, wantVols) {
		t.Errorf("HostVolumes = %+v, want %+v", d.HostVolumes, wantVols)
	}
	if len(d.Events) != 2 || d.Events[0].Message != "Node heartbeat" || d.Events[1].Message != "Node registered" {
		t.Errorf("Events = %+v, want newest first", d.Events)
	}
	wantCap := capacity.Node{
		Total:     capacity.Resources{CPU: 4000, MemoryMB: 8192, DiskMB: 10000},
		Allocated: capacity.Resources{CPU: 500, MemoryMB: 256, DiskMB: 300},
	}
	if d.Capacity != wantCap || d.AllocationCount != 2 {
		t.Errorf("Capacity = %+v, AllocationCount = %d; want %+v and 2", d.Capacity, d.AllocationCount, wantCap)
	}
}

// nomadLikeNodeList answers GET /v1/nodes the way a real Nomad agent does
// for ID prefixes: the node table's ID index is a UUID index, so a prefix
// whose length without hyphens is odd, or that is not hex, is refused with
// a 500 (observed with Nomad 1.10.5: "node lookup failed: index error:
// Input (without hyphens) must be even length").
func nomadLikeNodeList(stubs []*api.NodeListStub) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		prefix := r.URL.Query().Get("prefix")
		if n := len(strings.ReplaceAll(prefix, "-", "")); n%2 == 1 {
			replyRaw(http.StatusInternalServerError, "node lookup failed: index error: Input (without hyphens) must be even length")(w, r)
			return
		}
		var out []*api.NodeListStub
		for _, s := range stubs {
			if strings.HasPrefix(s.ID, prefix) {
				out = append(out, s)
			}
		}
		replyJSON(out)(w, r)
	}
}

// Nomad CLI users type ID prefixes of any length ("nomad node status 0ed"):
// the CLI trims an odd prefix to even length, then keeps the matches of
// the full prefix. FindNode passes the prefix through unchanged.
func TestFindNodeOddLengthPrefix(t *testing.T) {
	f := newFakeNomad(t)
	f.handle("GET /v1/nodes", nomadLikeNodeList([]*api.NodeListStub{
		{ID: "0123abcd-0000-4000-8000-000000000001", Name: "wanted"},
		{ID: "0123ffff-0000-4000-8000-000000000002", Name: "other"},
	}))
	f.handle("GET /v1/node/0123abcd-0000-4000-8000-000000000001",
		replyJSON(&api.Node{ID: "0123abcd-0000-4000-8000-000000000001", Name: "wanted"}))
	f.handle("GET /v1/allocations", replyJSON([]*api.AllocationListStub{}))
	f.handle("GET /v1/var/berth/nodes/0123abcd-0000-4000-8000-000000000001", replyRaw(404, "variable not found"))
	f.handleLeases()

	d, err := f.client().FindNode(context.Background(), "0123a", "", "default")
	if err != nil {
		t.Fatalf("FindNode(0123a): %v", err)
	}
	if d.Name != "wanted" {
		t.Errorf("found %s, want the node named wanted", d.Name)
	}
}
