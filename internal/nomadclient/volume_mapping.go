package nomadclient

import (
	"maps"
	"slices"

	"github.com/hashicorp/nomad/api"

	"github.com/berthhq/terraform-provider-berth/internal/volume"
)

// Nomad's host and CSI volumes and berth's (internal/volume), both ways.
// The mapping lives here so no package above or beside nomadclient holds
// a Nomad API type.

// hostVolumeToAPI builds the Nomad create (or, with an ID, update) request.
func hostVolumeToAPI(v *volume.Volume) *api.HostVolume {
	out := &api.HostVolume{
		ID: v.ID, Name: v.Name, Namespace: v.Namespace, PluginID: v.PluginID,
		NodeID: v.NodeID, NodePool: v.NodePool,
		RequestedCapacityMinBytes: v.CapacityMinBytes, RequestedCapacityMaxBytes: v.CapacityMaxBytes,
		RequestedCapabilities: []*api.HostVolumeCapability{{
			AccessMode:     api.HostVolumeAccessMode(v.AccessMode),
			AttachmentMode: api.HostVolumeAttachmentMode(v.AttachmentMode),
		}},
	}
	out.Parameters = maps.Clone(v.Parameters)
	for _, c := range v.Constraints {
		out.Constraints = append(out.Constraints, &api.Constraint{LTarget: c.Attribute, Operand: c.Operator, RTarget: c.Value})
	}
	return out
}

// hostVolumeFromAPI reads what Nomad reports; nil for nil. Only the first requested
// capability counts: berth asks for exactly one.
func hostVolumeFromAPI(h *api.HostVolume) *volume.Volume {
	if h == nil {
		return nil
	}
	v := &volume.Volume{
		ID: h.ID, Name: h.Name, Namespace: h.Namespace, PluginID: h.PluginID,
		NodeID: h.NodeID, NodePool: h.NodePool,
		CapacityMinBytes: h.RequestedCapacityMinBytes, CapacityMaxBytes: h.RequestedCapacityMaxBytes,
		HostPath: h.HostPath, CapacityBytes: h.CapacityBytes, State: string(h.State),
	}
	if len(h.RequestedCapabilities) > 0 && h.RequestedCapabilities[0] != nil {
		v.AccessMode = string(h.RequestedCapabilities[0].AccessMode)
		v.AttachmentMode = string(h.RequestedCapabilities[0].AttachmentMode)
	}
	v.Parameters = maps.Clone(h.Parameters)
	for _, c := range h.Constraints {
		if c != nil {
			v.Constraints = append(v.Constraints, volume.Constraint{Attribute: c.LTarget, Operator: c.Operand, Value: c.RTarget})
		}
	}
	for _, a := range h.Allocations {
		if a != nil {
			v.Allocations = append(v.Allocations, volume.Allocation{ID: a.ID, Name: a.Name, JobID: a.JobID, ClientStatus: a.ClientStatus})
		}
	}
	return v
}

// hostVolumeSummary reads a listed volume.
func hostVolumeSummary(s *api.HostVolumeStub) volume.Summary {
	return volume.Summary{Namespace: s.Namespace, ID: s.ID, Name: s.Name, NodeID: s.NodeID, State: string(s.State), Type: volume.TypeHost}
}

// csiVolumeToAPI builds Nomad's CSI create request for v. Its ID is its name.
func csiVolumeToAPI(v *volume.Volume) *api.CSIVolume {
	out := &api.CSIVolume{
		ID: v.Name, Name: v.Name, Namespace: v.Namespace, PluginID: v.PluginID,
		RequestedCapacityMin: v.CapacityMinBytes, RequestedCapacityMax: v.CapacityMaxBytes,
		Parameters: maps.Clone(v.Parameters), Secrets: maps.Clone(v.Secrets),
	}
	for _, c := range v.Capabilities {
		out.RequestedCapabilities = append(out.RequestedCapabilities, &api.CSIVolumeCapability{
			AccessMode: api.CSIVolumeAccessMode(c.AccessMode), AttachmentMode: api.CSIVolumeAttachmentMode(c.AttachmentMode),
		})
	}
	if o := v.MountOptions; o != nil {
		out.MountOptions = &api.CSIMountOptions{FSType: o.FSType, MountFlags: slices.Clone(o.MountFlags)}
	}
	return out
}

