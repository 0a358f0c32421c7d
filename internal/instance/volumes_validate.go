package instance

import (
	"fmt"
	// Renamed because validate.go declares a path helper.
	posixpath "path"
	"slices"
	"strings"

	"github.com/berthhq/terraform-provider-berth/internal/volume"
)

// volumes checks the group's volume requests against what Nomad's job
// validation (nomad/structs/volumes.go VolumeRequest.Validate) and its
// scheduler (scheduler/feasible.go) accept. A volume no service mounts is
// fine: Nomad allows it, and it still pins placement to nodes that have it.
// Each request gets at most one error per attribute.
func (v *validator) volumes(s Spec) {
	vols := s.Volumes
	for _, name := range sortedKeys(vols) {
		vol := vols[name]
		at := func(elems ...any) []any { return append(path("volumes", name), elems...) }
		if name == "" {
			v.add(at(), "Invalid volume name",
				"Volume names are what mounts refer to and must not be empty.")
		}
		// An empty or unknown type, volume, access mode or attachment mode is
		// reported by the schema's validators.
		if vol.Type == VolumeTypeCSI {
			v.csiAccessMode(s, at("access_mode"), vol)
		} else {
			v.hostAccessMode(at("access_mode"), vol)
		}
		v.perAlloc(s, at("per_alloc"), vol)
	}
}

func (v *validator) hostAccessMode(at []any, vol VolumeClaim) {
	switch mode := vol.AccessMode; {
	case mode != "" && !slices.Contains(VolumeAccessModesFor(VolumeTypeHost), mode):
		if !slices.Contains(VolumeAccessModes(), mode) {
			return // the schema reports it
		}
		v.add(at, "Access mode of CSI volumes only",
			fmt.Sprintf("access_mode %q is for CSI volumes; Nomad refuses it on a host volume (\"host volumes cannot be mounted with %s access mode\"). "+
				"Use one of %s, or set type = %q if the volume is a CSI volume.", mode, mode, quotedList(VolumeAccessModesFor(VolumeTypeHost)), VolumeTypeCSI))
	case mode == DefaultVolumeAccessModeReadOnly && !vol.ReadOnly:
		// Nomad rejects the job: "single-node-reader-only volumes must be
		// read-only".
		v.add(at, "Access mode needs read_only",
			fmt.Sprintf("access_mode %q only allows reading, so Nomad requires read_only = true; set read_only, or use %q to write.", mode, DefaultVolumeAccessMode))
	case mode == DefaultVolumeAccessMode && vol.ReadOnly:
		// Nomad accepts the job, but its scheduler only places a
		// single-node-writer claim on a dynamic host volume when it is
		// writable, so the allocations would never be placed.
		v.add(at, "Access mode needs a writable volume",
			fmt.Sprintf("Nomad never places a read-only claim with access_mode %q on a dynamic host volume; use %q (or leave access_mode unset), or set read_only = false.", mode, DefaultVolumeAccessModeReadOnly))
	}
}

// csiAccessMode follows Nomad's rules for CSI requests. The count rules
// apply only when berth manages the count; an unmanaged count is checked
// by Nomad at registration.
func (v *validator) csiAccessMode(s Spec, at []any, vol VolumeClaim) {
	mode := vol.AccessMode
	if mode == "" {
		mode = DefaultVolumeAccessModeFor(vol.ReadOnly)
	}
	count := 0
	if s.Replicas != nil && s.JobType() != TypeSystem {
		count = *s.Replicas
	}
	shared := count > 1 && !vol.PerAlloc
	switch {
	case !slices.Contains(VolumeAccessModesFor(VolumeTypeCSI), mode):
		if !slices.Contains(VolumeAccessModes(), mode) {
			return // the schema reports it
		}
		v.add(at, "Access mode of host volumes only",
			fmt.Sprintf("access_mode %q is for host volumes; a CSI volume is claimed with one of %s.", mode, quotedList(VolumeAccessModesFor(VolumeTypeCSI))))
	case (mode == volume.AccessModeSingleNodeReader || mode == volume.AccessModeMultiNodeReader) && !vol.ReadOnly:
		v.add(at, "Access mode needs read_only",
			fmt.Sprintf("access_mode %q only allows reading, so Nomad requires read_only = true; set read_only, or use a writer mode such as %q.", mode, DefaultVolumeAccessMode))
	case (mode == volume.AccessModeSingleNodeReader || mode == volume.AccessModeSingleNodeWriter) && shared:
		v.add(at, "Access mode allows one allocation",
			fmt.Sprintf("access_mode %q lets one allocation claim the volume, but replicas is %d, so Nomad refuses the job. "+
				"Set per_alloc = true to give each allocation its own volume (named \"<volume>[0]\", \"<volume>[1]\", ...), "+
				"or use a multi-node access mode the volume offers.", mode, count))
	case mode == volume.AccessModeMultiNodeSingleWriter && !vol.ReadOnly && shared:
		v.add(at, "Access mode allows one writer",
			fmt.Sprintf("access_mode %q lets one allocation write, but replicas is %d and the claim is writable, so Nomad refuses the job. "+
				"Set per_alloc = true, read_only = true, or use %q.", mode, count, volume.AccessModeMultiNodeMultiWriter))
	}
}

