package ledger

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/berthhq/terraform-provider-berth/internal/capacity"
)

// vm is the node of the messages in the design notes: 4000 MHz, 8 GiB,
// 10 GiB allocatable, 500 MHz and 1 GiB allocated outside any reservation.
var vm = NodeState{ID: nodeID, Name: "vm", Allocatable: res(4000, 8192, 10240), Allocated: res(500, 1024, 0)}

func ledgerOf(rs map[string]Reservation) Ledger {
	return Ledger{NodeID: nodeID, Reservations: rs}
}

func TestReservedAndFree(t *testing.T) {
	cases := []struct {
		name         string
		ledger       Ledger
		wantReserved capacity.Resources
		wantFree     capacity.Resources
	}{
		{"no reservations", Ledger{NodeID: nodeID}, res(0, 0, 0), res(3500, 7168, 10240)},
		{"two reservations", ledgerOf(map[string]Reservation{
			"a": {Request: res(1000, 2048, 0)},
			"b": {Request: res(500, 0, 4096), Consumers: map[string]capacity.Resources{"x": res(500, 0, 0)}},
		}), res(1500, 2048, 4096), res(2000, 5120, 6144)},
		{"exactly full", ledgerOf(map[string]Reservation{"a": {Request: res(3500, 7168, 10240)}}), res(3500, 7168, 10240), res(0, 0, 0)},
		{"over-committed shows negative", ledgerOf(map[string]Reservation{"a": {Request: res(4000, 0, 0)}}), res(4000, 0, 0), res(-500, 7168, 10240)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.ledger.Reserved(); got != tc.wantReserved {
				t.Errorf("Reserved() = %v, want %v", got, tc.wantReserved)
			}
			if got := Free(vm, tc.ledger); got != tc.wantFree {
				t.Errorf("Free() = %v, want %v", got, tc.wantFree)
			}
		})
	}
}

