package workflow

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/berthhq/terraform-provider-berth/internal/capacity"
	"github.com/berthhq/terraform-provider-berth/internal/nomadclient"
	"github.com/berthhq/terraform-provider-berth/internal/volume"
)

// VolumeNomad is what berth_volume's writes need of Nomad;
// *nomadclient.Client has it.
type VolumeNomad interface {
	Ledger
	VolumesNamed(ctx context.Context, ns, name string) ([]volume.Summary, error)
	GetVolume(ctx context.Context, ns, id string) (*volume.Volume, error)
	FindVolume(ctx context.Context, ns, name string) (*volume.Volume, error)
	CreateVolume(ctx context.Context, v *volume.Volume) (*volume.Volume, string, error)
	WaitVolumeReady(ctx context.Context, ns, id string) (*volume.Volume, error)
	DeleteVolume(ctx context.Context, ns, id string, force bool) error
	WaitVolumeGone(ctx context.Context, ns, id string) error
	WaitNodeReady(ctx context.Context, nodeID string, index uint64) (uint64, error)

	GetCSIVolume(ctx context.Context, ns, id string) (*volume.Volume, error)
	CreateCSIVolume(ctx context.Context, v *volume.Volume) (*volume.Volume, string, error)
	WaitCSIVolumeReady(ctx context.Context, ns, id string) (*volume.Volume, error)
	WaitCSIVolumeUnclaimed(ctx context.Context, ns, id string) error
	DeleteCSIVolume(ctx context.Context, ns, id string) error
	WaitCSIVolumeGone(ctx context.Context, ns, id string) error
}

// Volumes runs berth_volume's writes: charge → create (or resize) → wait
// until ready, and delete → wait gone → release, with their undo steps.
type Volumes struct {
	Nomad   VolumeNomad
	Charges Charges
}

// NewVolumes is the volume workflow on nomad, with node reservation
// ledgers in ledgerNamespace.
func NewVolumes(nomad VolumeNomad, ledgerNamespace string) Volumes {
	return Volumes{Nomad: nomad, Charges: Charges{Nomad: nomad, Namespace: ledgerNamespace}}
}

// VolumeWrite is one create or update of a volume.
type VolumeWrite struct {
	Volume *volume.Volume
	// Reservation is the node reservation it is placed into ("" none);
	// DiskMB is what it charges there, HadDiskMB what it charged before an
	// update.
	Reservation       string
	DiskMB, HadDiskMB int64
}

// VolumeOutcome is what a volume write did.
type VolumeOutcome struct {
	// Written is the volume Nomad returned from the write; nil when
	// nothing was written. Once it is set, the volume exists.
	Written *volume.Volume
	// Ready is the volume as the wait last saw it (nil: not seen);
	// WaitErr, why it did not become ready.
	Ready    *volume.Volume
	WaitErr  error
	Warnings []Warning
	Problems []error
}

// VolumeExistsError refuses a create whose name the namespace already
// has.
type VolumeExistsError struct{ Namespace, Name, ID, NodeID, Kind string }

func (e *VolumeExistsError) Error() string {
	kind := e.Kind
	if kind == "" {
		kind = "host volume"
	}
	return fmt.Sprintf("namespace %q already has a %s named %q", e.Namespace, kind, e.Name)
}

// VolumeNameTakenOnNodeError is Nomad's refusal to create a volume whose
// name a volume on the node already has, while the servers list none:
// Nomad creates a volume on the node before it records it, so an agent
// crash in between leaves one behind that the servers never learn about.
// Nothing was created.
type VolumeNameTakenOnNodeError struct {
	Name string
	Err  error
}

func (e *VolumeNameTakenOnNodeError) Error() string { return e.Err.Error() }
func (e *VolumeNameTakenOnNodeError) Unwrap() error { return e.Err }

// VolumeInUseError refuses to delete a volume live allocations use.
type VolumeInUseError struct{ Name, ID, Users, Kind string }

func (e *VolumeInUseError) Error() string {
	kind := e.Kind
	if kind == "" {
		kind = "host volume"
	}
	return fmt.Sprintf("%s %q is used by %s", kind, e.Name, e.Users)
}

func (o *VolumeOutcome) warn(ws ...Warning) { o.Warnings = append(o.Warnings, ws...) }

