package instance

import (
	"slices"
	"strconv"

	"github.com/hashicorp/nomad/api"

	"github.com/berthhq/terraform-provider-berth/internal/volume"
)

// VolumeClaim is one group-level volume request (a Nomad `volume` block of
// type "host" or "csi"); the map key in Spec.Volumes is the request name
// that Mount.Volume refers to.
type VolumeClaim struct {
	// Type is VolumeTypeHost or VolumeTypeCSI; "" means VolumeTypeHost.
	Type string `tf:"type"`
	// Source is the volume's name: for a host volume its name on the client
	// (a dynamic host volume, e.g. one created by berth_volume, or a static
	// one from client config), for a CSI volume its ID. The Terraform
	// attribute holding it is named "volume".
	Source   string `tf:"volume"`
	ReadOnly bool   `tf:"read_only"`
	// PerAlloc makes each allocation claim its own volume: Nomad appends
	// "[<alloc index>]" to Source, so the volumes are named "<Source>[0]",
	// "<Source>[1]", ...
	PerAlloc bool `tf:"per_alloc"`
	// AccessMode is one of VolumeAccessModesFor(Type); "" means
	// DefaultVolumeAccessModeFor(ReadOnly).
	AccessMode string `tf:"access_mode"`
	// AttachmentMode is one of VolumeAttachmentModes(); "" means
	// DefaultVolumeAttachmentMode.
	AttachmentMode string `tf:"attachment_mode"`
}

// Mount mounts a group volume into a service's task (a Nomad `volume_mount`
// block).
type Mount struct {
	Volume      string `tf:"volume"`      // key in Spec.Volumes
	Destination string `tf:"destination"` // absolute path inside the task
	ReadOnly    bool   `tf:"read_only"`
}

// VolumeTypes are the types of volume requests; the first is the default.
func VolumeTypes() []string { return []string{VolumeTypeHost, VolumeTypeCSI} }

// VolumeAccessModes are the access modes Nomad accepts for volume requests
// of any type (host ones first); the volume package owns the lists.
func VolumeAccessModes() []string {
	out := slices.Clone(volume.AccessModes())
	for _, m := range volume.CSIAccessModes() {
		if !slices.Contains(out, m) {
			out = append(out, m)
		}
	}
	return out
}

// VolumeAccessModesFor are the access modes Nomad accepts for requests of
// volume type typ ("" is host).
func VolumeAccessModesFor(typ string) []string {
	if typ == VolumeTypeCSI {
		return volume.CSIAccessModes()
	}
	return volume.AccessModes()
}

// VolumeAttachmentModes are the attachment modes of volume requests.
func VolumeAttachmentModes() []string { return volume.AttachmentModes() }

const (
	// DefaultVolumeAccessMode is the access mode of a writable claim that
	// does not set one.
	DefaultVolumeAccessMode = volume.AccessModeSingleNodeWriter
	// DefaultVolumeAccessModeReadOnly is the access mode of a read-only claim
	// that does not set one.
	DefaultVolumeAccessModeReadOnly = volume.AccessModeSingleNodeReader
	// DefaultVolumeAttachmentMode is the attachment mode of a claim that does
	// not set one.
	DefaultVolumeAttachmentMode = volume.AttachmentModeFilesystem

	// VolumeTypeHost requests a host volume; it is the default type.
	VolumeTypeHost = volume.TypeHost
	// VolumeTypeCSI requests a CSI volume.
	VolumeTypeCSI = volume.TypeCSI
)

// DefaultVolumeAccessModeFor returns the access mode used when a claim sets
// none. It depends on read_only because that is what Nomad's scheduler does
// with an empty mode (scheduler/feasible.go hostVolumeIsAvailable), and
// because the alternatives fail: Nomad rejects single-node-reader-only on a
// writable request, and never places a read-only single-node-writer request
// on a dynamic host volume. Both modes are CSI modes too (Nomad requires a
// CSI request to name one), so CSI claims share the default.
func DefaultVolumeAccessModeFor(readOnly bool) string {
	if readOnly {
		return DefaultVolumeAccessModeReadOnly
	}
	return DefaultVolumeAccessMode
}

// driversWithoutHostVolumes are the built-in Nomad 1.10 task drivers that
// declare MountConfigs: MountConfigSupportNone, so the client fails their
// tasks with "task driver ... does not support host volumes"
// (client/allocrunner/taskrunner/volume_hook.go):
//   - raw_exec: drivers/rawexec/driver.go
//   - qemu: drivers/qemu/driver.go
//   - mock_driver: drivers/mock/driver.go (only in non-release builds)
//
// java declares none only off Linux (drivers/java/driver.go init), and
// exec and docker support all mounts; third-party drivers (podman, …) default
// to MountConfigSupportAll, so they are assumed to support them.
var driversWithoutHostVolumes = []string{"raw_exec", "qemu", "mock_driver"}

