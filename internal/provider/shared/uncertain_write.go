package shared

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// A create whose write failed without a definite answer (the agent died or
// the connection broke after the request went out) may have been carried
// out by Nomad. Forgetting about it would orphan the object: the next apply
// would find "already exists" and never converge. Instead the resource is
// kept in state, which Terraform marks tainted because Create also reports
// the error; the next plan's refresh then finds the object (and replaces
// it) or drops it from state (and creates it).

// addUncertainWriteError reports a create whose outcome is unknown as one
// diagnostic that says what berth does about it.
func addUncertainWriteError(diags *diag.Diagnostics, summary, object string, err error) {
	var d diag.Diagnostics
	AddNomadError(&d, summary, err)
	diags.AddError(summary, d[0].Detail()+"\n\nNomad may have created the "+object+" before the connection broke. "+
		"berth keeps it in state as tainted: the next apply reads it back and replaces it, or creates it if it is not there.")
}

// addUncertainUpdateError reports an update whose outcome is unknown. The
// new charge on the node reservation is kept rather than rolled back: if
// Nomad did apply the change, the next plan finds nothing left to do, so a
// rolled-back charge would never be corrected.
func addUncertainUpdateError(diags *diag.Diagnostics, summary, object string, err error) {
	var d diag.Diagnostics
	AddNomadError(&d, summary, err)
	diags.AddError(summary, d[0].Detail()+"\n\nNomad may have applied the change to the "+object+" before the connection broke; "+
		"berth keeps its new charge on the node reservation, if any. The next apply reads the "+object+" back and makes the "+
		"change again if it is missing.")
}

// SetStateUnknownsNull stores model as the new state with every value
// that is still unknown set to null (state must hold known values only).
func SetStateUnknownsNull(ctx context.Context, state *tfsdk.State, model any, diags *diag.Diagnostics) {
	diags.Append(state.Set(ctx, model)...)
	raw, err := tftypes.Transform(state.Raw, func(_ *tftypes.AttributePath, v tftypes.Value) (tftypes.Value, error) {
		if !v.IsKnown() {
			return tftypes.NewValue(v.Type(), nil), nil
		}
		return v, nil
	})
	if err != nil {
		diags.AddError("Could not record the resource", "berth could not store the resource in state: "+err.Error()+". This is a bug in berth.")
		return
	}
	state.Raw = raw
}
