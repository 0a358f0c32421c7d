package workflow

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/berthhq/terraform-provider-berth/internal/ledger"
	"github.com/berthhq/terraform-provider-berth/internal/nomadclient"
)

// NodeReservationNomad is what berth_node_reservation's writes need of
// Nomad; *nomadclient.Client has it.
type NodeReservationNomad interface {
	SyncHold(ctx context.Context, ns, nodeID, name string) (nomadclient.HoldState, error)
	NodeCandidates(ctx context.Context, ns string, p nomadclient.Placement) ([]ledger.Candidate, error)
	ReserveOn(ctx context.Context, ns, nodeID string, req nomadclient.NodeReservationRequest) error
	ReleaseNodeReservation(ctx context.Context, ns, nodeID, name string, createdAt time.Time) error
}

// NodeReservations runs berth_node_reservation's writes: schedule and
// reserve in the node's ledger → hold the unused budget in Nomad's
// scheduler, and release → remove the hold.
//
// The hold's own sizing (nomadclient.SyncHold) stays below: it is one
// check-and-set operation over the ledger and the hold job (its rounds
// re-read both when another writer moved the ledger), like a ledger
// update, not a sequence with undo steps.
type NodeReservations struct {
	Nomad NodeReservationNomad
	// Namespace holds the ledgers and the hold jobs.
	Namespace string
}

// NodeReservationOutcome is what a node reservation write did.
type NodeReservationOutcome struct {
	// NodeID is the node the reservation is on ("" when none was chosen).
	NodeID string
	// Reserved: the ledger holds the reservation as asked, so state must
	// record it, even when its hold failed.
	Reserved bool
	// Unsettled: a ledger write failed in a way that may have happened
	// all the same; the caller records what the ledger holds now.
	Unsettled bool
	Warnings  []Warning
}

// ReserveError is a ledger write of the reservation that failed: refused
// (capacity, a name taken, contention) or lost (see
// nomadclient.OutcomeUnknown). Summary says which write.
type ReserveError struct {
	Summary string
	Err     error
}

func (e *ReserveError) Error() string { return e.Summary + ": " + e.Err.Error() }
func (e *ReserveError) Unwrap() error { return e.Err }

// HoldError: the hold job could not be brought in line with the ledger.
type HoldError struct {
	JobID string
	// Released: the reservation was released and its hold is left
	// behind; otherwise the reservation holds nothing against other work.
	Released bool
	Err      error
}

func (e *HoldError) Error() string { return fmt.Sprintf("hold job %q: %v", e.JobID, e.Err) }
func (e *HoldError) Unwrap() error { return e.Err }

// scheduleRounds bounds how often Reserve chooses a node again because
// another writer took the room of the one it chose.
const scheduleRounds = 5

// Reserve creates or resizes the reservation in its node's ledger, and
// returns the node. Without a node it schedules one (ledger.Pick over the
// nodes matching the placement); when someone took the chosen node's room
// first, it chooses again.
func (w NodeReservations) Reserve(ctx context.Context, req nomadclient.NodeReservationRequest) (string, error) {
	if req.NodeID != "" {
		return req.NodeID, w.Nomad.ReserveOn(ctx, w.Namespace, req.NodeID, req)
	}
	var lastErr error
	for round := 0; round < scheduleRounds; round++ {
		cands, err := w.Nomad.NodeCandidates(ctx, w.Namespace, req.Placement)
		if err != nil {
			return "", err
		}
		nodeID, err := ledger.Pick(cands, req.Request, req.Placement.Strategy)
		if err != nil {
			return "", err
		}
		err = w.Nomad.ReserveOn(ctx, w.Namespace, nodeID, req)
		var notEnough *ledger.NotEnoughError
		if errors.As(err, &notEnough) {
			lastErr = err // someone took the room first: choose again
			continue
		}
		return nodeID, err
	}
	return "", fmt.Errorf("could not place the reservation after %d rounds of scheduling: %w", scheduleRounds, lastErr)
}

// Create reserves (req.Create: a name taken by another configuration is
// refused) and holds the reservation. A hold that cannot be written is an
// error, but the reservation exists: the outcome says Reserved.
func (w NodeReservations) Create(ctx context.Context, req nomadclient.NodeReservationRequest) (NodeReservationOutcome, error) {
	var out NodeReservationOutcome
	nodeID, err := w.Reserve(ctx, req)
	out.NodeID = nodeID
	if err != nil {
		out.Unsettled = nodeID != "" && nomadclient.OutcomeUnknown(err) && !refusedOutright(err)
		return out, &ReserveError{"Could not reserve capacity", err}
	}
	tflog.Info(ctx, "Reserved node capacity", map[string]any{"node": nodeID, "name": req.Name})
	out.Reserved = true
	return out, w.hold(ctx, &out, nodeID, req.Name)
}

// Update resizes the reservation (when resize: its request or annotations
// changed) and brings its hold in line, which also repairs a hold changed
// or stopped outside berth.
func (w NodeReservations) Update(ctx context.Context, req nomadclient.NodeReservationRequest, resize bool) (NodeReservationOutcome, error) {
	out := NodeReservationOutcome{NodeID: req.NodeID}
	if resize {
		if _, err := w.Reserve(ctx, req); err != nil {
			// Whether or not the failed write landed, state must say what
			// the ledger holds now.
			out.Unsettled = true
			return out, &ReserveError{"Could not resize the reservation", err}
		}
	}
	out.Reserved = true
	return out, w.hold(ctx, &out, req.NodeID, req.Name)
}

// Delete releases the reservation (refused while work is charged to it;
// an item of that name made by another create, told by createdAt, is left
// alone) and then removes its hold job.
func (w NodeReservations) Delete(ctx context.Context, nodeID, name string, createdAt time.Time) error {
	if err := w.Nomad.ReleaseNodeReservation(ctx, w.Namespace, nodeID, name, createdAt); err != nil {
		return &ReserveError{"Could not release the reservation", err}
	}
	// With the ledger item gone, syncing removes the hold job.
	if st, err := w.Nomad.SyncHold(ctx, w.Namespace, nodeID, name); err != nil {
		return &HoldError{JobID: st.JobID, Released: true, Err: err}
	}
	return nil
}

// refusedOutright reports a reservation write refused before anything was
// sent (it does not fit, its name is taken, its node is unknown) or whose
// every check-and-set lost to another writer: nothing was written.
func refusedOutright(err error) bool {
	var (
		notEnough *ledger.NotEnoughError
		noCand    *ledger.NoCandidateError
		shrink    *ledger.ShrinkError
		tooLarge  *ledger.TooLargeError
		taken     *nomadclient.NodeReservationExistsError
		notFound  *nomadclient.NodeNotFoundError
	)
	return errors.As(err, &notEnough) || errors.As(err, &noCand) || errors.As(err, &shrink) || errors.As(err, &tooLarge) ||
		errors.As(err, &taken) || errors.As(err, &notFound) || errors.Is(err, nomadclient.ErrLedgerContention)
}

func (w NodeReservations) hold(ctx context.Context, out *NodeReservationOutcome, nodeID, name string) error {
	st, err := w.Nomad.SyncHold(ctx, w.Namespace, nodeID, name)
	if err != nil {
		return &HoldError{JobID: st.JobID, Err: err}
	}
	out.Warnings = append(out.Warnings, HoldWarnings(ctx, nodeID+"/"+name, st)...)
	return nil
}
