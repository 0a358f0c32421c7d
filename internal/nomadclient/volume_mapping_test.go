package nomadclient

import (
	"reflect"
	"slices"
	"testing"

	"github.com/hashicorp/nomad/api"

	"github.com/berthhq/terraform-provider-berth/internal/volume"
)

// The enumerations must spell what Nomad's API spells.
func TestVolumeEnumsMatchNomad(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name      string
		got, want []string
	}{
		{"access modes", volume.AccessModes(), []string{
			string(api.HostVolumeAccessModeSingleNodeReader), string(api.HostVolumeAccessModeSingleNodeWriter),
			string(api.HostVolumeAccessModeSingleNodeSingleWriter), string(api.HostVolumeAccessModeSingleNodeMultiWriter)}},
		{"attachment modes", volume.AttachmentModes(), []string{
			string(api.HostVolumeAttachmentModeFilesystem), string(api.HostVolumeAttachmentModeBlockDevice)}},
		{"states", volume.States(), []string{
			string(api.HostVolumeStatePending), string(api.HostVolumeStateReady), string(api.HostVolumeStateUnavailable)}},
	}
	for _, c := range cases {
		if !slices.Equal(c.got, c.want) {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	if !slices.Contains(volume.AccessModes(), volume.DefaultAccessMode) || !slices.Contains(volume.AttachmentModes(), volume.DefaultAttachmentMode) ||
		!slices.Contains(volume.ConstraintOperators(), volume.DefaultConstraintOperator) {
		t.Error("a default is not among its enumeration")
	}
	// The lists are fresh copies: a caller cannot change them for others.
	volume.AccessModes()[0] = "changed"
	if volume.AccessModes()[0] != volume.AccessModeSingleNodeReader {
		t.Error("AccessModes returned a shared slice")
	}
}

func TestHostVolumeFromAPI(t *testing.T) {
	t.Parallel()
	full := &api.HostVolume{
		ID: "id1", Name: "data", Namespace: "ns", PluginID: "mkdir", NodeID: "n1", NodePool: "pool",
		RequestedCapacityMinBytes: 10, RequestedCapacityMaxBytes: 20,
		RequestedCapabilities: []*api.HostVolumeCapability{
			{AccessMode: api.HostVolumeAccessModeSingleNodeMultiWriter, AttachmentMode: api.HostVolumeAttachmentModeBlockDevice},
			{AccessMode: api.HostVolumeAccessModeSingleNodeReader, AttachmentMode: api.HostVolumeAttachmentModeFilesystem},
		},
		Constraints: []*api.Constraint{{LTarget: "${attr.kernel.name}", Operand: "=", RTarget: "linux"}, nil},
		Parameters:  map[string]string{"mode": "0755"},
		HostPath:    "/srv/data", CapacityBytes: 15, State: api.HostVolumeStateReady,
		Allocations: []*api.AllocationListStub{{ID: "a1", Name: "web[0]", JobID: "web", ClientStatus: "running"}, nil},
	}
	cases := []struct {
		name string
		in   *api.HostVolume
		want *volume.Volume
	}{
		{"nil", nil, nil},
		{"empty", &api.HostVolume{}, &volume.Volume{}},
		{"nil capability", &api.HostVolume{ID: "x", RequestedCapabilities: []*api.HostVolumeCapability{nil}}, &volume.Volume{ID: "x"}},
		{"full: first capability counts, nil entries skipped", full, &volume.Volume{
			ID: "id1", Name: "data", Namespace: "ns", PluginID: "mkdir", NodeID: "n1", NodePool: "pool",
			CapacityMinBytes: 10, CapacityMaxBytes: 20,
			AccessMode: volume.AccessModeSingleNodeMultiWriter, AttachmentMode: volume.AttachmentModeBlockDevice,
			Constraints: []volume.Constraint{{Attribute: "${attr.kernel.name}", Operator: "=", Value: "linux"}},
			Parameters:  map[string]string{"mode": "0755"},
			HostPath:    "/srv/data", CapacityBytes: 15, State: volume.StateReady,
			Allocations: []volume.Allocation{{ID: "a1", Name: "web[0]", JobID: "web", ClientStatus: "running"}},
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			if got := hostVolumeFromAPI(c.in); !reflect.DeepEqual(got, c.want) {
				t.Errorf("hostVolumeFromAPI = %+v\nwant %+v", got, c.want)
			}
		})
	}
}

func TestHostVolumeToAPI(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		in   volume.Volume
		want *api.HostVolume
	}{
		{"minimal: one capability, no parameters or constraints", volume.Volume{Name: "data", AccessMode: volume.DefaultAccessMode, AttachmentMode: volume.DefaultAttachmentMode},
			&api.HostVolume{Name: "data", RequestedCapabilities: []*api.HostVolumeCapability{{
				AccessMode: api.HostVolumeAccessModeSingleNodeWriter, AttachmentMode: api.HostVolumeAttachmentModeFilesystem}}}},
		{"empty parameters stay empty, not unset", volume.Volume{Parameters: map[string]string{}},
			&api.HostVolume{Parameters: map[string]string{}, RequestedCapabilities: []*api.HostVolumeCapability{{}}}},
		{"full", volume.Volume{
			ID: "id1", Name: "data", Namespace: "ns", PluginID: "p", NodeID: "n1", NodePool: "pool",
			CapacityMinBytes: 1, CapacityMaxBytes: 2, AccessMode: volume.AccessModeSingleNodeReader, AttachmentMode: volume.AttachmentModeBlockDevice,
			Constraints: []volume.Constraint{{Attribute: "a", Operator: "!=", Value: "b"}}, Parameters: map[string]string{"uid": "1"},
			// Reported values are never sent.
			HostPath: "/x", CapacityBytes: 9, State: volume.StateReady, Allocations: []volume.Allocation{{ID: "a"}},
		}, &api.HostVolume{
			ID: "id1", Name: "data", Namespace: "ns", PluginID: "p", NodeID: "n1", NodePool: "pool",
			RequestedCapacityMinBytes: 1, RequestedCapacityMaxBytes: 2,
			RequestedCapabilities: []*api.HostVolumeCapability{{
				AccessMode: api.HostVolumeAccessModeSingleNodeReader, AttachmentMode: api.HostVolumeAttachmentModeBlockDevice}},
			Constraints: []*api.Constraint{{LTarget: "a", Operand: "!=", RTarget: "b"}}, Parameters: map[string]string{"uid": "1"},
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			if got := hostVolumeToAPI(&c.in); !reflect.DeepEqual(got, c.want) {
				t.Errorf("ToAPI = %+v\nwant %+v", got, c.want)
			}
		})
	}
}

