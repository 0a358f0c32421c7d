package workflow

import (
	"context"

	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/berthhq/terraform-provider-berth/internal/nomadclient"
	"github.com/berthhq/terraform-provider-berth/internal/volume"
)

// createCSI checks the ID (the name) is free, has Nomad create the volume
// through its plugin, and waits until it is schedulable. CSI volumes are
// never placed into node reservations: the plugin, not a node, holds them.
func (w Volumes) createCSI(ctx context.Context, v *volume.Volume) (VolumeOutcome, error) {
	var out VolumeOutcome
	existing, err := w.Nomad.GetCSIVolume(ctx, v.Namespace, v.Name)
	if err != nil {
		return out, &NomadError{"Could not check for an existing volume", err}
	}
	if existing != nil {
		return out, &VolumeExistsError{Namespace: v.Namespace, Name: v.Name, ID: existing.ID, Kind: v.Kind()}
	}
	created, warnings, err := w.Nomad.CreateCSIVolume(ctx, v)
	switch {
	case nomadclient.OutcomeUnknown(err):
		// The plugin may have made it: the caller keeps it tainted, and
		// Read (by name, which is the ID) finds it.
		return out, &WriteError{Summary: "Could not create the volume", Err: err, Uncertain: true}
	case err != nil:
		return out, &NomadError{"Could not create the volume", err}
	}
	if warnings != "" {
		out.warn(Warning{"Nomad warnings", warnings})
	}
	if created == nil {
		// Nomad answered without the volume; it is registered under its
		// name all the same.
		created = &volume.Volume{Type: volume.TypeCSI, ID: v.Name, Name: v.Name, Namespace: v.Namespace}
	}
	tflog.Info(ctx, "Created CSI volume", map[string]any{"id": created.ID, "plugin": v.PluginID})
	out.Written = created
	out.Ready, out.WaitErr = w.Nomad.WaitCSIVolumeReady(ctx, v.Namespace, created.ID)
	return out, nil
}

// deleteCSI refuses a volume live allocations use, waits for Nomad to
// release the claims of allocations that stopped (Nomad refuses to delete
// a claimed volume), deletes it through its plugin and waits until it is
// deregistered.
func (w Volumes) deleteCSI(ctx context.Context, in VolumeDelete) (VolumeOutcome, error) {
	var out VolumeOutcome
	id := in.ID
	if id == "" {
		id = in.Name
	}
	v, err := w.Nomad.GetCSIVolume(ctx, in.Namespace, id)
	if err != nil {
		return out, &NomadError{"Could not read the volume", err}
	}
	if v == nil {
		return out, nil
	}
	if users := v.LiveAllocations(); len(users) > 0 {
		return out, &VolumeInUseError{Name: v.Name, ID: v.ID, Users: volume.DescribeAllocations(users), Kind: v.Kind()}
	}
	if v.Claims > 0 {
		if err := w.Nomad.WaitCSIVolumeUnclaimed(ctx, in.Namespace, v.ID); err != nil {
			return out, &NomadError{"The volume's claims were not released", err}
		}
	}
	if err := w.Nomad.DeleteCSIVolume(ctx, in.Namespace, v.ID); err != nil {
		return out, &NomadError{"Could not delete the volume", err}
	}
	if err := w.Nomad.WaitCSIVolumeGone(ctx, in.Namespace, v.ID); err != nil {
		return out, &NomadError{"The volume was not deleted", err}
	}
	return out, nil
}