func TestReserve(t *testing.T) {
	later := t0.Add(24 * time.Hour)
	db := Reservation{
		Request:     res(3000, 4096, 0),
		Annotations: map[string]string{"team": "data"},
		CreatedAt:   t0,
		Consumers:   map[string]capacity.Resources{"instance:default/pg": res(1000, 3000, 0)},
	}
	cases := []struct {
		name    string
		node    NodeState
		start   map[string]Reservation
		resName string
		req     capacity.Resources
		ann     map[string]string
		wantErr string       // exact message; "" for success
		want    *Reservation // the stored reservation on success
	}{
		{
			name: "new reservation", node: vm, resName: "web", req: res(1000, 1024, 2048), ann: map[string]string{"a": "b"},
			want: &Reservation{Request: res(1000, 1024, 2048), Annotations: map[string]string{"a": "b"}, CreatedAt: later},
		},
		{
			name: "exact fit accepted", node: vm, start: map[string]Reservation{"db": db}, resName: "web", req: res(500, 3072, 10240),
			want: &Reservation{Request: res(500, 3072, 10240), CreatedAt: later},
		},
		{
			name: "one MHz more rejected", node: vm, start: map[string]Reservation{"db": db}, resName: "web", req: res(501, 0, 0),
			wantErr: `node "vm" (77e393ef) has not enough cpu: allocatable 4000 MHz, reserved 3000, allocated 500, requested 501`,
		},
		{
			name: "message of the design notes", node: vm, start: map[string]Reservation{"db": db}, resName: "web", req: res(1000, 0, 0),
			wantErr: `node "vm" (77e393ef) has not enough cpu: allocatable 4000 MHz, reserved 3000, allocated 500, requested 1000`,
		},
		{
			name: "first short dimension is reported", node: vm, start: map[string]Reservation{"db": db}, resName: "web", req: res(0, 4097, 10241),
			wantErr: `node "vm" (77e393ef) has not enough memory: allocatable 8192 MiB, reserved 4096, allocated 1024, requested 4097`,
		},
		{
			name: "disk message", node: vm, resName: "web", req: res(0, 0, 10241),
			wantErr: `node "vm" (77e393ef) has not enough disk: allocatable 10240 MiB, reserved 0, allocated 0, requested 10241`,
		},
		{
			name: "node without a name", node: NodeState{ID: nodeID, Allocatable: res(1, 1, 1)}, resName: "web", req: res(2, 0, 0),
			wantErr: `node 77e393ef has not enough cpu: allocatable 1 MHz, reserved 0, allocated 0, requested 2`,
		},
		{
			name: "resize excludes its own old request", node: vm, start: map[string]Reservation{"db": db}, resName: "db", req: res(3500, 7168, 10240),
			ann:  map[string]string{"team": "core"},
			want: &Reservation{Request: res(3500, 7168, 10240), Annotations: map[string]string{"team": "core"}, CreatedAt: t0, Consumers: db.Consumers},
		},
		{
			name: "resize one MHz too far", node: vm, start: map[string]Reservation{"db": db, "x": {Request: res(100, 0, 0)}}, resName: "db", req: res(3401, 4096, 0),
			wantErr: `node "vm" (77e393ef) has not enough cpu: allocatable 4000 MHz, reserved 100, allocated 500, requested 3401`,
		},
		{
			name: "resize down to what consumers use", node: vm, start: map[string]Reservation{"db": db}, resName: "db", req: res(1000, 3000, 0),
			want: &Reservation{Request: res(1000, 3000, 0), CreatedAt: t0, Consumers: db.Consumers},
		},
		{
			name: "resize below what consumers use", node: vm, start: map[string]Reservation{"db": db}, resName: "db", req: res(1000, 2048, 0),
			wantErr: `reservation "db" cannot shrink its memory to 2048 MiB: its consumers already use 3000 MiB; remove or shrink them first`,
		},
		{
			name:  "over-committed node still takes a change that grows nothing",
			node:  NodeState{ID: nodeID, Name: "vm", Allocatable: res(2000, 4096, 0), Allocated: res(0, 1024, 0)},
			start: map[string]Reservation{"db": db}, resName: "db", req: res(2500, 4096, 0), ann: map[string]string{"new": "label"},
			want: &Reservation{Request: res(2500, 4096, 0), Annotations: map[string]string{"new": "label"}, CreatedAt: t0, Consumers: db.Consumers},
		},
		{
			name:  "over-committed dimension refuses growth",
			node:  NodeState{ID: nodeID, Name: "vm", Allocatable: res(2000, 8192, 0)},
			start: map[string]Reservation{"db": db}, resName: "web", req: res(1, 0, 0),
			wantErr: `node "vm" (77e393ef) has not enough cpu: allocatable 2000 MHz, reserved 3000, allocated 0, requested 1`,
		},
		{
			name:  "a zero dimension does not grow an over-committed one",
			node:  NodeState{ID: nodeID, Name: "vm", Allocatable: res(2000, 8192, 0)},
			start: map[string]Reservation{"db": db}, resName: "web", req: res(0, 1024, 0),
			want: &Reservation{Request: res(0, 1024, 0), CreatedAt: later},
		},
		{name: "empty name", node: vm, resName: "", req: res(1, 1, 1), wantErr: "a reservation needs a name"},
		{
			name: "negative request", node: vm, resName: "web", req: res(1, -1, 1),
			wantErr: `reservation "web": the memory request cannot be negative (got -1)`,
		},
		{
			name: "node state of another node", node: NodeState{ID: "0badc0de-0000", Allocatable: res(9, 9, 9)}, resName: "web",
			wantErr: `reservation "web": node state is for 0badc0de but the ledger is of node 77e393ef`,
		},
		{
			name: "ledger would not fit its variable", node: vm, resName: "web",
			ann:     map[string]string{"blob": strings.Repeat("x", MaxVariableBytes)},
			wantErr: `the reservation ledger of node "vm" (77e393ef) would take 65670 bytes, more than the 65536 a Nomad Variable can hold: use fewer reservations, shorter names or fewer annotations on this node`,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			l := ledgerOf(tc.start).Clone()
			before := l.Clone()
			err := l.Reserve(tc.node, tc.resName, tc.req, tc.ann, later.In(time.FixedZone("X", -7200)))
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("Reserve error:\n got %v\nwant %s", err, tc.wantErr)
				}
				if !reflect.DeepEqual(l, before) {
					t.Errorf("a failed Reserve changed the ledger:\n got %#v\nwant %#v", l, before)
				}
				return
			}
			if err != nil {
				t.Fatalf("Reserve: %v", err)
			}
			if got := l.Reservations[tc.resName]; !reflect.DeepEqual(got, *tc.want) {
				t.Errorf("stored:\n got %#v\nwant %#v", got, *tc.want)
			}
			wantLen := len(tc.start)
			if _, existed := tc.start[tc.resName]; !existed {
				wantLen++
			}
			if len(l.Reservations) != wantLen {
				t.Errorf("Reserve touched other reservations: %v", l.Reservations)
			}
		})
	}
}

