package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// releaseCharge releases what consumer (an instance, volume or lease, named
// by kind in the error) is charged on the node reservation in reservation,
// if it is placed into one.
func releaseCharge(ctx context.Context, data *ProviderData, reservation types.String, kind, consumer string, diags *diag.Diagnostics) {
	if reservation.IsNull() || reservation.IsUnknown() {
		return
	}
	if err := data.Nomad.Uncharge(ctx, data.LedgerNamespace, reservation.ValueString(), consumer); err != nil {
		addNomadError(diags, "Could not release the "+kind+"'s charge on its node reservation", err)
	}
}
