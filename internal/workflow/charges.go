// Package workflow holds berth's multi-step writes to Nomad, between the
// Terraform layer (internal/provider, which converts models and maps
// outcomes to diagnostics) and nomadclient (single calls, retries, waits).
// A workflow takes berth's domain values, runs its steps and their undo
// steps, and returns what the user should be told (warnings) and typed
// errors. No Nomad API type reaches it.
package workflow

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/berthhq/terraform-provider-berth/internal/capacity"
	"github.com/berthhq/terraform-provider-berth/internal/nomadclient"
)

// Warning is something a workflow tells the user without failing.
type Warning struct{ Summary, Detail string }

// Ledger is what charging work to node reservations needs of Nomad;
// *nomadclient.Client has it.
type Ledger interface {
	Charge(ctx context.Context, ns, reservationID, consumer string, amount capacity.Resources) error
	Uncharge(ctx context.Context, ns, reservationID, consumer string) error
	SyncHold(ctx context.Context, ns, nodeID, name string) (nomadclient.HoldState, error)
	WaitHoldPlaced(ctx context.Context, ns, nodeID, name string) (string, error)
}

// Charges charges instances, volumes and leases (consumers) to node
// reservations in the ledger in Namespace, and keeps each reservation's
// hold job, which keeps its unused budget in Nomad's scheduler, in line.
// The charge is what counts: trouble with a hold is a warning, and the
// reservation's next apply repairs it.
type Charges struct {
	Nomad     Ledger
	Namespace string
}

// ChargeAndHold charges consumer amount on the reservation (ID
// `<node>/<name>`) and then shrinks its hold by as much, so the consumer,
// registered next, fits in Nomad's scheduler exactly where the hold was.
// A refused charge (budget, missing reservation, ledger contention) is the
// error, and nothing changed.
func (c Charges) ChargeAndHold(ctx context.Context, reservation, consumer string, amount capacity.Resources) ([]Warning, error) {
	if err := c.Nomad.Charge(ctx, c.Namespace, reservation, consumer, amount); err != nil {
		return nil, err
	}
	return c.SyncHold(ctx, reservation), nil
}

// Release releases what consumer is charged on the reservation and grows
// its hold back. The error is the release's: then nothing changed.
func (c Charges) Release(ctx context.Context, reservation, consumer string) ([]Warning, error) {
	if err := c.Nomad.Uncharge(ctx, c.Namespace, reservation, consumer); err != nil {
		return nil, err
	}
	return c.SyncHold(ctx, reservation), nil
}

// HandBack removes a consumer (remove stops its job) and gives its
// capacity back to the reservation's hold without a gap another job could
// slip into: the charge is released and the hold grown first, which Nomad
// cannot place yet, so it keeps the old hold and blocks the new one on the
// consumer's room; when remove frees it, the hold's evaluation is
// unblocked together with any other job waiting for that node, and its
// priority puts it first in Nomad's queue. releaseErr is the release's
// error (remove still runs; the next write of the consumer or the
// reservation puts the ledger right); removeErr is remove's.
func (c Charges) HandBack(ctx context.Context, reservation, consumer string, remove func(context.Context) error) (
	warnings []Warning, releaseErr, removeErr error) {
	nodeID, name, err := nomadclient.ParseNodeReservationID(reservation)
	if err != nil {
		return nil, nil, remove(ctx)
	}
	if err := c.Nomad.Uncharge(ctx, c.Namespace, reservation, consumer); err != nil {
		return nil, err, remove(ctx)
	}
	st, syncErr := c.Nomad.SyncHold(ctx, c.Namespace, nodeID, name)
	if err := remove(ctx); err != nil {
		return nil, nil, err
	}
	if syncErr != nil {
		// The hold could not grow while the consumer held the room: a warning,
		// and one more try now that the consumer is gone.
		return c.SyncHold(ctx, reservation), nil, nil //nolint:nilerr // see above
	}
	return c.WaitHandedBack(ctx, reservation, st), nil, nil
}

// ReleaseOf releases what consumer (an instance, volume or lease, named by
// kind) is charged on the reservation ("" none) and grows its hold back.
// A failure is a *ReleaseError.
func (c Charges) ReleaseOf(ctx context.Context, reservation, kind, consumer string) ([]Warning, error) {
	if reservation == "" {
		return nil, nil
	}
	ws, err := c.Release(ctx, reservation, consumer)
	if err != nil {
		return nil, &ReleaseError{"Could not release the " + kind + "'s charge on its node reservation", err}
	}
	return ws, nil
}

// Remove removes a consumer (kind names it in errors) with remove, and
// when it is placed into a node reservation ("" none) hands its room back
// without a gap (HandBack). A release that fails is a problem beside the
// removal; the error is remove's.
func (c Charges) Remove(ctx context.Context, reservation, kind, consumer string, remove func(context.Context) error) (
	[]Warning, []error, error) {
	if reservation == "" {
		return nil, nil, remove(ctx)
	}
	warnings, releaseErr, removeErr := c.HandBack(ctx, reservation, consumer, remove)
	var problems []error
	if releaseErr != nil {
		problems = append(problems, &ReleaseError{"Could not release the " + kind + "'s charge on its node reservation", releaseErr})
	}
	return warnings, problems, removeErr
}

