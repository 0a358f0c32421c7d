package ledger

import (
	"errors"
	"math/big"
	"reflect"
	"testing"

	"github.com/berthhq/terraform-provider-berth/internal/capacity"
)

// cand is a ready, eligible node with allocatable alloc and reservations
// holding reserved.
func cand(id string, alloc, reserved capacity.Resources) Candidate {
	l := Ledger{NodeID: id, Reservations: map[string]Reservation{}}
	if !reserved.IsZero() {
		l.Reservations["held"] = Reservation{Request: reserved}
	}
	return Candidate{Node: NodeState{ID: id, Name: id, Allocatable: alloc}, Ledger: l, Status: "ready", Eligible: true}
}

func with(c Candidate, change func(*Candidate)) Candidate {
	change(&c)
	return c
}

func TestScore(t *testing.T) {
	cases := []struct {
		name string
		node NodeState
		held capacity.Resources
		req  capacity.Resources
		want *big.Rat
	}{
		{"empty node, nothing asked", NodeState{Allocatable: res(4000, 8192, 10240)}, res(0, 0, 0), res(0, 0, 0), big.NewRat(1, 1)},
		{"half of each", NodeState{Allocatable: res(4000, 8192, 10240)}, res(0, 0, 0), res(2000, 4096, 5120), big.NewRat(1, 2)},
		{"allocated and reserved count", NodeState{Allocatable: res(4000, 8000, 1000), Allocated: res(1000, 0, 0)}, res(0, 2000, 0), res(1000, 0, 1000), big.NewRat(5, 12)}, // (2/4 + 6/8 + 0)/3
		{"dimension without capacity is left out", NodeState{Allocatable: res(4000, 8192, 0)}, res(0, 0, 0), res(1000, 2048, 0), big.NewRat(3, 4)},
		{"over-committed dimension counts as full", NodeState{Allocatable: res(1000, 1000, 1000), Allocated: res(0, 2000, 0)}, res(0, 0, 0), res(0, 0, 0), big.NewRat(2, 3)},
		{"no capacity at all", NodeState{}, res(0, 0, 0), res(0, 0, 0), new(big.Rat)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			l := Ledger{Reservations: map[string]Reservation{"held": {Request: tc.held}}}
			if got := Score(tc.node, l, tc.req); got.Cmp(tc.want) != 0 {
				t.Errorf("Score() = %s, want %s", got.RatString(), tc.want.RatString())
			}
		})
	}
}

