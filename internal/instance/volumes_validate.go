package instance

import (
	"fmt"
	// Renamed because validate.go declares a path helper.
	posixpath "path"
	"strings"
)

// volumes checks the group's host volume requests against what Nomad's job
// validation (nomad/structs/volumes.go VolumeRequest.Validate) and its
// scheduler (scheduler/feasible.go) accept. A volume no service mounts is
// fine: Nomad allows it, and it still pins placement to nodes that have it.
func (v *validator) volumes(vols map[string]VolumeClaim) {
	for _, name := range sortedKeys(vols) {
		vol := vols[name]
		at := func(elems ...any) []any { return append(path("volumes", name), elems...) }
		if name == "" {
			v.add(at(), "Invalid volume name",
				"Volume names are what mounts refer to and must not be empty.")
		}
		// An empty or unknown volume, access mode or attachment mode is
		// reported by the schema's validators.
		switch mode := vol.AccessMode; {
		case mode == DefaultVolumeAccessModeReadOnly && !vol.ReadOnly:
			// Nomad rejects the job: "single-node-reader-only volumes must be
			// read-only".
			v.add(at("access_mode"), "Access mode needs read_only",
				fmt.Sprintf("access_mode %q only allows reading, so Nomad requires read_only = true; set read_only, or use %q to write.", mode, DefaultVolumeAccessMode))
		case mode == DefaultVolumeAccessMode && vol.ReadOnly:
			// Nomad accepts the job, but its scheduler only places a
			// single-node-writer claim on a dynamic host volume when it is
			// writable, so the allocations would never be placed.
			v.add(at("access_mode"), "Access mode needs a writable volume",
				fmt.Sprintf("Nomad never places a read-only claim with access_mode %q on a dynamic host volume; use %q (or leave access_mode unset), or set read_only = false.", mode, DefaultVolumeAccessModeReadOnly))
		}
	}
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
		v.add(at(), "Driver cannot mount volumes",
			fmt.Sprintf("The `%s` driver refuses host volumes: Nomad fails the task with \"task driver %q ... does not support host volumes\". Use `exec` (or another isolating driver such as `docker`) for services that mount volumes, or remove the mounts.", svc.Driver, svc.Driver))
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
