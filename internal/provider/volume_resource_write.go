package provider

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/berthhq/terraform-provider-berth/internal/nomadclient"
	"github.com/berthhq/terraform-provider-berth/internal/volume"
	"github.com/berthhq/terraform-provider-berth/internal/workflow"
)

// volumes is berth_volume's workflow.
func (r *volumeResource) volumes() workflow.Volumes {
	return workflow.NewVolumes(r.data.Nomad, r.data.LedgerNamespace)
}

// volumeErrors is how the volume workflow's errors read; chargeSummary
// names a refused charge.
func volumeErrors(chargeSummary string) errorContext {
	return errorContext{object: "volume", chargeSummary: chargeSummary, chargeFix: volumeBudgetFix}
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
	fresh := cleanupContext(ctx)
	vol := seen
	if waitErr != nil || vol == nil {
		get := r.data.Nomad.GetVolume
		if m.Type.ValueString() == volume.TypeCSI {
			get = r.data.Nomad.GetCSIVolume
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

// addVolumeNoPathError reports a host volume Nomad placed on a node its
// servers cannot reach (a down node, or one gone but still listed): which
// node, and what moves the volume elsewhere or clears the node away.
func addVolumeNoPathError(diags *diag.Diagnostics, e *nomadclient.VolumeNoPathError) {
	named := make([]string, 0, len(e.Nodes))
	for _, n := range e.Nodes {
		text := n.ID
		switch {
		case n.Name != "" && n.Status != "":
			text += fmt.Sprintf(" (%s, %s)", n.Name, n.Status)
		case n.Name != "":
			text += fmt.Sprintf(" (%s)", n.Name)
		}
		named = append(named, text)
	}
	pool := "any node pool"
	if e.Pool != "" {
		pool = fmt.Sprintf("node pool %q", e.Pool)
	}
	var where, purge string
	switch {
	case e.Pinned:
		where = fmt.Sprintf("the node it is pinned to (node_id, or its node reservation's node), %s, which Nomad's servers cannot reach",
			named[0])
		purge = e.Nodes[0].ID
	case len(named) == 1:
		where = fmt.Sprintf("a node Nomad's servers cannot reach: the one node in %s that can hold it and is not ready is %s",
			pool, named[0])
		purge = e.Nodes[0].ID
	case len(named) > 1:
		where = fmt.Sprintf("a node Nomad's servers cannot reach, one of those in %s that can hold it and are not ready: %s",
			pool, strings.Join(named, ", "))
		purge = "<node-id>"
	default:
		where = "a node Nomad's servers cannot reach (Nomad does not say which; `nomad node status` lists the nodes that are down)"
		purge = "<node-id>"
	}
	diags.AddError("Volume placed on a node Nomad cannot reach",
		fmt.Sprintf("Nomad placed host volume %q on %s, and nothing was created. Nomad said: %v.\n\n"+
			"Set node_id to a ready node, or node_pool to a pool whose nodes are ready (`nomad node status` lists them); "+
			"a node that is gone for good stays in Nomad's placement until it is removed: `nomad node purge %s`. Then apply again.",
			e.Name, where, e.Err, purge))
}