// perAlloc follows Nomad's per_alloc rules: there must be an allocation
// index to name the volume by, and canaries would claim the same volume as
// the allocation they replace.
func (v *validator) perAlloc(s Spec, at []any, vol VolumeClaim) {
	if !vol.PerAlloc {
		return
	}
	switch {
	case s.JobType() == TypeSystem:
		v.add(at, "per_alloc on a system job",
			"Nomad refuses per_alloc volumes on system jobs (\"volume cannot be per_alloc for system or sysbatch jobs\"). Remove per_alloc, or use a service job.")
	case s.JobType() == TypeService && s.Update.Canary > 0:
		v.add(at, "per_alloc with canaries",
			fmt.Sprintf("Nomad refuses per_alloc volumes while update.canary is %d (\"volume cannot be per_alloc when canaries are in use\"): "+
				"a canary would claim the volume of the allocation it replaces. Set update.canary = 0, or remove per_alloc.", s.Update.Canary))
	}
}

func quotedList(items []string) string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = fmt.Sprintf("%q", it)
	}
	return strings.Join(out, ", ")
}

// mounts checks one service's volume mounts. The index in the path is an int
// so the caller can map it onto the list element.
func (v *validator) mounts(vols map[string]VolumeClaim, name string, svc Service) {
	if len(svc.Mounts) == 0 {
		return
	}
	at := func(elems ...any) []any { return append(path("services", name, "mounts"), elems...) }
	if svc.Driver != "" && !DriverSupportsHostVolumes(svc.Driver) {
		// Nomad registers the job and only fails the task on the client, so
		// this is the last chance to say it before an apply hangs.
		kind, says := "host volumes", "does not support host volumes"
		if mountsCSI(vols, svc.Mounts) {
			kind, says = "CSI volumes", "does not support CSI"
		}
		v.add(at(), "Driver cannot mount volumes",
			fmt.Sprintf("The `%s` driver refuses %s: Nomad fails the task with \"task driver %q ... %s\". Use `exec` (or another isolating driver such as `docker`) for services that mount volumes, or remove the mounts.", svc.Driver, kind, svc.Driver, says))
	}
	seen := map[string]int{}
	for i, m := range svc.Mounts {
		switch _, declared := vols[m.Volume]; {
		case m.Volume == "" && !declared:
			v.add(at(i, "volume"), "Missing mount volume",
				"Set volume to the name of one of the instance's volumes.")
		case !declared:
			v.add(at(i, "volume"), "Unknown volume",
				fmt.Sprintf("The mount uses volume %q, which the instance does not declare; declared volumes: %s.", m.Volume, declaredVolumes(vols)))
		}
		switch {
		case m.Destination == "":
			v.add(at(i, "destination"), "Missing mount destination",
				`Set destination to the absolute path inside the task where the volume appears, for example "/data".`)
		case !posixpath.IsAbs(m.Destination):
			v.add(at(i, "destination"), "Invalid mount destination",
				fmt.Sprintf("destination %q must be an absolute path, for example %q.", m.Destination, "/"+m.Destination))
		default:
			// "/data" and "/data/" are the same mount point.
			clean := posixpath.Clean(m.Destination)
			if first, dup := seen[clean]; dup {
				v.add(at(i, "destination"), "Duplicate mount destination",
					fmt.Sprintf("Mount %d already mounts a volume at %q; each destination can be mounted once per service.", first, clean))
			} else {
				seen[clean] = i
			}
		}
	}
}

// mountsCSI reports whether a mount refers to a declared CSI volume.
func mountsCSI(vols map[string]VolumeClaim, mounts []Mount) bool {
	for _, m := range mounts {
		if vols[m.Volume].Type == VolumeTypeCSI {
			return true
		}
	}
	return false
}

func declaredVolumes(vols map[string]VolumeClaim) string {
	if len(vols) == 0 {
		return "none"
	}
	names := sortedKeys(vols)
	for i, n := range names {
		names[i] = fmt.Sprintf("%q", n)
	}
	return strings.Join(names, ", ")
}
