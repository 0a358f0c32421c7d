package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/berthhq/terraform-provider-berth/internal/capacity"
	"github.com/berthhq/terraform-provider-berth/internal/nomadclient"
	"github.com/berthhq/terraform-provider-berth/internal/volume"
)

// restoreCharge puts the volume's charge on its node reservation back to
// what state says after a failed update, and says so when it cannot.
func (r *volumeResource) restoreCharge(ctx context.Context, plan, state volumeModel, diags *diag.Diagnostics) {
	res := plan.NodeReservation.ValueString()
	err := chargeAndHold(ctx, r.data, res,
		nomadclient.VolumeConsumer(plan.Namespace.ValueString(), plan.Name.ValueString()), capacity.Resources{DiskMB: volumeDiskMB(state)}, diags)
	if err != nil {
		addNodeReservationError(diags, "Could not restore the volume's charge on its node reservation",
			fmt.Errorf("%w. Node reservation %s still charges the volume %d MiB (the new capacity) instead of %d MiB. "+
				"Apply the same configuration again to finish the update, which keeps the charge right",
				err, res, volumeDiskMB(plan), volumeDiskMB(state)))
	}
}

// resizedTo reports whether the volume in Nomad already asks for the
// capacity in want, after an update whose answer did not come back. When
// the volume cannot be read either, nobody knows, and it says true: the
// new charge is kept, since the next apply of the same configuration
// finishes the update.
func (r *volumeResource) resizedTo(ctx context.Context, want *volume.Volume) bool {
	v, err := r.data.Nomad.GetVolume(ctx, want.Namespace, want.ID)
	if err != nil || v == nil {
		return true
	}
	return volume.SameCapacity(v, want)
}

// readBack records the volume into m after a create or update. The wait
// may have ended with the operation's deadline, so the volume is read
// again with a fresh one; failing that, the last copy seen (or the one
// Nomad returned from the write) is recorded, so state always says what
// exists.
func (r *volumeResource) readBack(ctx context.Context, waitErr error, ns, id string, seen, written *volume.Volume,
	m *volumeModel, diags *diag.Diagnostics) *volume.Volume {
	fresh := cleanupContext(ctx)
	vol := seen
	if waitErr != nil || vol == nil {
		v, err := r.data.Nomad.GetVolume(fresh, ns, id)
		switch {
		case err != nil:
			// A warning: the volume exists, and an error would taint it.
			diags.AddWarning("Could not read the volume back",
				fmt.Sprintf("Host volume %s was written, but reading it back failed: %v. State records the last copy berth saw; "+
					"the next terraform plan reads it from Nomad.", id, err))
		case v != nil:
			vol = v
		}
	}
	if vol == nil {
		vol = written
	}
	if vol == nil {
		// Nothing to go by: record what is known, the next refresh reads the rest.
		m.ID = types.StringValue(id)
		nullUnknownVolume(m)
		return &volume.Volume{ID: id, Namespace: ns, Name: m.Name.ValueString()}
	}
	r.record(fresh, vol, m, diags)
	return vol
}