func TestReserveErrorTypes(t *testing.T) {
	l := ledgerOf(map[string]Reservation{"db": {Request: res(10, 10, 10), Consumers: map[string]capacity.Resources{"c": res(5, 5, 5)}}})
	var notEnough *NotEnoughError
	if err := l.Reserve(vm, "web", res(99999, 0, 0), nil, t0); !errors.As(err, &notEnough) || notEnough.Dimension != capacity.CPU {
		t.Errorf("want *NotEnoughError for cpu, got %#v", err)
	}
	var shrink *ShrinkError
	if err := l.Reserve(vm, "db", res(10, 4, 10), nil, t0); !errors.As(err, &shrink) || shrink.Used != 5 || shrink.Requested != 4 {
		t.Errorf("want *ShrinkError 4 < 5, got %#v", err)
	}
}

func TestRelease(t *testing.T) {
	cases := []struct {
		name    string
		release string
		want    bool
		left    []string
	}{
		{"present", "a", true, []string{"b"}},
		{"absent", "zzz", false, []string{"a", "b"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			l := ledgerOf(map[string]Reservation{"a": {Request: res(1, 1, 1)}, "b": {Request: res(2, 2, 2)}})
			if got := l.Release(tc.release); got != tc.want {
				t.Errorf("Release() = %v, want %v", got, tc.want)
			}
			for _, name := range tc.left {
				if _, ok := l.Reservations[name]; !ok {
					t.Errorf("%q is gone", name)
				}
			}
			if len(l.Reservations) != len(tc.left) {
				t.Errorf("left %v, want %v", l.Reservations, tc.left)
			}
		})
	}
	var empty Ledger
	if empty.Release("x") {
		t.Error("Release on a nil map reported true")
	}
}

func TestCharge(t *testing.T) {
	start := func() Ledger {
		return ledgerOf(map[string]Reservation{"db": {
			Request:   res(2000, 4096, 10240),
			CreatedAt: t0,
			Consumers: map[string]capacity.Resources{"instance:default/api": res(1000, 3000, 0)},
		}})
	}
	cases := []struct {
		name        string
		reservation string
		consumer    string
		amount      capacity.Resources
		wantErr     string
		wantUsed    capacity.Resources
	}{
		{"budget exact fit", "db", "instance:default/web", res(1000, 1096, 10240), "", res(2000, 4096, 10240)},
		{
			"over budget", "db", "instance:default/web", res(0, 2000, 0),
			`reservation "db" has not enough memory left for instance:default/web: budget 4096 MiB, already used 3000, requested 2000`, res(1000, 3000, 0),
		},
		{
			"over budget by one MHz", "db", "volume:default/v1", res(1001, 0, 0),
			`reservation "db" has not enough cpu left for volume:default/v1: budget 2000 MHz, already used 1000, requested 1001`, res(1000, 3000, 0),
		},
		{"re-charge replaces the previous charge", "db", "instance:default/api", res(2000, 4096, 0), "", res(2000, 4096, 0)},
		{"re-charge of the same amount is a no-op", "db", "instance:default/api", res(1000, 3000, 0), "", res(1000, 3000, 0)},
		{"re-charge to less", "db", "instance:default/api", res(0, 1, 0), "", res(0, 1, 0)},
		{"missing reservation", "nope", "instance:default/web", res(1, 1, 1), `node 77e393ef has no reservation "nope"`, res(1000, 3000, 0)},
		{"empty consumer key", "db", "", res(1, 1, 1), "a consumer needs a key", res(1000, 3000, 0)},
		{
			"negative charge", "db", "instance:default/web", res(0, 0, -5),
			"instance:default/web: the disk charge cannot be negative (got -5)", res(1000, 3000, 0),
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			l := start()
			before := l.Clone()
			err := l.Charge(tc.reservation, tc.consumer, tc.amount)
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("Charge error:\n got %v\nwant %s", err, tc.wantErr)
				}
				if !reflect.DeepEqual(l, before) {
					t.Errorf("a failed Charge changed the ledger")
				}
			} else if err != nil {
				t.Fatalf("Charge: %v", err)
			}
			if got := l.Reservations["db"].Used(); got != tc.wantUsed {
				t.Errorf("Used() = %v, want %v", got, tc.wantUsed)
			}
		})
	}
}

