package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/berthhq/terraform-provider-berth/internal/nomadclient"
)

// An instance moves to another node reservation in place. Its charge on
// the new one is taken first (that hold shrinks, so the job fits on the new
// node); then, before the job is registered pinned to the new node, the old
// reservation gets the charge back and its hold is grown: Nomad parks the
// grown hold until the job's allocations on the old node stop and places it
// in the room they leave, so no other job slips in between (as handBack
// does for a destroy). If Nomad refuses the job, updateFailed puts both
// charges back. If the registration's answer is lost, the charges stay
// moved, as the job may be.

// releaseForMove releases the instance's charge on the node reservation
// res it leaves and grows that reservation's hold. It returns the hold to
// wait for once the job has moved (nil when the hold could not be written:
// a warning, the reservation's next apply repairs it), and false when the
// charge could not be released, in which case nothing has moved.
func (r *instanceResource) releaseForMove(ctx context.Context, res, consumer string, diags *diag.Diagnostics) (*nomadclient.HoldState, bool) {
	st, warnings, err := charges(r.data).ReleaseForMove(ctx, res, "instance", consumer)
	if err != nil {
		addNodeReservationError(diags, "Could not release the instance's charge on the node reservation it leaves",
			fmt.Errorf("%w. The instance was not moved", err))
		return nil, false
	}
	addWarnings(diags, warnings)
	return st, true
}
