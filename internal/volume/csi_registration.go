package volume

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
