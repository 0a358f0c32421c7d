package workflow

import (
	"context"
	"fmt"
	"strings"

	"github.com/berthhq/terraform-provider-berth/internal/volume"
)

// The writes of berth_host_volume_registration and
// berth_csi_volume_registration: a registration tells Nomad about a volume
// that exists already (a directory on a node, a disk a CSI plugin
// reaches); deregistering forgets it and never touches its data.

// HostRegistrationNomad is what berth_host_volume_registration's writes
// need of Nomad; *nomadclient.Client has it.
type HostRegistrationNomad interface {
	GetHostRegistration(ctx context.Context, ns, id string) (*volume.HostRegistration, error)
	RegisterHostVolume(ctx context.Context, r *volume.HostRegistration) (id, warnings string, err error)
	WaitVolumeReady(ctx context.Context, ns, id string) (*volume.Volume, error)
	DeregisterHostVolume(ctx context.Context, ns, id string) error
	WaitVolumeGone(ctx context.Context, ns, id string) error
}

// HostRegistrations runs berth_host_volume_registration's writes:
// register → wait until the node reports the volume (or deregister
// again), and deregister → wait gone.
type HostRegistrations struct{ Nomad HostRegistrationNomad }

// Create registers reg as a new volume (Nomad chooses its ID) and waits
// until its node reports it. A volume that does not become ready is
// deregistered again, so nothing is left half-created: the error is then
// a *RegistrationUndoneError.
func (w HostRegistrations) Create(ctx context.Context, reg volume.HostRegistration) (string, []Warning, error) {
	reg.ID = ""
	id, warnings, err := w.Nomad.RegisterHostVolume(ctx, &reg)
	if err != nil {
		return "", nil, &WriteError{Summary: "Could not register the host volume", Err: err}
	}
	out := nomadWarnings(warnings)
	if _, err := w.Nomad.WaitVolumeReady(ctx, reg.Namespace, id); err != nil {
		undone := &RegistrationUndoneError{Namespace: reg.Namespace, ID: id, Err: err}
		undone.UndoErr = w.Nomad.DeregisterHostVolume(CleanupContext(ctx), reg.Namespace, id)
		return "", out, undone
	}
	return id, out, nil
}

// Update registers reg again under its ID. A volume that is not ready
// afterwards is a warning: the registration was written.
func (w HostRegistrations) Update(ctx context.Context, reg volume.HostRegistration) ([]Warning, error) {
	_, warnings, err := w.Nomad.RegisterHostVolume(ctx, &reg)
	if err != nil {
		return nil, &WriteError{Summary: "Could not update the host volume's registration", Err: err}
	}
	out := nomadWarnings(warnings)
	if _, err := w.Nomad.WaitVolumeReady(ctx, reg.Namespace, reg.ID); err != nil {
		out = append(out, Warning{"Host volume not ready", fmt.Sprintf("The registration was updated, but the volume is not ready yet: %v", err)})
	}
	return out, nil
}

// Delete deregisters the volume and waits until Nomad forgets it. It
// refuses a volume that has come to have a plugin (Nomad would ask the
// plugin to delete the data) and one that allocations that may still
// run use. A volume already gone is no error.
func (w HostRegistrations) Delete(ctx context.Context, ns, id string) error {
	reg, err := w.Nomad.GetHostRegistration(ctx, ns, id)
	if err != nil {
		return &NomadError{"Could not read the host volume", err}
	}
	if reg == nil {
		return nil
	}
	if reg.PluginID != "" {
		return &RegistrationPluginError{ID: id, PluginID: reg.PluginID}
	}
	if live := reg.LiveAllocations(); len(live) > 0 {
		return &VolumeInUseError{Name: reg.Name, ID: id, Users: volume.DescribeAllocations(live), Kind: "host volume"}
	}
	if err := w.Nomad.DeregisterHostVolume(ctx, ns, id); err != nil {
		return &NomadError{"Could not deregister the host volume", err}
	}
	if err := w.Nomad.WaitVolumeGone(ctx, ns, id); err != nil {
		return &NomadError{"The host volume is still registered", err}
	}
	return nil
}

// CSIRegistrationNomad is what berth_csi_volume_registration's writes
// need of Nomad; *nomadclient.Client has it.
type CSIRegistrationNomad interface {
	GetCSIRegistration(ctx context.Context, ns, id string) (*volume.CSIRegistration, error)
	RegisterCSIVolume(ctx context.Context, r *volume.CSIRegistration) (warnings string, err error)
	WaitCSIVolumeUnclaimed(ctx context.Context, ns, id string) error
	DeregisterCSIVolume(ctx context.Context, ns, id string) error
	WaitCSIVolumeGone(ctx context.Context, ns, id string) error
}

