package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/berthhq/terraform-provider-berth/internal/capacity"
	"github.com/berthhq/terraform-provider-berth/internal/nomadclient"
)

// chargeAndHold charges consumer on the node reservation and then shrinks
// the reservation's hold by as much, so the consumer, registered next, fits
// in Nomad's scheduler exactly where the hold was.
func chargeAndHold(ctx context.Context, data *ProviderData, reservation, consumer string, amount capacity.Resources, diags *diag.Diagnostics) error {
	if err := data.Nomad.Charge(ctx, data.LedgerNamespace, reservation, consumer, amount); err != nil {
		return err
	}
	syncHold(ctx, data, reservation, diags)
	return nil
}

// releaseCharge releases what consumer (an instance, volume or lease, named
// by kind in the error) is charged on the node reservation in reservation,
// if it is placed into one, and grows the reservation's hold back.
func releaseCharge(ctx context.Context, data *ProviderData, reservation types.String, kind, consumer string, diags *diag.Diagnostics) {
	if reservation.IsNull() || reservation.IsUnknown() {
		return
	}
	if err := data.Nomad.Uncharge(ctx, data.LedgerNamespace, reservation.ValueString(), consumer); err != nil {
		addNodeReservationError(diags, "Could not release the "+kind+"'s charge on its node reservation", err)
		return
	}
	syncHold(ctx, data, reservation.ValueString(), diags)
}

// handBack removes a consumer placed into a node reservation (remove stops
// its job) and gives its capacity back to the reservation's hold without a
// gap another job could slip into: the charge is released and the hold
// grown first, which Nomad cannot place yet, so it keeps the old hold and
// blocks the new one on the consumer's room; when remove frees it, the
// hold's evaluation is unblocked together with any other job waiting for
// that node, and its priority puts it first in Nomad's queue. It returns
// remove's error; the charge then stays released, and the next write of
// the consumer (or of the node reservation) puts the ledger right.
func handBack(ctx context.Context, data *ProviderData, reservation types.String, kind, consumer string,
	remove func(context.Context) error, diags *diag.Diagnostics) error {
	if reservation.IsNull() || reservation.IsUnknown() {
		return remove(ctx)
	}
	res := reservation.ValueString()
	nodeID, name, err := nomadclient.ParseNodeReservationID(res)
	if err != nil {
		return remove(ctx)
	}
	if err := data.Nomad.Uncharge(ctx, data.LedgerNamespace, res, consumer); err != nil {
		addNodeReservationError(diags, "Could not release the "+kind+"'s charge on its node reservation", err)
		return remove(ctx)
	}
	st, syncErr := data.Nomad.SyncHold(ctx, data.LedgerNamespace, nodeID, name)
	if err := remove(ctx); err != nil {
		return err
	}
	if syncErr == nil {
		waitHandedBack(ctx, data, res, st, diags)
	} else {
		syncHold(ctx, data, res, diags) // the consumer is gone now: try again
	}
	return nil
}

// waitHandedBack waits for the grown hold to be placed in the room its
// consumer left, and warns when someone else took it first.
func waitHandedBack(ctx context.Context, data *ProviderData, res string, st nomadclient.HoldState, diags *diag.Diagnostics) {
	nodeID, name, _ := nomadclient.ParseNodeReservationID(res)
	why, err := data.Nomad.WaitHoldPlaced(ctx, data.LedgerNamespace, nodeID, name)
	// What SyncHold saw (blocked on the consumer's room) is over: a hold
	// still not placed now is kept out by someone else.
	st.NotPlaced, st.Grew = why, false
	if err != nil {
		tflog.Warn(ctx, "Could not confirm the node reservation hold was placed", map[string]any{"job": st.JobID, "error": err.Error()})
	}
	reportHold(ctx, res, st, diags)
}

// syncHold brings the hold of the node reservation (ID `<node>/<name>`) in
// line with its ledger after a consumer's charge changed. The charge is
// what counts, so trouble with the hold is a warning: the consumer's own
// write goes ahead, and the node reservation's next plan repairs the hold.
func syncHold(ctx context.Context, data *ProviderData, reservation string, diags *diag.Diagnostics) {
	nodeID, name, err := nomadclient.ParseNodeReservationID(reservation)
	if err != nil {
		return // the charge itself already failed on this ID
	}
	st, err := data.Nomad.SyncHold(ctx, data.LedgerNamespace, nodeID, name)
	if err != nil {
		diags.AddWarning("Node reservation hold not updated",
			fmt.Sprintf("berth recorded the charge on node reservation %s but could not resize its hold job %q in Nomad's "+
				"scheduler: %v. Until it is, Nomad may place other work into (or keep work out of) that capacity. "+
				"The reservation's next terraform apply repairs the hold.", reservation, st.JobID, err))
		return
	}
	reportHold(ctx, reservation, st, diags)
}

// reportHold warns about a hold the scheduler could not place and about
// an unused budget too small for Nomad to hold.
func reportHold(ctx context.Context, reservation string, st nomadclient.HoldState, diags *diag.Diagnostics) {
	tflog.Debug(ctx, "Node reservation hold in line with the ledger", map[string]any{
		"reservation": reservation, "job": st.JobID, "held": st.Held.String(), "unheld": st.Unheld.String(),
	})
	if st.NotPlaced != "" && st.Grew {
		tflog.Debug(ctx, "The grown hold waits for its consumer's room", map[string]any{"job": st.JobID, "reason": st.NotPlaced})
	}
	if st.NotPlaced != "" && !st.Grew {
		diags.AddWarning("Node reservation hold not placed",
			fmt.Sprintf("Nomad could not place hold job %q of node reservation %s: %s. Other work already uses that capacity "+
				"on the node, so it is not held until that work ends; Nomad places the hold as soon as there is room. "+
				"See `nomad job status %s`.", st.JobID, reservation, st.NotPlaced, st.JobID))
	}
	if !st.Unheld.IsZero() {
		diags.AddWarning("Part of a node reservation is not held",
			fmt.Sprintf("Node reservation %s has %s unused, which is below the smallest task Nomad can run "+
				"(1 MHz cpu and 10 MiB memory), so no hold job keeps it from other work. Shrink the reservation to what its "+
				"consumers use, or leave it: consumers placed into it are still charged correctly.", reservation, st.Unheld))
	}
}
