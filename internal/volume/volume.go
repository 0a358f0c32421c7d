// Package volume is berth's dynamic host volume (berth_volume): the
// settings a user asks for, what Nomad reports back, the enumerations
// Nomad accepts, and the mapping to and from Nomad's api.HostVolume.
// It knows nothing of Terraform.
package volume

// Access modes Nomad accepts for host volumes and claims on them
// (nomad/structs/host_volumes.go HostVolumeAccessMode*).
const (
	AccessModeSingleNodeReader       = "single-node-reader-only"
	AccessModeSingleNodeWriter       = "single-node-writer"
	AccessModeSingleNodeSingleWriter = "single-node-single-writer"
	AccessModeSingleNodeMultiWriter  = "single-node-multi-writer"
)

// Attachment modes (nomad/structs/host_volumes.go HostVolumeAttachmentMode*).
const (
	AttachmentModeFilesystem  = "file-system"
	AttachmentModeBlockDevice = "block-device"
)

// States Nomad reports (nomad/structs/host_volumes.go HostVolumeState*).
const (
	StatePending     = "pending"
	StateReady       = "ready"
	StateUnavailable = "unavailable"
)

const (
	// DefaultPlugin is Nomad's built-in plugin, used when none is named.
	DefaultPlugin = "mkdir"
	// DefaultAccessMode and DefaultAttachmentMode are what a volume asks
	// for when the user names none.
	DefaultAccessMode     = AccessModeSingleNodeWriter
	DefaultAttachmentMode = AttachmentModeFilesystem
	// DefaultConstraintOperator is Nomad's operator when none is given.
	DefaultConstraintOperator = "="
)

// AccessModes lists the access modes, in the order docs show them.
func AccessModes() []string {
	return []string{AccessModeSingleNodeReader, AccessModeSingleNodeWriter,
		AccessModeSingleNodeSingleWriter, AccessModeSingleNodeMultiWriter}
}

// AttachmentModes lists the attachment modes.
func AttachmentModes() []string { return []string{AttachmentModeFilesystem, AttachmentModeBlockDevice} }

// States lists the states a volume can be in.
func States() []string { return []string{StatePending, StateReady, StateUnavailable} }

// ConstraintOperators lists the placement constraint operators Nomad
// accepts (as in a job's constraint block).
func ConstraintOperators() []string {
	return []string{"=", "!=", ">", ">=", "<", "<=", "distinct_hosts", "distinct_property", "regexp",
		"set_contains", "set_contains_all", "set_contains_any", "version", "semver", "is_set", "is_not_set"}
}

// MkdirParameters are the only parameters the built-in mkdir plugin
// understands; Nomad rejects others.
func MkdirParameters() []string { return []string{"mode", "uid", "gid"} }

// Volume is one dynamic host volume. The first group is what the user
// asks for; the second is what Nomad reports and nobody sets.
type Volume struct {
	ID               string
	Name             string
	Namespace        string
	PluginID         string
	NodeID           string
	NodePool         string
	CapacityMinBytes int64
	CapacityMaxBytes int64
	AccessMode       string
	AttachmentMode   string
	Constraints      []Constraint
	Parameters       map[string]string

	// Reported by Nomad.
	HostPath      string
	CapacityBytes int64
	State         string
	Allocations   []Allocation
}

// Constraint is one placement constraint.
type Constraint struct {
	Attribute string
	Operator  string
	Value     string
}

// Allocation is an allocation that claims the volume.
type Allocation struct {
	ID           string
	Name         string
	JobID        string
	ClientStatus string
}

// Summary is a volume as Nomad lists it.
type Summary struct {
	Namespace string
	ID        string
	Name      string
	NodeID    string
	State     string
}

// SameCapacity reports whether a and b ask for the same capacity.
func SameCapacity(a, b *Volume) bool {
	return a.CapacityMinBytes == b.CapacityMinBytes && a.CapacityMaxBytes == b.CapacityMaxBytes
}
