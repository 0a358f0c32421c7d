package ledger

import (
	"errors"
	"fmt"
	"time"

	"github.com/berthhq/terraform-provider-berth/internal/capacity"
)

// NotEnoughError says a node cannot give a reservation what it asks for.
// The numbers are those of the first short dimension; Reserved leaves out
// the reservation being resized, so reserved + allocated + requested is what
// the node would hold afterwards.
type NotEnoughError struct {
	NodeName, NodeID string
	Dimension        capacity.Dimension
	Allocatable      int64
	Reserved         int64
	Allocated        int64
	Requested        int64
}

func (e *NotEnoughError) Error() string {
	return fmt.Sprintf("node %s has not enough %s: allocatable %d %s, reserved %d, allocated %d, requested %d",
		nodeLabel(e.NodeName, e.NodeID), e.Dimension, e.Allocatable, e.Dimension.Unit(), e.Reserved, e.Allocated, e.Requested)
}

// ShrinkError says a resize would leave a reservation smaller than what its
// consumers are already charged: they would hold capacity the node no longer
// keeps for them.
type ShrinkError struct {
	Reservation string
	Dimension   capacity.Dimension
	Requested   int64
	Used        int64
}

func (e *ShrinkError) Error() string {
	return fmt.Sprintf("reservation %q cannot shrink its %s to %d %s: its consumers already use %d %s; remove or shrink them first",
		e.Reservation, e.Dimension, e.Requested, e.Dimension.Unit(), e.Used, e.Dimension.Unit())
}

// MissingReservationError says a consumer was charged to, or a lookup named,
// a reservation that is not in the node's ledger (for example one released
// out of band).
type MissingReservationError struct {
	NodeID, Reservation string
}

func (e *MissingReservationError) Error() string {
	return fmt.Sprintf("node %s has no reservation %q", shortID(e.NodeID), e.Reservation)
}

// BudgetError says a consumer does not fit in what its reservation has left.
// Used leaves out the consumer's own previous charge, since a charge
// replaces it.
type BudgetError struct {
	Reservation, Consumer string
	Dimension             capacity.Dimension
	Budget                int64
	Used                  int64
	Requested             int64
}

func (e *BudgetError) Error() string {
	return fmt.Sprintf("reservation %q has not enough %s left for %s: budget %d %s, already used %d, requested %d",
		e.Reservation, e.Dimension, e.Consumer, e.Budget, e.Dimension.Unit(), e.Used, e.Requested)
}

// firstShort returns the first dimension in which want grows past had and
// does not fit in room (exact fit allowed). A dimension that does not grow
// is never short: a node or budget that is already over-committed, say
// because the agent's allocatable shrank, must still accept a change that
// makes nothing worse, such as new annotations or a smaller request.
func firstShort(room, had, want capacity.Resources) (capacity.Dimension, bool) {
	for _, d := range capacity.Dimensions() {
		if d.Of(want) > d.Of(had) && d.Of(want) > d.Of(room) {
			return d, true
		}
	}
	return "", false
}

