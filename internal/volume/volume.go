// Package volume is berth's volume (berth_volume): a dynamic host volume
// or a CSI volume. It holds the settings a user asks for, what Nomad
// reports back and the enumerations Nomad accepts. It knows nothing of
// Terraform nor of Nomad's API types: nomadclient maps those.
package volume

// Volume types: Nomad's dynamic host volumes and CSI volumes.
const (
	TypeHost = "host"
	TypeCSI  = "csi"
)

// Types lists the volume types; the first is the default.
func Types() []string { return []string{TypeHost, TypeCSI} }

// Access modes a CSI volume may be asked for (api.CSIVolumeAccessMode*);
// the single-node ones are shared with host volumes.
const (
	AccessModeMultiNodeReader       = "multi-node-reader-only"
	AccessModeMultiNodeSingleWriter = "multi-node-single-writer"
	AccessModeMultiNodeMultiWriter  = "multi-node-multi-writer"
)

// CSIAccessModes lists the access modes of CSI volumes.
func CSIAccessModes() []string {
	return []string{AccessModeSingleNodeReader, AccessModeSingleNodeWriter,
		AccessModeMultiNodeReader, AccessModeMultiNodeSingleWriter, AccessModeMultiNodeMultiWriter}
}

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

	// Type is TypeHost ("" means host) or TypeCSI. The fields below are
	// CSI only. A CSI volume's ID is its name: Nomad wants the ID chosen
	// by whoever creates it, and berth looks volumes up by name.
	Type         string
	Capabilities []Capability
	MountOptions *MountOptions
	// Secrets go to the plugin with the create request; Nomad never
	// returns them, and berth never stores them.
	Secrets map[string]string

	// Reported by Nomad.
	HostPath      string
	CapacityBytes int64
	State         string
	Allocations   []Allocation
	// ExternalID is the plugin's ID for a CSI volume; Claims counts the
	// claims Nomad still holds on it (released a little after the
	// allocations stop).
	ExternalID string
	Claims     int
}

// IsCSI reports whether v is a CSI volume.
func (v *Volume) IsCSI() bool { return v.Type == TypeCSI }

// Kind names the volume's type in messages: "host volume" or "CSI volume".
func (v *Volume) Kind() string {
	if v.IsCSI() {
		return "CSI volume"
	}
	return "host volume"
}

// Capability is one way a CSI volume may be used.
type Capability struct {
	AccessMode     string
	AttachmentMode string
}

// MountOptions are how a CSI plugin mounts a file-system volume.
type MountOptions struct {
	FSType     string
	MountFlags []string
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
	// Type is TypeHost or TypeCSI.
	Type string
}

// SameCapacity reports whether a and b ask for the same capacity.
func SameCapacity(a, b *Volume) bool {
	return a.CapacityMinBytes == b.CapacityMinBytes && a.CapacityMaxBytes == b.CapacityMaxBytes
}
