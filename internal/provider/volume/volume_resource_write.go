package volume

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/berthhq/terraform-provider-berth/internal/nomadclient"
	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
	"github.com/berthhq/terraform-provider-berth/internal/volume"
	"github.com/berthhq/terraform-provider-berth/internal/workflow"
)

// volumes is berth_volume's workflow.
func (r *volumeResource) volumes() workflow.Volumes {
	return workflow.NewVolumes(r.Data.Nomad, r.Data.LedgerNamespace)
}

// volumeErrors is how the volume workflow's errors read; chargeSummary
// names a refused charge.
func volumeErrors(chargeSummary string) shared.ErrorContext {
	return shared.ErrorContext{Object: "volume", ChargeSummary: chargeSummary, ChargeFix: volumeBudgetFix}
}

// writeInput converts the plan (and state, for an update) into the
// workflow's input: a volume placed into a node reservation is pinned to
// its node.
func (r *volumeResource) writeInput(ctx context.Context, plan volumeModel, state *volumeModel, diags *diag.Diagnostics) (workflow.VolumeWrite, bool) {
	in := workflow.VolumeWrite{Volume: plan.toVolume(ctx, diags), Reservation: plan.NodeReservation.ValueString(), DiskMB: volumeDiskMB(plan)}
	if diags.HasError() {
		return in, false
	}
	if state != nil {
		in.HadDiskMB = volumeDiskMB(*state)
		return in, true
	}
	if in.Reservation != "" {
		node, _, err := nomadclient.ParseNodeReservationID(in.Reservation)
		if err != nil {
			diags.AddAttributeError(path.Root("node_reservation"), "Invalid node reservation ID", err.Error())
			return in, false
		}
		in.Volume.NodeID = node
	}
	return in, true
}

// readBack records the volume into m after a create or update. The wait
// may have ended with the operation's deadline, so the volume is read
// again with a fresh one; failing that, the last copy seen (or the one
// Nomad returned from the write) is recorded, so state always says what
// exists.
func (r *volumeResource) readBack(ctx context.Context, waitErr error, ns, id string, seen, written *volume.Volume,
	m *volumeModel, diags *diag.Diagnostics) *volume.Volume {
	fresh := shared.CleanupContext(ctx)
	vol := seen
	if waitErr != nil || vol == nil {
		get := r.Data.Nomad.GetVolume
		if m.Type.ValueString() == volume.TypeCSI {
			get = r.Data.Nomad.GetCSIVolume
		}
		v, err := get(fresh, ns, id)
		switch {
		case err != nil:
			// A warning: the volume exists, and an error would taint it.
			diags.AddWarning("Could not read the volume back",
				fmt.Sprintf("Volume %s was written, but reading it back failed: %v. State records the last copy berth saw; "+
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
		return &volume.Volume{ID: id, Namespace: ns, Name: m.Name.ValueString(), Type: m.Type.ValueString()}
	}
	r.record(fresh, vol, m, diags)
	return vol
}