// Create checks the name is free, charges the volume's node reservation,
// creates the volume pinned to that node and waits until it is ready. A
// refused create gives the charge back; one whose answer was lost keeps it
// (the volume may exist).
func (w Volumes) Create(ctx context.Context, in VolumeWrite) (VolumeOutcome, error) {
	if in.Volume.IsCSI() {
		return w.createCSI(ctx, in.Volume)
	}
	var out VolumeOutcome
	v := in.Volume
	existing, err := w.Nomad.VolumesNamed(ctx, v.Namespace, v.Name)
	if err != nil {
		return out, &NomadError{"Could not check for an existing volume", err}
	}
	if len(existing) > 0 {
		return out, &VolumeExistsError{Namespace: v.Namespace, Name: v.Name, ID: existing[0].ID, NodeID: existing[0].NodeID}
	}
	if err := w.charge(ctx, &out, in, in.DiskMB); err != nil {
		return out, err
	}
	created, warnings, err := w.Nomad.CreateVolume(ctx, v)
	switch {
	case err != nil && strings.Contains(err.Error(), "volume name already exists on this node"):
		w.release(CleanupContext(ctx), &out, in)
		return out, &VolumeNameTakenOnNodeError{Name: v.Name, Err: err}
	case nomadclient.OutcomeUnknown(err):
		// The volume may exist under an ID berth never learnt: the caller
		// keeps it (tainted, no ID) with its charge; Read finds it by name.
		return out, &WriteError{Summary: "Could not create the volume", Err: err, Uncertain: true}
	case err != nil:
		w.release(CleanupContext(ctx), &out, in)
		return out, &NomadError{"Could not create the volume", err}
	}
	if warnings != "" {
		out.warn(Warning{"Nomad warnings", warnings})
	}
	tflog.Info(ctx, "Created host volume", map[string]any{"id": created.ID, "name": v.Name})
	out.Written = created
	out.Ready, out.WaitErr = w.Nomad.WaitVolumeReady(ctx, v.Namespace, created.ID)
	return out, nil
}

// Update sends the whole volume with its ID: only capacity and parameters
// change in place (everything else is unchanged or replaces the volume),
// so exactly those are updated. A new capacity is charged to the node
// reservation before the volume grows, and the old charge restored if the
// update fails.
func (w Volumes) Update(ctx context.Context, in VolumeWrite) (VolumeOutcome, error) {
	var out VolumeOutcome
	v := in.Volume
	if v.IsCSI() {
		// The schema replaces a CSI volume on every change; reaching this
		// is a bug, and Nomad's create would refuse the existing ID.
		return out, &NomadError{"Could not update the volume", fmt.Errorf("CSI volume %s cannot be changed in place; replace it", v.ID)}
	}
	recharged := in.Reservation != "" && in.DiskMB != in.HadDiskMB
	if recharged {
		if err := w.charge(ctx, &out, in, in.DiskMB); err != nil {
			return out, err
		}
	}
	updated, warnings, err := w.Nomad.CreateVolume(ctx, v)
	if nomadclient.OutcomeUnknown(err) && (!recharged || w.resizedTo(CleanupContext(ctx), v)) {
		// Nomad may have resized it (or did): keep the new charge.
		return out, &WriteError{Summary: "Could not update the volume", Err: err, Uncertain: true}
	}
	if err != nil {
		if recharged {
			w.restoreCharge(CleanupContext(ctx), &out, in)
		}
		return out, &NomadError{"Could not update the volume", err}
	}
	if warnings != "" {
		out.warn(Warning{"Nomad warnings", warnings})
	}
	out.Written = updated
	out.Ready, out.WaitErr = w.Nomad.WaitVolumeReady(ctx, v.Namespace, v.ID)
	return out, nil
}

// VolumeDelete is one destroy of a volume: by ID, or by name when a
// create whose answer was lost left no ID.
type VolumeDelete struct {
	// Type is volume.TypeCSI for a CSI volume, else a host volume.
	Type                string
	Namespace, ID, Name string
	Reservation         string
	Force               bool
}

// Delete refuses a volume live allocations use (unless forced), deletes
// it, waits until Nomad no longer lists it, and then releases its charge:
// once destroy returns, the disk is free.
func (w Volumes) Delete(ctx context.Context, in VolumeDelete) (VolumeOutcome, error) {
	if in.Type == volume.TypeCSI {
		return w.deleteCSI(ctx, in)
	}
	var out VolumeOutcome
	var v *volume.Volume
	var err error
	if in.ID != "" {
		v, err = w.Nomad.GetVolume(ctx, in.Namespace, in.ID)
	} else {
		v, err = w.Nomad.FindVolume(ctx, in.Namespace, in.Name)
	}
	if err != nil {
		return out, &NomadError{"Could not read the volume", err}
	}
	write := VolumeWrite{Volume: &volume.Volume{Namespace: in.Namespace, Name: in.Name}, Reservation: in.Reservation}
	if v == nil {
		w.release(ctx, &out, write)
		return out, nil
	}
	if users := v.LiveAllocations(); len(users) > 0 && !in.Force {
		return out, &VolumeInUseError{Name: v.Name, ID: v.ID, Users: volume.DescribeAllocations(users)}
	}
	if err := w.deleteHostVolume(ctx, in, v); err != nil {
		return out, err
	}
	if err := w.Nomad.WaitVolumeGone(ctx, in.Namespace, v.ID); err != nil {
		return out, &NomadError{"The volume was not deleted", err}
	}
	w.release(ctx, &out, write)
	return out, nil
}

