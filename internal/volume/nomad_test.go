package volume

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/nomad/api"
)

// The enumerations must spell what Nomad's API spells.
func TestEnumsMatchNomad(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name      string
		got, want []string
	}{
		{"access modes", AccessModes(), []string{
			string(api.HostVolumeAccessModeSingleNodeReader), string(api.HostVolumeAccessModeSingleNodeWriter),
			string(api.HostVolumeAccessModeSingleNodeSingleWriter), string(api.HostVolumeAccessModeSingleNodeMultiWriter)}},
		{"attachment modes", AttachmentModes(), []string{
			string(api.HostVolumeAttachmentModeFilesystem), string(api.HostVolumeAttachmentModeBlockDevice)}},
		{"states", States(), []string{
			string(api.HostVolumeStatePending), string(api.HostVolumeStateReady), string(api.HostVolumeStateUnavailable)}},
	}
	for _, c := range cases {
		if !slices.Equal(c.got, c.want) {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	if !slices.Contains(AccessModes(), DefaultAccessMode) || !slices.Contains(AttachmentModes(), DefaultAttachmentMode) ||
		!slices.Contains(ConstraintOperators(), DefaultConstraintOperator) {
		t.Error("a default is not among its enumeration")
	}
	// The lists are fresh copies: a caller cannot change them for others.
	AccessModes()[0] = "changed"
	if AccessModes()[0] != AccessModeSingleNodeReader {
		t.Error("AccessModes returned a shared slice")
	}
}

func TestFromAPI(t *testing.T) {
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
		want *Volume
	}{
		{"nil", nil, nil},
		{"empty", &api.HostVolume{}, &Volume{}},
		{"nil capability", &api.HostVolume{ID: "x", RequestedCapabilities: []*api.HostVolumeCapability{nil}}, &Volume{ID: "x"}},
		{"full: first capability counts, nil entries skipped", full, &Volume{
			ID: "id1", Name: "data", Namespace: "ns", PluginID: "mkdir", NodeID: "n1", NodePool: "pool",
			CapacityMinBytes: 10, CapacityMaxBytes: 20,
			AccessMode: AccessModeSingleNodeMultiWriter, AttachmentMode: AttachmentModeBlockDevice,
			Constraints: []Constraint{{Attribute: "${attr.kernel.name}", Operator: "=", Value: "linux"}},
			Parameters:  map[string]string{"mode": "0755"},
			HostPath:    "/srv/data", CapacityBytes: 15, State: StateReady,
			Allocations: []Allocation{{ID: "a1", Name: "web[0]", JobID: "web", ClientStatus: "running"}},
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			if got := FromAPI(c.in); !reflect.DeepEqual(got, c.want) {
				t.Errorf("FromAPI = %+v\nwant %+v", got, c.want)
			}
		})
	}
}

func TestToAPI(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		in   Volume
		want *api.HostVolume
	}{
		{"minimal: one capability, no parameters or constraints", Volume{Name: "data", AccessMode: DefaultAccessMode, AttachmentMode: DefaultAttachmentMode},
			&api.HostVolume{Name: "data", RequestedCapabilities: []*api.HostVolumeCapability{{
				AccessMode: api.HostVolumeAccessModeSingleNodeWriter, AttachmentMode: api.HostVolumeAttachmentModeFilesystem}}}},
		{"empty parameters stay empty, not unset", Volume{Parameters: map[string]string{}},
			&api.HostVolume{Parameters: map[string]string{}, RequestedCapabilities: []*api.HostVolumeCapability{{}}}},
		{"full", Volume{
			ID: "id1", Name: "data", Namespace: "ns", PluginID: "p", NodeID: "n1", NodePool: "pool",
			CapacityMinBytes: 1, CapacityMaxBytes: 2, AccessMode: AccessModeSingleNodeReader, AttachmentMode: AttachmentModeBlockDevice,
			Constraints: []Constraint{{Attribute: "a", Operator: "!=", Value: "b"}}, Parameters: map[string]string{"uid": "1"},
			// Reported values are never sent.
			HostPath: "/x", CapacityBytes: 9, State: StateReady, Allocations: []Allocation{{ID: "a"}},
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
			if got := c.in.ToAPI(); !reflect.DeepEqual(got, c.want) {
				t.Errorf("ToAPI = %+v\nwant %+v", got, c.want)
			}
		})
	}
}

// What berth sends comes back the same through FromAPI, and the request
// does not share maps with the volume it came from.
func TestToAPIRoundTrip(t *testing.T) {
	t.Parallel()
	v := Volume{Name: "d", Namespace: "ns", PluginID: DefaultPlugin, CapacityMinBytes: 5, CapacityMaxBytes: 6,
		AccessMode: DefaultAccessMode, AttachmentMode: DefaultAttachmentMode,
		Constraints: []Constraint{{Attribute: "a", Operator: "=", Value: "b"}}, Parameters: map[string]string{"mode": "0700"}}
	req := v.ToAPI()
	if got := FromAPI(req); !reflect.DeepEqual(*got, v) {
		t.Errorf("round trip = %+v, want %+v", *got, v)
	}
	req.Parameters["mode"] = "0777"
	if v.Parameters["mode"] != "0700" {
		t.Error("ToAPI shares the parameters map")
	}
}