// What berth sends comes back the same through hostVolumeFromAPI, and the request
// does not share maps with the volume it came from.
func TestHostVolumeToAPIRoundTrip(t *testing.T) {
	t.Parallel()
	v := volume.Volume{Name: "d", Namespace: "ns", PluginID: volume.DefaultPlugin, CapacityMinBytes: 5, CapacityMaxBytes: 6,
		AccessMode: volume.DefaultAccessMode, AttachmentMode: volume.DefaultAttachmentMode,
		Constraints: []volume.Constraint{{Attribute: "a", Operator: "=", Value: "b"}}, Parameters: map[string]string{"mode": "0700"}}
	req := hostVolumeToAPI(&v)
	if got := hostVolumeFromAPI(req); !reflect.DeepEqual(*got, v) {
		t.Errorf("round trip = %+v, want %+v", *got, v)
	}
	req.Parameters["mode"] = "0777"
	if v.Parameters["mode"] != "0700" {
		t.Error("ToAPI shares the parameters map")
	}
}

func TestHostVolumeSummary(t *testing.T) {
	t.Parallel()
	got := hostVolumeSummary(&api.HostVolumeStub{ID: "i", Name: "n", NodeID: "node", State: api.HostVolumeStatePending})
	if want := (volume.Summary{ID: "i", Name: "n", NodeID: "node", State: volume.StatePending, Type: volume.TypeHost}); got != want {
		t.Errorf("hostVolumeSummary = %+v, want %+v", got, want)
	}
}

