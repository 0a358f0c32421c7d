package volume

import (
	"fmt"
	"maps"

	"github.com/hashicorp/nomad/api"
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

// ToAPI builds Nomad's registration request for r (an update when r has
// an ID).
func (r *HostRegistration) ToAPI() *api.HostVolume {
	out := &api.HostVolume{
		ID: r.ID, Name: r.Name, Namespace: r.Namespace, NodeID: r.NodeID, HostPath: r.HostPath,
		CapacityBytes: r.CapacityBytes, RequestedCapacityMinBytes: r.CapacityMinBytes, RequestedCapacityMaxBytes: r.CapacityMaxBytes,
		Parameters: maps.Clone(r.Parameters),
	}
	for _, c := range r.Capabilities {
		out.RequestedCapabilities = append(out.RequestedCapabilities, &api.HostVolumeCapability{
			AccessMode: api.HostVolumeAccessMode(c.AccessMode), AttachmentMode: api.HostVolumeAttachmentMode(c.AttachmentMode),
		})
	}
	for _, c := range r.Constraints {
		out.Constraints = append(out.Constraints, &api.Constraint{LTarget: c.Attribute, Operand: c.Operator, RTarget: c.Value})
	}
	return out
}

// HostRegistrationFromAPI reads a host volume as a registration; nil for nil.
func HostRegistrationFromAPI(h *api.HostVolume) *HostRegistration {
	if h == nil {
		return nil
	}
	r := &HostRegistration{
		ID: h.ID, Name: h.Name, Namespace: h.Namespace, NodeID: h.NodeID, HostPath: h.HostPath,
		CapacityBytes: h.CapacityBytes, CapacityMinBytes: h.RequestedCapacityMinBytes, CapacityMaxBytes: h.RequestedCapacityMaxBytes,
		Parameters: maps.Clone(h.Parameters),
		PluginID:   h.PluginID, NodePool: h.NodePool, State: string(h.State), ModifyIndex: h.ModifyIndex,
	}
	for _, c := range h.RequestedCapabilities {
		if c != nil {
			r.Capabilities = append(r.Capabilities, Capability{AccessMode: string(c.AccessMode), AttachmentMode: string(c.AttachmentMode)})
		}
	}
	for _, c := range h.Constraints {
		if c != nil {
			r.Constraints = append(r.Constraints, Constraint{Attribute: c.LTarget, Operator: c.Operand, Value: c.RTarget})
		}
	}
	for _, a := range h.Allocations {
		if a != nil {
			r.Allocations = append(r.Allocations, Allocation{ID: a.ID, Name: a.Name, JobID: a.JobID, ClientStatus: a.ClientStatus})
		}
	}
	return r
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
