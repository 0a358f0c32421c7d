package volume

import (
	"strings"
	"testing"

	"github.com/hashicorp/nomad/api"
)

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
