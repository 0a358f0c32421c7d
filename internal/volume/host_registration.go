package volume

import (
	"fmt"
)

// HostRegistration is a dynamic host volume that exists outside Nomad (a
// directory on a node), registered rather than created: Nomad records
// it, with no plugin, so deregistering it leaves the directory and its
// data where they are. The first group is what the user asks for; the
// second is what Nomad reports.
type HostRegistration struct {
	// ID is Nomad's UUID: empty to register a new volume.
	ID, Name, Namespace, NodeID, HostPath string
	CapacityBytes                         int64
	CapacityMinBytes, CapacityMaxBytes    int64
	Capabilities                          []Capability
	Parameters                            map[string]string
	// Constraints are kept as first registered: Nomad ignores them on
	// an update.
	Constraints []Constraint

	// Reported by Nomad. PluginID is never set by berth: a volume with a
	// plugin is one the plugin created, and Nomad's delete asks the
	// plugin to delete it.
	PluginID, NodePool, State string
	Allocations               []Allocation
	ModifyIndex               uint64
}

// LiveAllocations returns the allocations using the volume that may still
// run, as Volume.LiveAllocations.
func (r *HostRegistration) LiveAllocations() []Allocation {
	return (&Volume{Allocations: r.Allocations}).LiveAllocations()
}

// CheckCapacityRange is Nomad's rule for a host volume's requested
// capacity range: a maximum at least the minimum (so a minimum needs a
// maximum). Zero is unset.
func CheckCapacityRange(minBytes, maxBytes int64) error {
	if maxBytes < minBytes {
		if maxBytes == 0 {
			return fmt.Errorf("capacity_min (%d bytes) needs a capacity_max at least as large", minBytes)
		}
		return fmt.Errorf("capacity_max (%d bytes) must be at least capacity_min (%d bytes)", maxBytes, minBytes)
	}
	return nil
}
