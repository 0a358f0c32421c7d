package volume

import (
	"maps"
	"slices"

	"github.com/hashicorp/nomad/api"
)

// ToCSIAPI builds Nomad's CSI create request for v. Its ID is its name.
func (v *Volume) ToCSIAPI() *api.CSIVolume {
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

// CSIFromAPI reads a CSI volume as Nomad reports it; nil for nil. Nomad
// redacts secrets and mount flags, so neither is read back. A schedulable
// volume is StateReady, any other StateUnavailable.
func CSIFromAPI(c *api.CSIVolume) *Volume {
	if c == nil {
		return nil
	}
	v := &Volume{
		Type: TypeCSI, ID: c.ID, Name: c.Name, Namespace: c.Namespace, PluginID: c.PluginID,
		CapacityMinBytes: c.RequestedCapacityMin, CapacityMaxBytes: c.RequestedCapacityMax,
		CapacityBytes: c.Capacity, ExternalID: c.ExternalID, State: StateUnavailable,
		Parameters: maps.Clone(c.Parameters), Claims: len(c.ReadAllocs) + len(c.WriteAllocs),
	}
	if c.Schedulable {
		v.State = StateReady
	}
	for _, cp := range c.RequestedCapabilities {
		if cp != nil {
			v.Capabilities = append(v.Capabilities, Capability{AccessMode: string(cp.AccessMode), AttachmentMode: string(cp.AttachmentMode)})
		}
	}
	if len(v.Capabilities) > 0 {
		v.AccessMode, v.AttachmentMode = v.Capabilities[0].AccessMode, v.Capabilities[0].AttachmentMode
	}
	if o := c.MountOptions; o != nil {
		v.MountOptions = &MountOptions{FSType: o.FSType}
	}
	for _, a := range c.Allocations {
		if a != nil {
			v.Allocations = append(v.Allocations, Allocation{ID: a.ID, Name: a.Name, JobID: a.JobID, ClientStatus: a.ClientStatus})
		}
	}
	return v
}
