package ledger

import (
	"errors"
	"fmt"
	"reflect"
	"testing"

	"github.com/berthhq/terraform-provider-berth/internal/capacity"
)

// bytesIn hands out fuzz bytes one at a time, then zeros, so any input is a
// complete scenario.
type bytesIn []byte

func (b *bytesIn) next() byte {
	if len(*b) == 0 {
		return 0
	}
	v := (*b)[0]
	*b = (*b)[1:]
	return v
}

// amount scales a byte to 0..2× size, so requests land below, at and above
// what a node has.
func (b *bytesIn) amount(size int64) int64 { return int64(b.next()) * (size/128 + 1) }

func (b *bytesIn) resources(size capacity.Resources) capacity.Resources {
	return capacity.Resources{CPU: b.amount(size.CPU), MemoryMB: b.amount(size.MemoryMB), DiskMB: b.amount(size.DiskMB)}
}

// FuzzReserve runs random reserve / resize / release / charge sequences on
// one node and checks after each step that the ledger never over-commits the
// node, that a failed step changes nothing, and that a request of exactly
// what is free is accepted.
func FuzzReserve(f *testing.F) {
	f.Add(uint32(4000), uint32(8192), uint32(10240), uint32(500), uint32(1024), uint32(0), []byte{0, 1, 10, 20, 30, 2, 2, 3, 1, 5, 5, 5, 1, 1})
	f.Add(uint32(1000), uint32(1000), uint32(0), uint32(1500), uint32(0), uint32(0), []byte{2, 0, 0, 1, 0, 200, 0, 2, 3})
	f.Add(uint32(0), uint32(0), uint32(0), uint32(0), uint32(0), uint32(0), []byte{2, 0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, aCPU, aMem, aDisk, uCPU, uMem, uDisk uint32, ops []byte) {
		node := NodeState{
			ID: nodeID, Name: "vm",
			Allocatable: capacity.Resources{CPU: int64(aCPU), MemoryMB: int64(aMem), DiskMB: int64(aDisk)},
			Allocated:   capacity.Resources{CPU: int64(uCPU), MemoryMB: int64(uMem), DiskMB: int64(uDisk)},
		}
		in := bytesIn(ops)
		l := Ledger{NodeID: nodeID}
		for step := 0; len(in) > 0 && step < 64; step++ {
			op, name := in.next()%4, fmt.Sprintf("r%d", in.next()%4)
			before := l.Clone()
			var err error
			switch op {
			case 0: // reserve or resize to a random size
				err = l.Reserve(node, name, in.resources(node.Allocatable), nil, t0)
			case 1:
				l.Release(name)
			case 2: // reserve or resize to exactly what the node can give
				old := l.Reservations[name].Request
				room := Free(node, l).Add(old)
				// A dimension already over-committed keeps its old size: not
				// growing it is always allowed.
				req := capacity.Resources{
					CPU:      max(room.CPU, old.CPU),
					MemoryMB: max(room.MemoryMB, old.MemoryMB),
					DiskMB:   max(room.DiskMB, old.DiskMB),
				}
				if err = l.Reserve(node, name, req, nil, t0); err != nil {
					t.Fatalf("step %d: exact fit %v of %q refused: %v", step, req, name, err)
				}
			case 3: // charge a consumer, or uncharge it on a zero byte
				consumer := fmt.Sprintf("instance:default/c%d", in.next()%3)
				if amount := in.resources(l.Reservations[name].Request); amount.IsZero() {
					l.Uncharge(name, consumer)
				} else {
					err = l.Charge(name, consumer, amount)
				}
			}
			if err != nil {
				// Clone normalises nil and empty maps on both sides.
				if !reflect.DeepEqual(l.Clone(), before) {
					t.Fatalf("step %d: failed op %d (%v) changed the ledger", step, op, err)
				}
				continue
			}
			checkInvariants(t, step, node, before, l)
		}
	})
}