// deleteHostVolume deletes v. Nomad refuses, without force, to delete a
// volume whose node it cannot reach (down, or not reconnected since an
// agent restart). Force would leave the data on a node that may come back,
// so it waits within ctx for the node to be ready and tries again. The
// first wait reads the node at once (it may be ready already); later ones
// block until it changes, so a node that reads ready while still
// unreachable is not asked in a tight loop.
func (w Volumes) deleteHostVolume(ctx context.Context, in VolumeDelete, v *volume.Volume) error {
	var index uint64
	for {
		err := w.Nomad.DeleteVolume(ctx, in.Namespace, v.ID, in.Force)
		var refused *nomadclient.VolumeNodeUnreachableError
		if !errors.As(err, &refused) || v.NodeID == "" {
			if err != nil {
				return &NomadError{"Could not delete the volume", err}
			}
			return nil
		}
		tflog.Info(ctx, "Nomad cannot reach the volume's node; waiting for it to be ready", map[string]any{
			"volume": v.ID, "node": v.NodeID, "error": err.Error()})
		if index, err = w.Nomad.WaitNodeReady(ctx, v.NodeID, index); err != nil {
			return &NomadError{"Could not delete the volume: Nomad cannot reach its node",
				&VolumeNodeDownError{Namespace: in.Namespace, Name: v.Name, ID: v.ID, NodeID: v.NodeID, Refusal: refused, Wait: err}}
		}
	}
}

// VolumeNodeDownError is a host volume delete that Nomad refused because
// it cannot reach the volume's node, which did not become ready again
// before the delete's deadline (or is gone). Nothing was deleted.
type VolumeNodeDownError struct {
	Namespace, Name, ID, NodeID string
	Refusal, Wait               error
}

func (e *VolumeNodeDownError) Error() string {
	force := fmt.Sprintf("set force_destroy = true and destroy again, or run `nomad volume delete -type=host -force "+
		"-namespace=%s %s`; force removes the volume from Nomad only, and its data stays on the node's disk", e.Namespace, e.ID)
	var gone *nomadclient.NodeNotFoundError
	var down *nomadclient.NodeNotReadyError
	switch {
	case errors.As(e.Wait, &gone):
		return fmt.Sprintf("%v. Node %s, which holds host volume %q (%s), is no longer known to Nomad, so Nomad "+
			"cannot delete the volume's data. If the node will not rejoin, %s", e.Refusal, e.NodeID, e.Name, e.ID, force)
	case errors.As(e.Wait, &down):
		return fmt.Sprintf("%v. berth waited for the volume's node to be ready again until the delete's timeout: %v. "+
			"The node is down, or its Nomad client has not reconnected to the servers. Bring the node back and destroy "+
			"again (raise timeouts.delete if it needs longer). If the node will never rejoin, %s", e.Refusal, e.Wait, force)
	}
	return fmt.Sprintf("%v. Reading the volume's node %s to wait for it failed: %v. Destroy again once Nomad answers",
		e.Refusal, e.NodeID, e.Wait)
}

// Unwrap is Nomad's refusal only: a diagnostic for the wait's error alone
// (a timeout, say) would lose what to do next.
func (e *VolumeNodeDownError) Unwrap() error { return e.Refusal }

func (w Volumes) charge(ctx context.Context, out *VolumeOutcome, in VolumeWrite, diskMB int64) error {
	if in.Reservation == "" {
		return nil
	}
	ws, err := w.Charges.ChargeAndHold(ctx, in.Reservation, nomadclient.VolumeConsumer(in.Volume.Namespace, in.Volume.Name),
		capacity.Resources{DiskMB: diskMB})
	out.warn(ws...)
	if err != nil {
		return &ChargeError{err}
	}
	return nil
}

func (w Volumes) release(ctx context.Context, out *VolumeOutcome, in VolumeWrite) {
	ws, err := w.Charges.ReleaseOf(ctx, in.Reservation, "volume", nomadclient.VolumeConsumer(in.Volume.Namespace, in.Volume.Name))
	out.warn(ws...)
	if err != nil {
		out.Problems = append(out.Problems, err)
	}
}

// restoreCharge puts the volume's charge back to what it was after a
// failed update, and says so when it cannot.
func (w Volumes) restoreCharge(ctx context.Context, out *VolumeOutcome, in VolumeWrite) {
	ws, err := w.Charges.ChargeAndHold(ctx, in.Reservation, nomadclient.VolumeConsumer(in.Volume.Namespace, in.Volume.Name),
		capacity.Resources{DiskMB: in.HadDiskMB})
	out.warn(ws...)
	if err != nil {
		out.Problems = append(out.Problems, &ReleaseError{"Could not restore the volume's charge on its node reservation",
			fmt.Errorf("%w. Node reservation %s still charges the volume %d MiB (the new capacity) instead of %d MiB. "+
				"Apply the same configuration again to finish the update, which keeps the charge right",
				err, in.Reservation, in.DiskMB, in.HadDiskMB)})
	}
}

// resizedTo reports whether the volume in Nomad already asks for the
// capacity in want, after an update whose answer did not come back. When
// the volume cannot be read either, nobody knows, and it says true: the
// new charge is kept, since the next apply of the same configuration
// finishes the update.
func (w Volumes) resizedTo(ctx context.Context, want *volume.Volume) bool {
	v, err := w.Nomad.GetVolume(ctx, want.Namespace, want.ID)
	if err != nil || v == nil {
		return true
	}
	return volume.SameCapacity(v, want)
}
