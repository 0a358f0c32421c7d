package workflow

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/berthhq/terraform-provider-berth/internal/capacity"
	"github.com/berthhq/terraform-provider-berth/internal/ledger"
	"github.com/berthhq/terraform-provider-berth/internal/nomadclient"
)

// fakeNodeLedgers stands in for Nomad behind the node reservation
// workflow: two ready nodes, "big" and "small"; reserveErrs are what
// successive ReserveOn calls return.
type fakeNodeLedgers struct {
	steps       []string
	reserveErrs []error
	fail        map[string]error
	hold        nomadclient.HoldState
}

func (f *fakeNodeLedgers) step(s string) error {
	f.steps = append(f.steps, s)
	return f.fail[strings.Fields(s)[0]]
}

func (f *fakeNodeLedgers) SyncHold(_ context.Context, _, nodeID, name string) (nomadclient.HoldState, error) {
	st := f.hold
	st.JobID = "berth-hold-" + nodeID + "-" + name
	return st, f.step("sync " + nodeID)
}

func (f *fakeNodeLedgers) NodeCandidates(context.Context, string, nomadclient.Placement) ([]ledger.Candidate, error) {
	if err := f.step("candidates"); err != nil {
		return nil, err
	}
	node := func(id string, cpu int64) ledger.Candidate {
		return ledger.Candidate{Node: ledger.NodeState{ID: id, Name: id, Allocatable: capacity.Resources{CPU: cpu, MemoryMB: 4096, DiskMB: 4096}},
			Ledger: ledger.Ledger{NodeID: id, Reservations: map[string]ledger.Reservation{}}, Status: "ready", Eligible: true}
	}
	return []ledger.Candidate{node("big", 8000), node("small", 2000)}, nil
}

func (f *fakeNodeLedgers) ReserveOn(_ context.Context, _, nodeID string, _ nomadclient.NodeReservationRequest) error {
	f.steps = append(f.steps, "reserve "+nodeID)
	if len(f.reserveErrs) == 0 {
		return nil
	}
	err := f.reserveErrs[0]
	f.reserveErrs = f.reserveErrs[1:]
	return err
}

func (f *fakeNodeLedgers) ReleaseNodeReservation(_ context.Context, _, nodeID, name string, _ time.Time) error {
	return f.step("release " + nodeID)
}