// DriverSupportsHostVolumes reports whether tasks of driver can mount host
// volumes. Unknown drivers are assumed to, as Nomad assumes for plugins that
// do not say.
func DriverSupportsHostVolumes(driver string) bool {
	return !slices.Contains(driversWithoutHostVolumes, driver)
}

func normalizeVolumes(vols map[string]VolumeClaim) map[string]VolumeClaim {
	if len(vols) == 0 {
		return nil
	}
	out := make(map[string]VolumeClaim, len(vols))
	for name, v := range vols {
		if v.Type == "" {
			v.Type = VolumeTypeHost
		}
		if v.AccessMode == "" {
			v.AccessMode = DefaultVolumeAccessModeFor(v.ReadOnly)
		}
		if v.AttachmentMode == "" {
			v.AttachmentMode = DefaultVolumeAttachmentMode
		}
		out[name] = v
	}
	return out
}

// buildVolumes sends the modes explicitly (defaults applied) so the job
// read back from Nomad, which keeps "" as "", compares equal without
// depending on how Nomad interprets an empty mode.
func buildVolumes(vols map[string]VolumeClaim) map[string]*api.VolumeRequest {
	if len(vols) == 0 {
		return nil
	}
	out := make(map[string]*api.VolumeRequest, len(vols))
	for name, v := range normalizeVolumes(vols) {
		out[name] = &api.VolumeRequest{
			Name:           name,
			Type:           v.Type,
			Source:         v.Source,
			ReadOnly:       v.ReadOnly,
			PerAlloc:       v.PerAlloc,
			AccessMode:     v.AccessMode,
			AttachmentMode: v.AttachmentMode,
		}
	}
	return out
}

// buildMounts leaves propagation mode and SELinux label unset: Nomad fills in
// "private" and "", which is all berth supports.
func buildMounts(mounts []Mount) []*api.VolumeMount {
	if len(mounts) == 0 {
		return nil
	}
	out := make([]*api.VolumeMount, 0, len(mounts))
	for _, m := range mounts {
		out = append(out, &api.VolumeMount{
			Volume:      ptr(m.Volume),
			Destination: ptr(m.Destination),
			ReadOnly:    ptr(m.ReadOnly),
		})
	}
	return out
}

// readVolumes reads every group volume, including ones berth cannot express
// (reported), so mounts still refer to something and the caller can show a
// best-effort spec next to the unsupported list.
func (r *reader) readVolumes(g *api.TaskGroup) map[string]VolumeClaim {
	out := make(map[string]VolumeClaim, len(g.Volumes))
	for _, name := range sortedKeys(g.Volumes) {
		v := g.Volumes[name]
		if v == nil {
			continue
		}
		who := `group volume "` + name + `"`
		if !slices.Contains(VolumeTypes(), v.Type) {
			r.add("%s has type %q (berth mounts host and csi volumes only)", who, v.Type)
		}
		if v.Sticky {
			r.add("%s is sticky", who)
		}
		out[name] = VolumeClaim{
			Type:           v.Type,
			Source:         v.Source,
			ReadOnly:       v.ReadOnly,
			PerAlloc:       v.PerAlloc,
			AccessMode:     v.AccessMode,
			AttachmentMode: v.AttachmentMode,
		}
	}
	// Normalize (in SpecFromJob) fills in empty modes, so a hand-written job
	// that leaves them unset reads the way berth would have written it.
	return out
}

func (r *reader) readMounts(t *api.Task) []Mount {
	var out []Mount
	for i, vm := range t.VolumeMounts {
		if vm == nil {
			continue
		}
		who := `task "` + t.Name + `" volume_mount ` + strconv.Itoa(i)
		if pm := deref(vm.PropagationMode); pm != "" && pm != api.VolumeMountPropagationPrivate {
			r.add("%s uses propagation mode %q (berth supports %q)", who, pm, api.VolumeMountPropagationPrivate)
		}
		if label := deref(vm.SELinuxLabel); label != "" {
			r.add("%s sets selinux label %q", who, label)
		}
		out = append(out, Mount{
			Volume:      deref(vm.Volume),
			Destination: deref(vm.Destination),
			ReadOnly:    deref(vm.ReadOnly),
		})
	}
	return out
}
