// Package ledger is the pure bookkeeping behind berth_node_reservation: the
// named cpu/memory/disk reservations held on one Nomad node, what work has
// been charged against each of them, and the choice of a node when the user
// names none.
//
// A node's ledger lives in one Nomad Variable (berth/nodes/<node-id>), one
// item per reservation, and every write is check-and-set. That I/O belongs to
// the caller; this package only decodes the items, applies one change with
// its capacity checks, and encodes the result. Keeping it free of Nomad and
// Terraform imports lets the rules (never over-commit a node, never charge
// past a budget) be tested with tables and fuzzing.
//
// This is the node reservation ledger: in this package, Reservation always
// means a node reservation (berth_node_reservation), never a lease
// (berth_reservation, see package lease). Outside it the type is spelled
// ledger.Reservation, which names the package it comes from; code in other
// packages says NodeReservation wherever the bare word would be ambiguous.
package ledger

import (
	"fmt"
	"maps"
	"time"

	"github.com/berthhq/terraform-provider-berth/internal/capacity"
)

// Reservation is a node reservation: capacity held on a node under a name,
// and the work charged against it.
type Reservation struct {
	// Request is what the reservation holds back from the node.
	Request capacity.Resources
	// Annotations are free-form labels the user attached.
	Annotations map[string]string
	// CreatedAt is when the reservation was first made, in UTC. A resize
	// keeps it, so it tells how long the capacity has been held.
	CreatedAt time.Time
	// Consumers maps a consumer key (for example "instance:default/web" or
	// "volume:default/<id>") to what it is charged against Request.
	Consumers map[string]capacity.Resources
}

// Used is the sum of what the consumers are charged.
func (r Reservation) Used() capacity.Resources {
	var sum capacity.Resources
	for _, c := range r.Consumers {
		sum = sum.Add(c)
	}
	return sum
}

// Remaining is the budget consumers can still be charged: Request − Used.
func (r Reservation) Remaining() capacity.Resources { return r.Request.Sub(r.Used()) }

// clone deep-copies r, so that a change to the copy's maps cannot show
// through a value the caller still holds.
func (r Reservation) clone() Reservation {
	r.Annotations = cloneMap(r.Annotations)
	r.Consumers = cloneMap(r.Consumers)
	return r
}

// cloneMap copies m, normalising an empty map to nil so that a decoded
// ledger and one built in memory compare equal.
func cloneMap[V any](m map[string]V) map[string]V {
	if len(m) == 0 {
		return nil
	}
	return maps.Clone(m)
}

// Ledger is every reservation on one node.
type Ledger struct {
	NodeID string
	// Reservations is keyed by reservation name, which is also the item key
	// in the Nomad Variable.
	Reservations map[string]Reservation
}

// Clone deep-copies l. A caller that may have to retry a check-and-set write
// can apply its change to a clone and keep the original untouched.
func (l Ledger) Clone() Ledger {
	out := Ledger{NodeID: l.NodeID, Reservations: make(map[string]Reservation, len(l.Reservations))}
	for name, r := range l.Reservations {
		out.Reservations[name] = r.clone()
	}
	return out
}

// Reserved is the sum of every reservation's request.
func (l Ledger) Reserved() capacity.Resources {
	var sum capacity.Resources
	for _, r := range l.Reservations {
		sum = sum.Add(r.Request)
	}
	return sum
}

// ConsumerKeys is every consumer key charged on this node. The caller uses
// it to leave those jobs' allocations out of NodeState.Allocated: their
// capacity is already counted once, inside the reservation that holds them.
func (l Ledger) ConsumerKeys() map[string]bool {
	out := map[string]bool{}
	for _, r := range l.Reservations {
		for k := range r.Consumers {
			out[k] = true
		}
	}
	return out
}

// NodeState is what the caller learned from Nomad about one node.
type NodeState struct {
	ID, Name string
	// Allocatable is what the node offers to workloads (fingerprinted total
	// minus the agent's own reserved block).
	Allocatable capacity.Resources
	// Allocated is the sum over the node's non-terminal allocations that are
	// NOT charged to a reservation in this node's ledger; charged ones are
	// already inside Reserved and must not be counted twice.
	Allocated capacity.Resources
}

// Free is what the node can still give to a new reservation:
// allocatable − reserved − allocated. It is negative in a dimension that is
// over-committed (for example after the agent's allocatable shrank).
func Free(n NodeState, l Ledger) capacity.Resources {
	return n.Allocatable.Sub(l.Reserved()).Sub(n.Allocated)
}

// shortID shortens a Nomad node ID the way Nomad's own CLI does, so messages
// stay readable and match what `nomad node status` prints.
func shortID(id string) string {
	if len(id) > 8 {
		return id[:8]
	}
	return id
}

// nodeLabel names a node in messages: `"name" (short-id)`, or just the short
// ID when the caller did not know the name.
func nodeLabel(name, id string) string {
	if name == "" {
		return shortID(id)
	}
	return fmt.Sprintf("%q (%s)", name, shortID(id))
}