func TestChargeErrorTypesAndIsolation(t *testing.T) {
	held := Reservation{Request: res(10, 10, 10)}
	l := ledgerOf(map[string]Reservation{"db": held})
	var missing *MissingReservationError
	if err := l.Charge("nope", "c", res(0, 0, 0)); !errors.As(err, &missing) || missing.Reservation != "nope" {
		t.Errorf("want *MissingReservationError, got %#v", err)
	}
	var budget *BudgetError
	if err := l.Charge("db", "c", res(11, 0, 0)); !errors.As(err, &budget) || budget.Budget != 10 || budget.Requested != 11 {
		t.Errorf("want *BudgetError, got %#v", err)
	}
	if err := l.Charge("db", "c", res(10, 10, 10)); err != nil {
		t.Fatal(err)
	}
	// A Reservation value taken before the charge must not see it.
	if held.Consumers != nil {
		t.Errorf("Charge wrote through to a copy the caller held: %v", held.Consumers)
	}
	if got := l.ConsumerKeys(); !reflect.DeepEqual(got, map[string]bool{"c": true}) {
		t.Errorf("ConsumerKeys() = %v", got)
	}
	if got := l.Reservations["db"].Remaining(); got != res(0, 0, 0) {
		t.Errorf("Remaining() = %v, want zero", got)
	}
}

func TestUncharge(t *testing.T) {
	cases := []struct {
		name, reservation, consumer string
		want                        bool
		wantKeys                    map[string]bool
	}{
		{"present", "db", "a", true, map[string]bool{"b": true}},
		{"absent consumer", "db", "zzz", false, map[string]bool{"a": true, "b": true}},
		{"absent reservation", "nope", "a", false, map[string]bool{"a": true, "b": true}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			l := ledgerOf(map[string]Reservation{
				"db":    {Request: res(9, 9, 9), Consumers: map[string]capacity.Resources{"a": res(1, 1, 1)}},
				"cache": {Request: res(9, 9, 9), Consumers: map[string]capacity.Resources{"b": res(1, 1, 1)}},
			})
			if got := l.Uncharge(tc.reservation, tc.consumer); got != tc.want {
				t.Errorf("Uncharge() = %v, want %v", got, tc.want)
			}
			if got := l.ConsumerKeys(); !reflect.DeepEqual(got, tc.wantKeys) {
				t.Errorf("ConsumerKeys() = %v, want %v", got, tc.wantKeys)
			}
		})
	}
	// The last consumer leaving gives nil, as Decode would, so the ledger
	// re-encodes without an empty "consumers" object.
	l := ledgerOf(map[string]Reservation{"db": {Request: res(1, 1, 1), Consumers: map[string]capacity.Resources{"a": res(1, 1, 1)}}})
	l.Uncharge("db", "a")
	if l.Reservations["db"].Consumers != nil {
		t.Errorf("Consumers = %#v, want nil", l.Reservations["db"].Consumers)
	}
}