// ReleaseForMove releases the charge of consumer (an instance, volume or
// lease, named by kind in the warning) on the reservation it leaves and
// grows that reservation's hold. It returns the hold to wait for once
// the consumer has moved (nil when the hold could not be written: a
// warning) and the release's error, in which case nothing has moved.
func (c Charges) ReleaseForMove(ctx context.Context, reservation, kind, consumer string) (*nomadclient.HoldState, []Warning, error) {
	if err := c.Nomad.Uncharge(ctx, c.Namespace, reservation, consumer); err != nil {
		return nil, nil, err
	}
	nodeID, name, err := nomadclient.ParseNodeReservationID(reservation)
	if err != nil {
		return nil, nil, nil //nolint:nilerr // the charge itself would have failed on this ID
	}
	st, err := c.Nomad.SyncHold(ctx, c.Namespace, nodeID, name)
	if err != nil {
		return nil, []Warning{{"Node reservation hold not updated",
			fmt.Sprintf("berth released the %s's charge on node reservation %s but could not grow its hold job %q in "+
				"Nomad's scheduler: %v. Until it is, Nomad may place other work into that capacity. The reservation's next "+
				"terraform apply repairs the hold.", kind, reservation, st.JobID, err)}}, nil
	}
	return &st, nil, nil
}

// WaitHandedBack waits for a grown hold (st, as SyncHold left it) to be
// placed in the room its consumer left, and warns when someone else took
// it first.
func (c Charges) WaitHandedBack(ctx context.Context, reservation string, st nomadclient.HoldState) []Warning {
	nodeID, name, _ := nomadclient.ParseNodeReservationID(reservation)
	why, err := c.Nomad.WaitHoldPlaced(ctx, c.Namespace, nodeID, name)
	// What SyncHold saw (blocked on the consumer's room) is over: a hold
	// still not placed now is kept out by someone else.
	st.NotPlaced, st.Grew = why, false
	if err != nil {
		tflog.Warn(ctx, "Could not confirm the node reservation hold was placed", map[string]any{"job": st.JobID, "error": err.Error()})
	}
	return HoldWarnings(ctx, reservation, st)
}

// SyncHold brings the reservation's hold in line with its ledger after a
// charge changed, and says what the user should know about it.
func (c Charges) SyncHold(ctx context.Context, reservation string) []Warning {
	nodeID, name, err := nomadclient.ParseNodeReservationID(reservation)
	if err != nil {
		return nil // the charge itself already failed on this ID
	}
	st, err := c.Nomad.SyncHold(ctx, c.Namespace, nodeID, name)
	if err != nil {
		return []Warning{{"Node reservation hold not updated",
			fmt.Sprintf("berth recorded the charge on node reservation %s but could not resize its hold job %q in Nomad's "+
				"scheduler: %v. Until it is, Nomad may place other work into (or keep work out of) that capacity. "+
				"The reservation's next terraform apply repairs the hold.", reservation, st.JobID, err)}}
	}
	return HoldWarnings(ctx, reservation, st)
}

// HoldWarnings warns about a hold the scheduler could not place and about
// an unused budget too small for Nomad to hold.
func HoldWarnings(ctx context.Context, reservation string, st nomadclient.HoldState) []Warning {
	tflog.Debug(ctx, "Node reservation hold in line with the ledger", map[string]any{
		"reservation": reservation, "job": st.JobID, "held": st.Held.String(), "unheld": st.Unheld.String(),
	})
	var out []Warning
	if st.NotPlaced != "" && st.Grew {
		tflog.Debug(ctx, "The grown hold waits for its consumer's room", map[string]any{"job": st.JobID, "reason": st.NotPlaced})
	}
	if st.NotPlaced != "" && !st.Grew {
		out = append(out, Warning{"Node reservation hold not placed",
			fmt.Sprintf("Nomad could not place hold job %q of node reservation %s: %s. Other work already uses that capacity "+
				"on the node, so it is not held until that work ends; Nomad places the hold as soon as there is room. "+
				"See `nomad job status %s`.", st.JobID, reservation, st.NotPlaced, st.JobID)})
	}
	if !st.Unheld.IsZero() {
		out = append(out, Warning{"Part of a node reservation is not held",
			fmt.Sprintf("Node reservation %s has %s unused, which is below the smallest task Nomad can run "+
				"(1 MHz cpu and 10 MiB memory), so no hold job keeps it from other work. Shrink the reservation to what its "+
				"consumers use, or leave it: consumers placed into it are still charged correctly.", reservation, st.Unheld)})
	}
	return out
}
