package workflow

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/berthhq/terraform-provider-berth/internal/capacity"
	"github.com/berthhq/terraform-provider-berth/internal/nomadclient"
)

const (
	testReservation = "0b1c2d3e-0000-4000-8000-000000000001/db"
	testConsumer    = "instance:default/web"
)

// fakeLedger records the steps a workflow takes and fails the ones told to.
type fakeLedger struct {
	steps                []string
	chargeErr, unchgErr  error
	syncErr, waitErr     error
	syncState            nomadclient.HoldState
	waitNotPlaced        string
	chargedAmount        capacity.Resources
	syncFailsOnlyOnce    bool
	syncCalls, waitCalls int
	// failCharge fails only that call of Charge (1 is the first).
	failCharge, chargeCalls int
}

func (f *fakeLedger) Charge(_ context.Context, ns, res, consumer string, amount capacity.Resources) error {
	f.steps = append(f.steps, "charge")
	f.chargedAmount = amount
	if f.chargeCalls++; f.chargeCalls == f.failCharge {
		return errNomad
	}
	return f.chargeErr
}

func (f *fakeLedger) Uncharge(_ context.Context, ns, res, consumer string) error {
	f.steps = append(f.steps, "uncharge")
	return f.unchgErr
}

func (f *fakeLedger) SyncHold(_ context.Context, ns, nodeID, name string) (nomadclient.HoldState, error) {
	f.steps = append(f.steps, "sync")
	f.syncCalls++
	st := f.syncState
	st.JobID = "berth-hold-" + nodeID[:8] + "-" + name
	if f.syncErr != nil && (!f.syncFailsOnlyOnce || f.syncCalls == 1) {
		return st, f.syncErr
	}
	return st, nil
}

func (f *fakeLedger) WaitHoldPlaced(_ context.Context, ns, nodeID, name string) (string, error) {
	f.steps = append(f.steps, "wait")
	f.waitCalls++
	return f.waitNotPlaced, f.waitErr
}

func summaries(ws []Warning) []string {
	var out []string
	for _, w := range ws {
		out = append(out, w.Summary)
	}
	return out
}

var errNomad = errors.New("nomad said no")

func TestChargeAndHold(t *testing.T) {
	cases := map[string]struct {
		ledger   fakeLedger
		steps    []string
		warnings []string
		err      bool
	}{
		"charged and held":      {steps: []string{"charge", "sync"}},
		"refused: nothing else": {ledger: fakeLedger{chargeErr: errNomad}, steps: []string{"charge"}, err: true},
		"hold not updated: a warning, the charge stands": {ledger: fakeLedger{syncErr: errNomad},
			steps: []string{"charge", "sync"}, warnings: []string{"Node reservation hold not updated"}},
		"hold not placed": {ledger: fakeLedger{syncState: nomadclient.HoldState{NotPlaced: "no room"}},
			steps: []string{"charge", "sync"}, warnings: []string{"Node reservation hold not placed"}},
		"grown hold waiting for room is no warning": {ledger: fakeLedger{syncState: nomadclient.HoldState{NotPlaced: "no room", Grew: true}},
			steps: []string{"charge", "sync"}},
		"budget too small to hold": {ledger: fakeLedger{syncState: nomadclient.HoldState{Unheld: capacity.Resources{CPU: 1}}},
			steps: []string{"charge", "sync"}, warnings: []string{"Part of a node reservation is not held"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			f := tc.ledger
			ws, err := Charges{Nomad: &f, Namespace: "berth"}.ChargeAndHold(context.Background(), testReservation, testConsumer,
				capacity.Resources{CPU: 100})
			if (err != nil) != tc.err || !slices.Equal(f.steps, tc.steps) || !slices.Equal(summaries(ws), tc.warnings) {
				t.Fatalf("err %v, steps %v, warnings %v; want err %v, steps %v, warnings %v", err, f.steps, summaries(ws), tc.err, tc.steps, tc.warnings)
			}
			if !tc.err && f.chargedAmount.CPU != 100 {
				t.Fatalf("charged %+v", f.chargedAmount)
			}
		})
	}
}

