package volume

import (
	"reflect"
	"testing"
)

// Every field berth sends comes back from Nomad's answer unchanged, and
// berth never sends a plugin (Nomad's delete would run it).
func TestHostRegistration_roundTrip(t *testing.T) {
	t.Parallel()
	r := &HostRegistration{ID: "0b6c6a4e-0000-4000-8000-000000000001", Name: "n", Namespace: "ns", NodeID: "node", HostPath: "/srv/data",
		CapacityBytes: 3, CapacityMinBytes: 1, CapacityMaxBytes: 4,
		Capabilities: []Capability{{AccessMode: AccessModeSingleNodeWriter, AttachmentMode: AttachmentModeFilesystem}},
		Parameters:   map[string]string{"p": "1"},
		Constraints:  []Constraint{{Attribute: "${attr.kernel.name}", Operator: "=", Value: "linux"}}}
	a := r.ToAPI()
	if a.PluginID != "" || a.NodePool != "" {
		t.Fatalf("ToAPI sends plugin %q, node pool %q", a.PluginID, a.NodePool)
	}
	a.NodePool, a.State = "default", "ready"
	back := HostRegistrationFromAPI(a)
	want := *r
	want.NodePool, want.State = "default", StateReady
	if !reflect.DeepEqual(*back, want) {
		t.Fatalf("HostRegistrationFromAPI(ToAPI()) = %+v\nwant %+v", *back, want)
	}
	if HostRegistrationFromAPI(nil) != nil {
		t.Fatal("nil in, not nil out")
	}
}

func TestCheckCapacityRange(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		lo, hi int64
		ok     bool
	}{{0, 0, true}, {0, 5, true}, {5, 5, true}, {5, 0, false}, {6, 5, false}} {
		if err := CheckCapacityRange(c.lo, c.hi); (err == nil) != c.ok {
			t.Errorf("CheckCapacityRange(%d, %d) = %v", c.lo, c.hi, err)
		}
	}
}