// CSIRegistrations runs berth_csi_volume_registration's writes: check
// the ID is free → register, and wait the claims out → deregister →
// wait gone.
type CSIRegistrations struct{ Nomad CSIRegistrationNomad }

// Create registers reg under its ID. Registering an ID Nomad knows would
// update that volume: adopting it is import's job, so it is refused
// (*RegistrationExistsError).
func (w CSIRegistrations) Create(ctx context.Context, reg *volume.CSIRegistration) ([]Warning, error) {
	existing, err := w.Nomad.GetCSIRegistration(ctx, reg.Namespace, reg.ID)
	if err != nil {
		return nil, &NomadError{"Could not check the volume ID", err}
	}
	if existing != nil {
		return nil, &RegistrationExistsError{Namespace: reg.Namespace, ID: reg.ID, ExternalID: existing.ExternalID, PluginID: existing.PluginID}
	}
	warnings, err := w.Nomad.RegisterCSIVolume(ctx, reg)
	if err != nil {
		return nil, &WriteError{Summary: "Could not register the CSI volume", Err: err}
	}
	return nomadWarnings(warnings), nil
}

// Update registers reg again. Nomad replaces the secrets it holds with
// each registration's, and never shows them: reg carries the
// configuration's.
func (w CSIRegistrations) Update(ctx context.Context, reg *volume.CSIRegistration) ([]Warning, error) {
	warnings, err := w.Nomad.RegisterCSIVolume(ctx, reg)
	if err != nil {
		return nil, &WriteError{Summary: "Could not update the CSI volume's registration", Err: err}
	}
	return nomadWarnings(warnings), nil
}

// Delete deregisters the volume: Nomad forgets it, the plugin is not
// asked to delete it. Claims of allocations that may still run refuse
// it; claims of stopped ones are waited out first. A volume already gone
// is no error.
func (w CSIRegistrations) Delete(ctx context.Context, ns, id string) error {
	reg, err := w.Nomad.GetCSIRegistration(ctx, ns, id)
	if err != nil {
		return &NomadError{"Could not read the CSI volume", err}
	}
	if reg == nil {
		return nil
	}
	if live := (&volume.Volume{Allocations: reg.Allocations}).LiveAllocations(); len(live) > 0 {
		return &VolumeInUseError{Name: reg.Name, ID: id, Users: volume.DescribeAllocations(live), Kind: "CSI volume"}
	}
	if err := w.Nomad.WaitCSIVolumeUnclaimed(ctx, ns, id); err != nil {
		return &NomadError{"Nomad did not release the volume's claims", err}
	}
	if err := w.Nomad.DeregisterCSIVolume(ctx, ns, id); err != nil {
		return &NomadError{"Could not deregister the CSI volume", err}
	}
	if err := w.Nomad.WaitCSIVolumeGone(ctx, ns, id); err != nil {
		return &NomadError{"The CSI volume is still registered", err}
	}
	return nil
}

// nomadWarnings is Nomad's answer to a registration as warnings, if it
// warned.
func nomadWarnings(warnings string) []Warning {
	if strings.TrimSpace(warnings) == "" {
		return nil
	}
	return []Warning{{"Nomad warned", warnings}}
}

// RegistrationUndoneError: a registration that did not become ready
// (Err) was deregistered again, or, UndoErr set, stays registered.
type RegistrationUndoneError struct {
	Namespace, ID string
	Err, UndoErr  error
}

func (e *RegistrationUndoneError) Error() string {
	if e.UndoErr != nil {
		return fmt.Sprintf("volume %s did not become ready (%v) and stays registered: %v", e.ID, e.Err, e.UndoErr)
	}
	return fmt.Sprintf("volume %s did not become ready, and was deregistered again: %v", e.ID, e.Err)
}
func (e *RegistrationUndoneError) Unwrap() error { return e.Err }

// RegistrationPluginError refuses to deregister a host volume Nomad
// records a plugin for: Nomad would ask the plugin to delete its data.
type RegistrationPluginError struct{ ID, PluginID string }

func (e *RegistrationPluginError) Error() string {
	return fmt.Sprintf("host volume %s has plugin %q", e.ID, e.PluginID)
}

// RegistrationExistsError refuses to register a CSI volume under an ID
// Nomad already has.
type RegistrationExistsError struct{ Namespace, ID, ExternalID, PluginID string }

func (e *RegistrationExistsError) Error() string {
	return fmt.Sprintf("CSI volume %q is already registered in namespace %q", e.ID, e.Namespace)
}