func TestRelease(t *testing.T) {
	f := fakeLedger{unchgErr: errNomad}
	if _, err := (Charges{Nomad: &f}).Release(context.Background(), testReservation, testConsumer); err == nil ||
		!slices.Equal(f.steps, []string{"uncharge"}) {
		t.Fatalf("a refused release: err %v, steps %v; want the error and no hold change", err, f.steps)
	}
	f = fakeLedger{}
	if ws, err := (Charges{Nomad: &f}).Release(context.Background(), testReservation, testConsumer); err != nil || ws != nil ||
		!slices.Equal(f.steps, []string{"uncharge", "sync"}) {
		t.Fatalf("release: err %v, warnings %v, steps %v", err, ws, f.steps)
	}
}

func TestHandBack(t *testing.T) {
	cases := map[string]struct {
		ledger              fakeLedger
		removeErr           error
		steps               []string
		warnings            []string
		releaseErr, remvErr bool
	}{
		// The hold grows before the consumer goes, then its placement in
		// the room left is awaited.
		"handed back": {steps: []string{"uncharge", "sync", "remove", "wait"}},
		"someone else took the room": {ledger: fakeLedger{waitNotPlaced: "no room"},
			steps: []string{"uncharge", "sync", "remove", "wait"}, warnings: []string{"Node reservation hold not placed"}},
		// A failed release still removes the consumer; the ledger is put
		// right by the next write.
		"release refused":                {ledger: fakeLedger{unchgErr: errNomad}, steps: []string{"uncharge", "remove"}, releaseErr: true},
		"remove failed: nothing awaited": {removeErr: errNomad, steps: []string{"uncharge", "sync", "remove"}, remvErr: true},
		// The hold could not grow while the consumer held the room: tried
		// again once it is gone.
		"hold retried after the remove": {ledger: fakeLedger{syncErr: errNomad, syncFailsOnlyOnce: true},
			steps: []string{"uncharge", "sync", "remove", "sync"}},
		"hold still not updated": {ledger: fakeLedger{syncErr: errNomad},
			steps: []string{"uncharge", "sync", "remove", "sync"}, warnings: []string{"Node reservation hold not updated"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			f := tc.ledger
			remove := func(context.Context) error {
				f.steps = append(f.steps, "remove")
				return tc.removeErr
			}
			ws, releaseErr, removeErr := Charges{Nomad: &f}.HandBack(context.Background(), testReservation, testConsumer, remove)
			if (releaseErr != nil) != tc.releaseErr || (removeErr != nil) != tc.remvErr ||
				!slices.Equal(f.steps, tc.steps) || !slices.Equal(summaries(ws), tc.warnings) {
				t.Fatalf("release %v, remove %v, steps %v, warnings %v; want steps %v, warnings %v",
					releaseErr, removeErr, f.steps, summaries(ws), tc.steps, tc.warnings)
			}
		})
	}
}

func TestReleaseForMove(t *testing.T) {
	f := fakeLedger{unchgErr: errNomad}
	if st, _, err := (Charges{Nomad: &f}).ReleaseForMove(context.Background(), testReservation, "instance", testConsumer); err == nil || st != nil {
		t.Fatalf("a refused release: hold %v, err %v; want nothing moved", st, err)
	}
	f = fakeLedger{syncErr: errNomad}
	st, ws, err := Charges{Nomad: &f}.ReleaseForMove(context.Background(), testReservation, "instance", testConsumer)
	if err != nil || st != nil || len(ws) != 1 || !strings.Contains(ws[0].Detail, "instance's charge") {
		t.Fatalf("hold not grown: hold %v, warnings %v, err %v; want a warning and nothing to wait for", st, ws, err)
	}
	f = fakeLedger{}
	if st, ws, err := (Charges{Nomad: &f}).ReleaseForMove(context.Background(), testReservation, "instance", testConsumer); err != nil ||
		st == nil || ws != nil {
		t.Fatalf("moved: hold %v, warnings %v, err %v", st, ws, err)
	}
}
