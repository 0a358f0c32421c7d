package volume

import (
	"maps"
	"slices"

	"github.com/hashicorp/nomad/api"
)

// CSIRegistration is a CSI volume that exists outside Nomad, registered
// (not created) under an ID its owner chooses: Nomad only records it, and
// deregistering it leaves the volume and its data where they are. The
// first group is what the user asks for; the second is what Nomad reports.
type CSIRegistration struct {
	ID, Name, Namespace, ExternalID, PluginID string
	CapacityMinBytes, CapacityMaxBytes        int64
	Capabilities                              []Capability
	MountOptions                              *MountOptions
	Parameters, Context                       map[string]string
	// Topologies are the required topologies: where the volume can be
	// reached, each a map of segments.
	Topologies []map[string]string
	// Secrets go with every registration request (Nomad replaces the
	// stored set with each); Nomad never returns their values.
	Secrets map[string]string

	// Reported by Nomad.
	CapacityBytes int64
	State         string
	Allocations   []Allocation
	// MountFlagsRedacted says Nomad holds mount flags it hides. (It
	// hides even whether it holds secrets.)
	MountFlagsRedacted bool
	ModifyIndex        uint64
}

// ToAPI builds Nomad's registration request for r.
func (r *CSIRegistration) ToAPI() *api.CSIVolume {
	out := &api.CSIVolume{
		ID: r.ID, Name: r.Name, Namespace: r.Namespace, ExternalID: r.ExternalID, PluginID: r.PluginID,
		RequestedCapacityMin: r.CapacityMinBytes, RequestedCapacityMax: r.CapacityMaxBytes,
		Parameters: maps.Clone(r.Parameters), Context: maps.Clone(r.Context), Secrets: maps.Clone(r.Secrets),
	}
	for _, c := range r.Capabilities {
		out.RequestedCapabilities = append(out.RequestedCapabilities, &api.CSIVolumeCapability{
			AccessMode: api.CSIVolumeAccessMode(c.AccessMode), AttachmentMode: api.CSIVolumeAttachmentMode(c.AttachmentMode),
		})
	}
	if o := r.MountOptions; o != nil {
		out.MountOptions = &api.CSIMountOptions{FSType: o.FSType, MountFlags: slices.Clone(o.MountFlags)}
	}
	if len(r.Topologies) > 0 {
		out.RequestedTopologies = &api.CSITopologyRequest{}
		for _, segs := range r.Topologies {
			out.RequestedTopologies.Required = append(out.RequestedTopologies.Required, &api.CSITopology{Segments: maps.Clone(segs)})
		}
	}
	return out
}

// CSIRegistrationFromAPI reads a registered CSI volume; nil for nil.
func CSIRegistrationFromAPI(c *api.CSIVolume) *CSIRegistration {
	if c == nil {
		return nil
	}
	r := &CSIRegistration{
		ID: c.ID, Name: c.Name, Namespace: c.Namespace, ExternalID: c.ExternalID, PluginID: c.PluginID,
		CapacityMinBytes: c.RequestedCapacityMin, CapacityMaxBytes: c.RequestedCapacityMax,
		Parameters: maps.Clone(c.Parameters), Context: maps.Clone(c.Context),
		CapacityBytes: c.Capacity, State: StateUnavailable, ModifyIndex: c.ModifyIndex,
	}
	if c.Schedulable {
		r.State = StateReady
	}
	for _, cp := range c.RequestedCapabilities {
		if cp != nil {
			r.Capabilities = append(r.Capabilities, Capability{AccessMode: string(cp.AccessMode), AttachmentMode: string(cp.AttachmentMode)})
		}
	}
	if o := c.MountOptions; o != nil && (o.FSType != "" || len(o.MountFlags) > 0) {
		r.MountOptions = &MountOptions{FSType: o.FSType}
		r.MountFlagsRedacted = len(o.MountFlags) > 0
	}
	if c.RequestedTopologies != nil {
		for _, t := range c.RequestedTopologies.Required {
			if t != nil {
				r.Topologies = append(r.Topologies, maps.Clone(t.Segments))
			}
		}
	}
	for _, a := range c.Allocations {
		if a != nil {
			r.Allocations = append(r.Allocations, Allocation{ID: a.ID, Name: a.Name, JobID: a.JobID, ClientStatus: a.ClientStatus})
		}
	}
	return r
}

// LiveAllocationIDs lists the allocations using the volume that may still
// run, by name (never nil).
func (r *CSIRegistration) LiveAllocationIDs() []string {
	return (&Volume{Allocations: r.Allocations}).LiveAllocationIDs()
}

// SecretValues lists the values of r's secrets for masking, as
// Volume.SecretValues.
func (r *CSIRegistration) SecretValues() []string {
	return (&Volume{Secrets: r.Secrets}).SecretValues()
}