func checkInvariants(t *testing.T, step int, node NodeState, before, after Ledger) {
	t.Helper()
	was, now := before.Reserved().Add(node.Allocated), after.Reserved().Add(node.Allocated)
	for _, d := range capacity.Dimensions() {
		// Never over-commit; on a node that already was (allocated beyond
		// allocatable), never make it worse.
		if limit := max(d.Of(node.Allocatable), d.Of(was)); d.Of(now) > limit {
			t.Fatalf("step %d: %s over-committed: reserved+allocated %d > %d", step, d, d.Of(now), limit)
		}
	}
	for name, r := range after.Reservations {
		if !r.Request.Covers(r.Used()) {
			t.Fatalf("step %d: %q consumers use %v beyond its request %v", step, name, r.Used(), r.Request)
		}
	}
	items, err := after.Encode()
	if err != nil {
		t.Fatalf("step %d: Encode: %v", step, err)
	}
	back, err := Decode(after.NodeID, items)
	if err != nil || !reflect.DeepEqual(back.Reservations, after.Clone().Reservations) {
		t.Fatalf("step %d: round trip: %v\n got %#v\nwant %#v", step, err, back, after)
	}
}

// FuzzPick builds random clusters and checks that the picked node is usable,
// has room, is accepted by Reserve and is the best by the strategy's score;
// and that a refusal accounts for every node.
func FuzzPick(f *testing.F) {
	f.Add([]byte{3, 1, 100, 100, 100, 10, 10, 10, 0, 1, 200, 200, 200, 0, 0, 0, 0, 2, 50, 50, 50, 49, 0, 0, 3}, uint16(500), uint16(500), uint16(0), false)
	f.Add([]byte{2, 1, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0}, uint16(0), uint16(0), uint16(0), true)
	f.Fuzz(func(t *testing.T, data []byte, rCPU, rMem, rDisk uint16, spread bool) {
		in := bytesIn(data)
		req := capacity.Resources{CPU: int64(rCPU), MemoryMB: int64(rMem), DiskMB: int64(rDisk)}
		scale := res(64, 64, 64) // a byte of allocatable is 64 units, so nodes are 0..16320
		var cands []Candidate
		for n := int(in.next() % 9); len(cands) < n; {
			id := fmt.Sprintf("n%d", in.next()%16)
			// The second, unscaled term makes allocatable any integer, so
			// requests can meet free capacity exactly.
			c := cand(id, in.resources(scale).Add(in.resources(res(0, 0, 0))), in.resources(scale))
			c.Node.Allocated = in.resources(scale)
			switch in.next() & 0x30 {
			case 0x30:
				c.Status = "down"
			case 0x20:
				c.Eligible = false
			case 0x10:
				c.Draining = true
			}
			cands = append(cands, c)
		}
		s := Binpack
		if spread {
			s = Spread
		}
		got, err := Pick(cands, req, s)
		usable := func(c Candidate) bool {
			free := Free(c.Node, c.Ledger)
			for _, d := range capacity.Dimensions() {
				if d.Of(req) > 0 && d.Of(req) > d.Of(free) {
					return false
				}
			}
			return c.Status == "ready" && c.Eligible && !c.Draining
		}
		if err != nil {
			var none *NoCandidateError
			if !errors.As(err, &none) {
				t.Fatalf("Pick error %v is not a *NoCandidateError", err)
			}
			total := 0
			for _, n := range none.Counts {
				total += n
			}
			if total != len(cands) || none.Nodes != len(cands) {
				t.Fatalf("counts %v for %d nodes", none.Counts, len(cands))
			}
			for _, c := range cands {
				if usable(c) {
					t.Fatalf("Pick refused although %s fits: %v", c.Node.ID, err)
				}
			}
			return
		}
		// worse reports whether a ranks below b under s (score first, then
		// the lower ID wins).
		worse := func(a, b Candidate) bool {
			cmp := Score(a.Node, a.Ledger, req).Cmp(Score(b.Node, b.Ledger, req))
			if s == Spread {
				cmp = -cmp
			}
			return cmp > 0 || (cmp == 0 && a.Node.ID > b.Node.ID)
		}
		// Fuzzed IDs may repeat; the picked one is the best usable
		// candidate carrying the returned ID.
		var picked *Candidate
		for i, c := range cands {
			if c.Node.ID == got && usable(c) && (picked == nil || worse(*picked, c)) {
				picked = &cands[i]
			}
		}
		if picked == nil {
			t.Fatalf("Pick chose %s, which is not a usable candidate", got)
		}
		l := picked.Ledger.Clone()
		if err := l.Reserve(picked.Node, "new", req, nil, t0); err != nil {
			t.Fatalf("Reserve refused the picked node %s: %v", got, err)
		}
		for _, c := range cands {
			if usable(c) && worse(*picked, c) {
				t.Fatalf("%s picked %s but %s is better", s, got, c.Node.ID)
			}
		}
	})
}