func TestPick(t *testing.T) {
	big4 := res(4000, 8192, 10240)
	// "busy" has a quarter of its capacity reserved, "idle" none, so
	// binpack and spread part ways.
	busy := cand("busy", big4, res(1000, 2048, 2560))
	idle := cand("idle", big4, res(0, 0, 0))
	// Twice the size with the same absolute headroom as busy: relative to
	// its size it is the fuller one, which is what normalising by
	// allocatable measures.
	large := cand("large", res(8000, 16384, 20480), res(5000, 10240, 12800))
	req := res(1000, 1024, 0)
	cases := []struct {
		name     string
		cands    []Candidate
		strategy Strategy
		want     string
	}{
		{"binpack fills the busier node", []Candidate{idle, busy}, Binpack, "busy"},
		{"spread takes the idler node", []Candidate{busy, idle}, Spread, "idle"},
		{"binpack compares fractions, not absolutes", []Candidate{busy, large}, Binpack, "large"},
		{"spread compares fractions, not absolutes", []Candidate{large, busy}, Spread, "busy"},
		{"binpack tie goes to the lowest ID", []Candidate{cand("n2", big4, res(0, 0, 0)), cand("n1", big4, res(0, 0, 0)), cand("n3", big4, res(0, 0, 0))}, Binpack, "n1"},
		{"spread tie goes to the lowest ID", []Candidate{cand("n2", big4, res(0, 0, 0)), cand("n3", big4, res(0, 0, 0)), cand("n1", big4, res(0, 0, 0))}, Spread, "n1"},
		{"exact fit is a candidate", []Candidate{cand("tight", res(1000, 1024, 0), res(0, 0, 0))}, Binpack, "tight"},
		{"unusable nodes are skipped", []Candidate{
			with(idle, func(c *Candidate) { c.Draining = true }),
			busy,
		}, Spread, "busy"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Pick(tc.cands, req, tc.strategy)
			if err != nil || got != tc.want {
				t.Errorf("Pick() = %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

func TestPickRejections(t *testing.T) {
	alloc := res(4000, 8192, 10240)
	ok := cand("ok", alloc, res(0, 0, 0))
	req := res(1000, 1024, 1024)
	cases := []struct {
		name  string
		cands []Candidate
		want  string
		why   map[string]Reason
	}{
		{"no nodes", nil, "no node can take the reservation: there are no nodes", map[string]Reason{}},
		{"down", []Candidate{with(ok, func(c *Candidate) { c.Status = "down" })},
			"no node can take the reservation: 1 node: 1 not ready", map[string]Reason{"ok": ReasonNotReady}},
		{"initializing", []Candidate{with(ok, func(c *Candidate) { c.Status = "initializing" })},
			"no node can take the reservation: 1 node: 1 not ready", map[string]Reason{"ok": ReasonNotReady}},
		{"ineligible", []Candidate{with(ok, func(c *Candidate) { c.Eligible = false })},
			"no node can take the reservation: 1 node: 1 ineligible", map[string]Reason{"ok": ReasonIneligible}},
		{"draining", []Candidate{with(ok, func(c *Candidate) { c.Draining = true })},
			"no node can take the reservation: 1 node: 1 draining", map[string]Reason{"ok": ReasonDraining}},
		{"cpu", []Candidate{cand("c", alloc, res(3001, 0, 0))},
			"no node can take the reservation: 1 node: 1 not enough cpu", map[string]Reason{"c": ReasonNotEnoughCPU}},
		{"memory", []Candidate{cand("m", alloc, res(0, 7169, 0))},
			"no node can take the reservation: 1 node: 1 not enough memory", map[string]Reason{"m": ReasonNotEnoughMem}},
		{"disk", []Candidate{cand("d", alloc, res(0, 0, 9217))},
			"no node can take the reservation: 1 node: 1 not enough disk", map[string]Reason{"d": ReasonNotEnoughDsk}},
		{"allocated counts", []Candidate{with(ok, func(c *Candidate) { c.Node.Allocated = res(0, 7169, 0) })},
			"no node can take the reservation: 1 node: 1 not enough memory", map[string]Reason{"ok": ReasonNotEnoughMem}},
		{"first failing test wins", []Candidate{
			with(ok, func(c *Candidate) { c.Node.ID = "a"; c.Status = "down"; c.Eligible = false; c.Draining = true }),
			with(ok, func(c *Candidate) { c.Node.ID = "b"; c.Eligible = false; c.Draining = true }),
			cand("c", alloc, res(4000, 8192, 0)),
		}, "no node can take the reservation: 3 nodes: 1 not ready, 1 ineligible, 1 not enough cpu",
			map[string]Reason{"a": ReasonNotReady, "b": ReasonIneligible, "c": ReasonNotEnoughCPU}},
		{"summary counts in fixed order", []Candidate{
			cand("m1", alloc, res(0, 8000, 0)),
			with(ok, func(c *Candidate) { c.Node.ID = "dr"; c.Draining = true }),
			cand("m2", alloc, res(0, 8000, 0)),
		}, "no node can take the reservation: 3 nodes: 1 draining, 2 not enough memory",
			map[string]Reason{"m1": ReasonNotEnoughMem, "m2": ReasonNotEnoughMem, "dr": ReasonDraining}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for _, s := range Strategies() {
				got, err := Pick(tc.cands, req, s)
				var none *NoCandidateError
				if !errors.As(err, &none) {
					t.Fatalf("%s: Pick() = %q, %v; want a *NoCandidateError", s, got, err)
				}
				if err.Error() != tc.want {
					t.Errorf("%s: message:\n got %s\nwant %s", s, err, tc.want)
				}
				if !reflect.DeepEqual(none.Rejected, tc.why) {
					t.Errorf("%s: Rejected = %v, want %v", s, none.Rejected, tc.why)
				}
			}
		})
	}
}

func TestPickRefusesBadInput(t *testing.T) {
	cands := []Candidate{cand("n1", res(1, 1, 1), res(0, 0, 0))}
	cases := []struct {
		name     string
		req      capacity.Resources
		strategy Strategy
		want     string
	}{
		{"unknown strategy", res(0, 0, 0), "random", `unknown placement strategy "random" (one of [binpack spread])`},
		{"empty strategy", res(0, 0, 0), "", `unknown placement strategy "" (one of [binpack spread])`},
		{"negative request", res(-1, 0, 0), Binpack, "the cpu request cannot be negative (got -1)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := Pick(cands, tc.req, tc.strategy); err == nil || err.Error() != tc.want {
				t.Errorf("Pick() error = %v, want %s", err, tc.want)
			}
		})
	}
}