func TestSummaryFromAPI(t *testing.T) {
	t.Parallel()
	got := SummaryFromAPI(&api.HostVolumeStub{ID: "i", Name: "n", NodeID: "node", State: api.HostVolumeStatePending})
	if want := (Summary{ID: "i", Name: "n", NodeID: "node", State: StatePending, Type: TypeHost}); got != want {
		t.Errorf("SummaryFromAPI = %+v, want %+v", got, want)
	}
}

func TestLiveAllocations(t *testing.T) {
	t.Parallel()
	v := &Volume{Allocations: []Allocation{
		{ID: "r", Name: "r", ClientStatus: api.AllocClientStatusRunning},
		{ID: "p", Name: "p", ClientStatus: api.AllocClientStatusPending},
		{ID: "u", Name: "u", ClientStatus: api.AllocClientStatusUnknown},
		{ID: "c", Name: "c", ClientStatus: api.AllocClientStatusComplete},
		{ID: "f", Name: "f", ClientStatus: api.AllocClientStatusFailed},
		{ID: "l", Name: "l", ClientStatus: api.AllocClientStatusLost},
	}}
	if got := strings.Join(v.LiveAllocationIDs(), ","); got != "p,r,u" {
		t.Fatalf("live volume allocations = %s, want p,r,u", got)
	}
	if got := (&Volume{}).LiveAllocationIDs(); got == nil || len(got) != 0 {
		t.Fatalf("no allocations = %#v, want an empty non-nil list", got)
	}
}

func TestDescribeAllocations(t *testing.T) {
	t.Parallel()
	got := DescribeAllocations([]Allocation{
		{ID: "a1", Name: "web.app[0]", JobID: "web", ClientStatus: "running"},
		{ID: "a2", Name: "db.app[0]", JobID: "db", ClientStatus: "pending"},
		{ID: "a3", Name: "web.app[1]", JobID: "web", ClientStatus: "unknown"},
	})
	want := `3 allocation(s) of job(s) "db", "web": allocation a1 (web.app[0], job "web", running); ` +
		`allocation a2 (db.app[0], job "db", pending); allocation a3 (web.app[1], job "web", unknown)`
	if got != want {
		t.Errorf("DescribeAllocations =\n%s\nwant\n%s", got, want)
	}
}

func TestSameCapacity(t *testing.T) {
	t.Parallel()
	cases := []struct {
		a, b Volume
		want bool
	}{
		{Volume{CapacityMinBytes: 1, CapacityMaxBytes: 2}, Volume{CapacityMinBytes: 1, CapacityMaxBytes: 2, Name: "other"}, true},
		{Volume{CapacityMinBytes: 1, CapacityMaxBytes: 2}, Volume{CapacityMinBytes: 1, CapacityMaxBytes: 3}, false},
		{Volume{CapacityMinBytes: 1, CapacityMaxBytes: 2}, Volume{CapacityMinBytes: 0, CapacityMaxBytes: 2}, false},
	}
	for i, c := range cases {
		if got := SameCapacity(&c.a, &c.b); got != c.want {
			t.Errorf("case %d: SameCapacity = %v, want %v", i, got, c.want)
		}
	}
}

func TestCSIRegistration_roundTrip(t *testing.T) {
	t.Parallel()
	r := &CSIRegistration{ID: "v", Name: "n", Namespace: "ns", ExternalID: "ext", PluginID: "p",
		Capabilities: []Capability{{AccessMode: AccessModeSingleNodeWriter, AttachmentMode: AttachmentModeFilesystem}},
		MountOptions: &MountOptions{FSType: "ext4", MountFlags: []string{"noatime"}},
		Context:      map[string]string{"c": "1"}, Topologies: []map[string]string{{"rack": "r1"}},
		Secrets: map[string]string{"k": "s"}}
	a := r.ToAPI()
	if a.Secrets["k"] != "s" || a.RequestedTopologies == nil || a.RequestedTopologies.Required[0].Segments["rack"] != "r1" {
		t.Fatalf("ToAPI = %+v", a)
	}
	// What Nomad answers: flags redacted, secrets never returned.
	a.MountOptions.MountFlags, a.Secrets, a.Schedulable = []string{"[REDACTED]"}, nil, true
	back := CSIRegistrationFromAPI(a)
	if !back.MountFlagsRedacted || back.MountOptions.FSType != "ext4" || back.MountOptions.MountFlags != nil ||
		back.State != StateReady || back.Context["c"] != "1" || back.Topologies[0]["rack"] != "r1" || back.Secrets != nil {
		t.Fatalf("CSIRegistrationFromAPI = %+v", back)
	}
}
