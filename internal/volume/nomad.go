package volume

import (
	"fmt"
	"maps"
	"sort"
	"strings"

	"github.com/hashicorp/nomad/api"

	"github.com/berthhq/terraform-provider-berth/internal/allocstatus"
)

// ToAPI builds the Nomad create (or, with an ID, update) request.
func (v *Volume) ToAPI() *api.HostVolume {
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

// FromAPI reads what Nomad reports; nil for nil. Only the first requested
// capability counts: berth asks for exactly one.
func FromAPI(h *api.HostVolume) *Volume {
	if h == nil {
		return nil
	}
	v := &Volume{
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
			v.Constraints = append(v.Constraints, Constraint{Attribute: c.LTarget, Operator: c.Operand, Value: c.RTarget})
		}
	}
	for _, a := range h.Allocations {
		if a != nil {
			v.Allocations = append(v.Allocations, Allocation{ID: a.ID, Name: a.Name, JobID: a.JobID, ClientStatus: a.ClientStatus})
		}
	}
	return v
}

// SummaryFromAPI reads a listed volume.
func SummaryFromAPI(s *api.HostVolumeStub) Summary {
	return Summary{Namespace: s.Namespace, ID: s.ID, Name: s.Name, NodeID: s.NodeID, State: string(s.State), Type: TypeHost}
}

// LiveAllocations returns the allocations using the volume that may still
// run (allocstatus.Live), by name.
func (v *Volume) LiveAllocations() []Allocation {
	var out []Allocation
	for _, a := range v.Allocations {
		if allocstatus.Live(a.ClientStatus) {
			out = append(out, a)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// LiveAllocationIDs is LiveAllocations as IDs (never nil).
func (v *Volume) LiveAllocationIDs() []string {
	ids := []string{}
	for _, a := range v.LiveAllocations() {
		ids = append(ids, a.ID)
	}
	return ids
}

// DescribeAllocations names allocations and their jobs for an error
// message, e.g. why a volume cannot be deleted.
func DescribeAllocations(allocs []Allocation) string {
	jobs := map[string]bool{}
	var parts []string
	for _, a := range allocs {
		jobs[a.JobID] = true
		parts = append(parts, fmt.Sprintf("allocation %s (%s, job %q, %s)", a.ID, a.Name, a.JobID, a.ClientStatus))
	}
	names := make([]string, 0, len(jobs))
	for j := range jobs {
		names = append(names, fmt.Sprintf("%q", j))
	}
	sort.Strings(names)
	return fmt.Sprintf("%d allocation(s) of job(s) %s: %s", len(allocs), strings.Join(names, ", "), strings.Join(parts, "; "))
}