func TestCSIRegistration_roundTrip(t *testing.T) {
	t.Parallel()
	r := &volume.CSIRegistration{ID: "v", Name: "n", Namespace: "ns", ExternalID: "ext", PluginID: "p",
		Capabilities: []volume.Capability{{AccessMode: volume.AccessModeSingleNodeWriter, AttachmentMode: volume.AttachmentModeFilesystem}},
		MountOptions: &volume.MountOptions{FSType: "ext4", MountFlags: []string{"noatime"}},
		Context:      map[string]string{"c": "1"}, Topologies: []map[string]string{{"rack": "r1"}},
		Secrets: map[string]string{"k": "s"}}
	a := csiRegistrationToAPI(r)
	if a.Secrets["k"] != "s" || a.RequestedTopologies == nil || a.RequestedTopologies.Required[0].Segments["rack"] != "r1" {
		t.Fatalf("ToAPI = %+v", a)
	}
	// What Nomad answers: flags redacted, secrets never returned.
	a.MountOptions.MountFlags, a.Secrets, a.Schedulable = []string{"[REDACTED]"}, nil, true
	back := csiRegistrationFromAPI(a)
	if !back.MountFlagsRedacted || back.MountOptions.FSType != "ext4" || back.MountOptions.MountFlags != nil ||
		back.State != volume.StateReady || back.Context["c"] != "1" || back.Topologies[0]["rack"] != "r1" || back.Secrets != nil {
		t.Fatalf("csiRegistrationFromAPI = %+v", back)
	}
}

// Every field berth sends comes back from Nomad's answer unchanged, and
// berth never sends a plugin (Nomad's delete would run it).
func TestHostRegistration_roundTrip(t *testing.T) {
	t.Parallel()
	r := &volume.HostRegistration{ID: "0b6c6a4e-0000-4000-8000-000000000001", Name: "n", Namespace: "ns", NodeID: "node", HostPath: "/srv/data",
		CapacityBytes: 3, CapacityMinBytes: 1, CapacityMaxBytes: 4,
		Capabilities: []volume.Capability{{AccessMode: volume.AccessModeSingleNodeWriter, AttachmentMode: volume.AttachmentModeFilesystem}},
		Parameters:   map[string]string{"p": "1"},
		Constraints:  []volume.Constraint{{Attribute: "${attr.kernel.name}", Operator: "=", Value: "linux"}}}
	a := hostRegistrationToAPI(r)
	if a.PluginID != "" || a.NodePool != "" {
		t.Fatalf("ToAPI sends plugin %q, node pool %q", a.PluginID, a.NodePool)
	}
	a.NodePool, a.State = "default", "ready"
	back := hostRegistrationFromAPI(a)
	want := *r
	want.NodePool, want.State = "default", volume.StateReady
	if !reflect.DeepEqual(*back, want) {
		t.Fatalf("hostRegistrationFromAPI(ToAPI()) = %+v\nwant %+v", *back, want)
	}
	if hostRegistrationFromAPI(nil) != nil {
		t.Fatal("nil in, not nil out")
	}
}

// A CSI volume comes back from Nomad's answer as berth sent it, less what
// Nomad hides (secrets, mount flags) and plus what it reports.
func TestCSIVolume_roundTrip(t *testing.T) {
	t.Parallel()
	v := &volume.Volume{Type: volume.TypeCSI, ID: "data", Name: "data", Namespace: "ns", PluginID: "csi-plug",
		CapacityMinBytes: 1, CapacityMaxBytes: 2, Parameters: map[string]string{"p": "1"}, Secrets: map[string]string{"k": "s"},
		Capabilities: []volume.Capability{
			{AccessMode: volume.AccessModeSingleNodeWriter, AttachmentMode: volume.AttachmentModeFilesystem},
			{AccessMode: volume.AccessModeMultiNodeReader, AttachmentMode: volume.AttachmentModeFilesystem}},
		AccessMode: volume.AccessModeSingleNodeWriter, AttachmentMode: volume.AttachmentModeFilesystem,
		MountOptions: &volume.MountOptions{FSType: "ext4", MountFlags: []string{"noatime"}}}
	a := csiVolumeToAPI(v)
	if a.ID != "data" || a.Secrets["k"] != "s" || len(a.RequestedCapabilities) != 2 || a.MountOptions.MountFlags[0] != "noatime" {
		t.Fatalf("csiVolumeToAPI = %+v", a)
	}
	// What Nomad answers: secrets never returned, flags redacted.
	a.Secrets, a.Schedulable, a.ExternalID = nil, true, "ext-1"
	a.MountOptions.MountFlags = []string{"[REDACTED]"}
	want := *v
	want.Secrets, want.State, want.ExternalID = nil, volume.StateReady, "ext-1"
	want.MountOptions = &volume.MountOptions{FSType: "ext4"}
	if got := csiVolumeFromAPI(a); !reflect.DeepEqual(*got, want) {
		t.Fatalf("csiVolumeFromAPI = %+v\nwant %+v", *got, want)
	}
}