// csiVolumeFromAPI reads a CSI volume as Nomad reports it; nil for nil. Nomad
// redacts secrets and mount flags, so neither is read back. A schedulable
// volume is StateReady, any other StateUnavailable.
func csiVolumeFromAPI(c *api.CSIVolume) *volume.Volume {
	if c == nil {
		return nil
	}
	v := &volume.Volume{
		Type: volume.TypeCSI, ID: c.ID, Name: c.Name, Namespace: c.Namespace, PluginID: c.PluginID,
		CapacityMinBytes: c.RequestedCapacityMin, CapacityMaxBytes: c.RequestedCapacityMax,
		CapacityBytes: c.Capacity, ExternalID: c.ExternalID, State: volume.StateUnavailable,
		Parameters: maps.Clone(c.Parameters), Claims: len(c.ReadAllocs) + len(c.WriteAllocs),
	}
	if c.Schedulable {
		v.State = volume.StateReady
	}
	for _, cp := range c.RequestedCapabilities {
		if cp != nil {
			v.Capabilities = append(v.Capabilities, volume.Capability{AccessMode: string(cp.AccessMode), AttachmentMode: string(cp.AttachmentMode)})
		}
	}
	if len(v.Capabilities) > 0 {
		v.AccessMode, v.AttachmentMode = v.Capabilities[0].AccessMode, v.Capabilities[0].AttachmentMode
	}
	if o := c.MountOptions; o != nil {
		v.MountOptions = &volume.MountOptions{FSType: o.FSType}
	}
	for _, a := range c.Allocations {
		if a != nil {
			v.Allocations = append(v.Allocations, volume.Allocation{ID: a.ID, Name: a.Name, JobID: a.JobID, ClientStatus: a.ClientStatus})
		}
	}
	return v
}

// csiVolumeSummary reads a CSI volume as Nomad lists it: ready while
// schedulable, as csiVolumeFromAPI.
func csiVolumeSummary(s *api.CSIVolumeListStub) volume.Summary {
	state := volume.StateUnavailable
	if s.Schedulable {
		state = volume.StateReady
	}
	return volume.Summary{Namespace: s.Namespace, ID: s.ID, Name: s.Name, State: state, Type: volume.TypeCSI}
}

// csiRegistrationToAPI builds Nomad's registration request for r.
func csiRegistrationToAPI(r *volume.CSIRegistration) *api.CSIVolume {
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

// csiRegistrationFromAPI reads a registered CSI volume; nil for nil.
func csiRegistrationFromAPI(c *api.CSIVolume) *volume.CSIRegistration {
	if c == nil {
		return nil
	}
	r := &volume.CSIRegistration{
		ID: c.ID, Name: c.Name, Namespace: c.Namespace, ExternalID: c.ExternalID, PluginID: c.PluginID,
		CapacityMinBytes: c.RequestedCapacityMin, CapacityMaxBytes: c.RequestedCapacityMax,
		Parameters: maps.Clone(c.Parameters), Context: maps.Clone(c.Context),
		CapacityBytes: c.Capacity, State: volume.StateUnavailable, ModifyIndex: c.ModifyIndex,
	}
	if c.Schedulable {
		r.State = volume.StateReady
	}
	for _, cp := range c.RequestedCapabilities {
		if cp != nil {
			r.Capabilities = append(r.Capabilities, volume.Capability{AccessMode: string(cp.AccessMode), AttachmentMode: string(cp.AttachmentMode)})
		}
	}
	if o := c.MountOptions; o != nil && (o.FSType != "" || len(o.MountFlags) > 0) {
		r.MountOptions = &volume.MountOptions{FSType: o.FSType}
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
			r.Allocations = append(r.Allocations, volume.Allocation{ID: a.ID, Name: a.Name, JobID: a.JobID, ClientStatus: a.ClientStatus})
		}
	}
	return r
}

// hostRegistrationToAPI builds Nomad's registration request for r (an update when r has
// an ID).
func hostRegistrationToAPI(r *volume.HostRegistration) *api.HostVolume {
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

// hostRegistrationFromAPI reads a host volume as a registration; nil for nil.
func hostRegistrationFromAPI(h *api.HostVolume) *volume.HostRegistration {
	if h == nil {
		return nil
	}
	r := &volume.HostRegistration{
		ID: h.ID, Name: h.Name, Namespace: h.Namespace, NodeID: h.NodeID, HostPath: h.HostPath,
		CapacityBytes: h.CapacityBytes, CapacityMinBytes: h.RequestedCapacityMinBytes, CapacityMaxBytes: h.RequestedCapacityMaxBytes,
		Parameters: maps.Clone(h.Parameters),
		PluginID:   h.PluginID, NodePool: h.NodePool, State: string(h.State), ModifyIndex: h.ModifyIndex,
	}
	for _, c := range h.RequestedCapabilities {
		if c != nil {
			r.Capabilities = append(r.Capabilities, volume.Capability{AccessMode: string(c.AccessMode), AttachmentMode: string(c.AttachmentMode)})
		}
	}
	for _, c := range h.Constraints {
		if c != nil {
			r.Constraints = append(r.Constraints, volume.Constraint{Attribute: c.LTarget, Operator: c.Operand, Value: c.RTarget})
		}
	}
	for _, a := range h.Allocations {
		if a != nil {
			r.Allocations = append(r.Allocations, volume.Allocation{ID: a.ID, Name: a.Name, JobID: a.JobID, ClientStatus: a.ClientStatus})
		}
	}
	return r
}