func TestNodeReservationWrites(t *testing.T) {
	taken := &ledger.NotEnoughError{NodeID: "small", Dimension: capacity.CPU}
	lost := &nomadclient.UncertainWriteError{Err: errNomad}
	scheduled := nomadclient.NodeReservationRequest{Name: "db", Request: capacity.Resources{CPU: 1000}, Create: true,
		Placement: nomadclient.Placement{Strategy: ledger.Binpack}}
	pinned := scheduled
	pinned.NodeID = "big"
	cases := map[string]struct {
		nomad   fakeNodeLedgers
		run     func(NodeReservations) (NodeReservationOutcome, error)
		steps   []string
		err     string
		out     NodeReservationOutcome
		warning []string
	}{
		"scheduled (binpack) and held": {run: func(w NodeReservations) (NodeReservationOutcome, error) {
			return w.Create(context.Background(), scheduled)
		}, steps: []string{"candidates", "reserve small", "sync small"}, out: NodeReservationOutcome{NodeID: "small", Reserved: true}},
		"pinned: no scheduling": {run: func(w NodeReservations) (NodeReservationOutcome, error) {
			return w.Create(context.Background(), pinned)
		}, steps: []string{"reserve big", "sync big"}, out: NodeReservationOutcome{NodeID: "big", Reserved: true}},
		"room taken first: chosen again": {nomad: fakeNodeLedgers{reserveErrs: []error{taken}},
			run: func(w NodeReservations) (NodeReservationOutcome, error) {
				return w.Create(context.Background(), scheduled)
			},
			steps: []string{"candidates", "reserve small", "candidates", "reserve small", "sync small"},
			out:   NodeReservationOutcome{NodeID: "small", Reserved: true}},
		"room taken every round: refused": {nomad: fakeNodeLedgers{reserveErrs: []error{taken, taken, taken, taken, taken}},
			run: func(w NodeReservations) (NodeReservationOutcome, error) {
				return w.Create(context.Background(), scheduled)
			},
			steps: []string{"candidates", "reserve small", "candidates", "reserve small", "candidates", "reserve small",
				"candidates", "reserve small", "candidates", "reserve small"},
			err: "*workflow.ReserveError"},
		"node list fails": {nomad: fakeNodeLedgers{fail: map[string]error{"candidates": errNomad}},
			run: func(w NodeReservations) (NodeReservationOutcome, error) {
				return w.Create(context.Background(), scheduled)
			},
			steps: []string{"candidates"}, err: "*workflow.ReserveError"},
		"answer lost: unsettled on its node": {nomad: fakeNodeLedgers{reserveErrs: []error{lost}},
			run: func(w NodeReservations) (NodeReservationOutcome, error) {
				return w.Create(context.Background(), pinned)
			},
			steps: []string{"reserve big"}, err: "*workflow.ReserveError", out: NodeReservationOutcome{NodeID: "big", Unsettled: true}},
		"refused on its node: nothing to record": {nomad: fakeNodeLedgers{reserveErrs: []error{taken}},
			run: func(w NodeReservations) (NodeReservationOutcome, error) {
				return w.Create(context.Background(), pinned)
			},
			steps: []string{"reserve big"}, err: "*workflow.ReserveError", out: NodeReservationOutcome{NodeID: "big"}},
		"hold fails: reserved all the same": {nomad: fakeNodeLedgers{fail: map[string]error{"sync": errNomad}},
			run: func(w NodeReservations) (NodeReservationOutcome, error) {
				return w.Create(context.Background(), pinned)
			},
			steps: []string{"reserve big", "sync big"}, err: "*workflow.HoldError", out: NodeReservationOutcome{NodeID: "big", Reserved: true}},
		"hold not placed: a warning": {nomad: fakeNodeLedgers{hold: nomadclient.HoldState{NotPlaced: "no room"}},
			run: func(w NodeReservations) (NodeReservationOutcome, error) {
				return w.Create(context.Background(), pinned)
			},
			steps: []string{"reserve big", "sync big"}, out: NodeReservationOutcome{NodeID: "big", Reserved: true},
			warning: []string{"Node reservation hold not placed"}},
		"resized and held": {run: func(w NodeReservations) (NodeReservationOutcome, error) {
			return w.Update(context.Background(), pinned, true)
		}, steps: []string{"reserve big", "sync big"}, out: NodeReservationOutcome{NodeID: "big", Reserved: true}},
		"hold repaired only": {run: func(w NodeReservations) (NodeReservationOutcome, error) {
			return w.Update(context.Background(), pinned, false)
		}, steps: []string{"sync big"}, out: NodeReservationOutcome{NodeID: "big", Reserved: true}},
		"resize refused: unsettled, no hold change": {nomad: fakeNodeLedgers{reserveErrs: []error{taken}},
			run: func(w NodeReservations) (NodeReservationOutcome, error) {
				return w.Update(context.Background(), pinned, true)
			},
			steps: []string{"reserve big"}, err: "*workflow.ReserveError", out: NodeReservationOutcome{NodeID: "big", Unsettled: true}},
		"released, then the hold removed": {run: func(w NodeReservations) (NodeReservationOutcome, error) {
			return NodeReservationOutcome{}, w.Delete(context.Background(), "big", "db", time.Time{})
		}, steps: []string{"release big", "sync big"}},
		"release refused (work charged): the hold stays": {nomad: fakeNodeLedgers{fail: map[string]error{"release": errNomad}},
			run: func(w NodeReservations) (NodeReservationOutcome, error) {
				return NodeReservationOutcome{}, w.Delete(context.Background(), "big", "db", time.Time{})
			}, steps: []string{"release big"}, err: "*workflow.ReserveError"},
		"hold left behind after the release": {nomad: fakeNodeLedgers{fail: map[string]error{"sync": errNomad}},
			run: func(w NodeReservations) (NodeReservationOutcome, error) {
				return NodeReservationOutcome{}, w.Delete(context.Background(), "big", "db", time.Time{})
			}, steps: []string{"release big", "sync big"}, err: "*workflow.HoldError"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			f := tc.nomad
			out, err := tc.run(NodeReservations{Nomad: &f, Namespace: "berth"})
			wantRun{steps: tc.steps, err: tc.err}.check(t, f.steps, err, nil)
			got := out
			got.Warnings = nil
			if fmt.Sprint(got) != fmt.Sprint(tc.out) {
				t.Errorf("outcome %+v, want %+v", got, tc.out)
			}
			if ws := summaries(out.Warnings); strings.Join(ws, ",") != strings.Join(tc.warning, ",") {
				t.Errorf("warnings %v, want %v", ws, tc.warning)
			}
		})
	}
}
