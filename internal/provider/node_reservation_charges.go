package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/berthhq/terraform-provider-berth/internal/capacity"
	"github.com/berthhq/terraform-provider-berth/internal/nomadclient"
	"github.com/berthhq/terraform-provider-berth/internal/workflow"
)

// The charges of instances, volumes and leases on node reservations and
// the reservations' holds: workflow.Charges does the work, these map its
// warnings and errors to diagnostics.

func charges(data *ProviderData) workflow.Charges {
	return workflow.Charges{Nomad: data.Nomad, Namespace: data.LedgerNamespace}
}

// addWarnings adds a workflow's warnings to diags.
func addWarnings(diags *diag.Diagnostics, warnings []workflow.Warning) {
	for _, w := range warnings {
		diags.AddWarning(w.Summary, w.Detail)
	}
}

// chargeAndHold charges consumer on the node reservation and shrinks its
// hold by as much (workflow.Charges.ChargeAndHold); the error is the
// refused charge's, for addChargeError.
func chargeAndHold(ctx context.Context, data *ProviderData, reservation, consumer string, amount capacity.Resources, diags *diag.Diagnostics) error {
	warnings, err := charges(data).ChargeAndHold(ctx, reservation, consumer, amount)
	addWarnings(diags, warnings)
	return err
}

// releaseCharge releases what consumer (an instance, volume or lease, named
// by kind in the error) is charged on the node reservation in reservation,
// if it is placed into one, and grows the reservation's hold back.
func releaseCharge(ctx context.Context, data *ProviderData, reservation types.String, kind, consumer string, diags *diag.Diagnostics) {
	if reservation.IsNull() || reservation.IsUnknown() {
		return
	}
	warnings, err := charges(data).Release(ctx, reservation.ValueString(), consumer)
	if err != nil {
		addNodeReservationError(diags, "Could not release the "+kind+"'s charge on its node reservation", err)
		return
	}
	addWarnings(diags, warnings)
}

// handBack removes a consumer placed into a node reservation (remove stops
// its job) and gives its capacity back to the reservation's hold without a
// gap (workflow.Charges.HandBack). It returns remove's error.
func handBack(ctx context.Context, data *ProviderData, reservation types.String, kind, consumer string,
	remove func(context.Context) error, diags *diag.Diagnostics) error {
	if reservation.IsNull() || reservation.IsUnknown() {
		return remove(ctx)
	}
	warnings, releaseErr, removeErr := charges(data).HandBack(ctx, reservation.ValueString(), consumer, remove)
	if releaseErr != nil {
		addNodeReservationError(diags, "Could not release the "+kind+"'s charge on its node reservation", releaseErr)
	}
	addWarnings(diags, warnings)
	return removeErr
}

// waitHandedBack waits for the grown hold to be placed in the room its
// consumer left, and warns when someone else took it first.
func waitHandedBack(ctx context.Context, data *ProviderData, res string, st nomadclient.HoldState, diags *diag.Diagnostics) {
	addWarnings(diags, charges(data).WaitHandedBack(ctx, res, st))
}

// reportHold warns about a hold the scheduler could not place and about
// an unused budget too small for Nomad to hold.
func reportHold(ctx context.Context, reservation string, st nomadclient.HoldState, diags *diag.Diagnostics) {
	addWarnings(diags, workflow.HoldWarnings(ctx, reservation, st))
}