// Reserve creates the reservation name holding req, or resizes it if it
// exists, after checking that the node can give it: req must fit in
// allocatable − (reserved by the other reservations) − allocated. A resize
// keeps CreatedAt and Consumers and may not go below what the consumers
// already use; a new reservation gets CreatedAt = now in UTC. Annotations are
// replaced. On error the ledger is unchanged.
func (l *Ledger) Reserve(n NodeState, name string, req capacity.Resources, annotations map[string]string, now time.Time) error {
	if name == "" {
		return errors.New("a reservation needs a name")
	}
	if d, ok := negative(req); ok {
		return fmt.Errorf("reservation %q: the %s request cannot be negative (got %d)", name, d, d.Of(req))
	}
	if n.ID != "" && l.NodeID != "" && n.ID != l.NodeID {
		// A mix-up here would check capacity against the wrong node.
		return fmt.Errorf("reservation %q: node state is for %s but the ledger is of node %s",
			name, shortID(n.ID), shortID(l.NodeID))
	}
	old, exists := l.Reservations[name]
	if exists {
		used := old.Used()
		for _, d := range capacity.Dimensions() {
			if d.Of(req) < d.Of(used) {
				return &ShrinkError{Reservation: name, Dimension: d, Requested: d.Of(req), Used: d.Of(used)}
			}
		}
	}
	// old is the zero Reservation when absent, so this works for both cases.
	others := l.Reserved().Sub(old.Request)
	room := n.Allocatable.Sub(others).Sub(n.Allocated)
	if d, ok := firstShort(room, old.Request, req); ok {
		return &NotEnoughError{
			NodeName: n.Name, NodeID: n.ID, Dimension: d,
			Allocatable: d.Of(n.Allocatable), Reserved: d.Of(others), Allocated: d.Of(n.Allocated), Requested: d.Of(req),
		}
	}

	next := Reservation{Request: req, Annotations: cloneMap(annotations), CreatedAt: now.UTC()}
	if exists {
		next.CreatedAt = old.CreatedAt
		next.Consumers = cloneMap(old.Consumers)
	}
	if _, err := encodeReservation(name, next); err != nil {
		// Refuse now what Encode would refuse later, after the caller
		// believed the change was made.
		return fmt.Errorf("reservation %q: %w", name, err)
	}
	return l.put(n.Name, name, next, old, exists)
}

// put stores r under name, undoing it if the ledger would then be too big
// for its Nomad Variable.
func (l *Ledger) put(nodeName, name string, r, old Reservation, existed bool) error {
	if l.Reservations == nil {
		l.Reservations = map[string]Reservation{}
	}
	l.Reservations[name] = r
	if err := l.CheckSize(nodeName); err != nil {
		if existed {
			l.Reservations[name] = old
		} else {
			delete(l.Reservations, name)
		}
		return err
	}
	return nil
}

// Release removes the reservation name, reporting whether it was there.
// Whether a reservation with consumers may go is the caller's policy; the
// consumers' keys leave ConsumerKeys with it.
func (l *Ledger) Release(name string) bool {
	if _, ok := l.Reservations[name]; !ok {
		return false
	}
	delete(l.Reservations, name)
	return true
}

// Charge sets what consumer is charged against reservation to amount,
// replacing any previous charge, so charging the same amount again (for
// example after a resize or a retried write) changes nothing. It fails with
// *MissingReservationError when the reservation is absent and *BudgetError
// when amount does not fit in the reservation's request minus what the other
// consumers use (exact fit allowed). On error the ledger is unchanged.
func (l *Ledger) Charge(reservation, consumer string, amount capacity.Resources) error {
	if consumer == "" {
		return errors.New("a consumer needs a key")
	}
	if d, ok := negative(amount); ok {
		return fmt.Errorf("%s: the %s charge cannot be negative (got %d)", consumer, d, d.Of(amount))
	}
	r, ok := l.Reservations[reservation]
	if !ok {
		return &MissingReservationError{NodeID: l.NodeID, Reservation: reservation}
	}
	prev := r.Consumers[consumer]
	othersUsed := r.Used().Sub(prev)
	if d, short := firstShort(r.Request.Sub(othersUsed), prev, amount); short {
		return &BudgetError{
			Reservation: reservation, Consumer: consumer, Dimension: d,
			Budget: d.Of(r.Request), Used: d.Of(othersUsed), Requested: d.Of(amount),
		}
	}
	next := r.clone()
	if next.Consumers == nil {
		next.Consumers = map[string]capacity.Resources{}
	}
	next.Consumers[consumer] = amount
	return l.put("", reservation, next, r, true)
}

// Uncharge removes consumer from reservation, reporting whether it was
// charged there.
func (l *Ledger) Uncharge(reservation, consumer string) bool {
	r, ok := l.Reservations[reservation]
	if !ok {
		return false
	}
	if _, ok := r.Consumers[consumer]; !ok {
		return false
	}
	next := r.clone()
	delete(next.Consumers, consumer)
	next.Consumers = cloneMap(next.Consumers)
	l.Reservations[reservation] = next
	return true
}
