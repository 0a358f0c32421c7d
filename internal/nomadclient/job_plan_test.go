package nomadclient

import (
	"reflect"
	"testing"

	"github.com/hashicorp/nomad/api"
)

func TestPlanOfNamesGroupsAndReasons(t *testing.T) {
	got := planOf(&api.JobPlanResponse{
		Annotations: &api.PlanAnnotations{DesiredTGUpdates: map[string]*api.DesiredUpdates{
			"web": {Place: 2, DestructiveUpdate: 1, Canary: 1}, "big": {Place: 3},
		}},
		FailedTGAllocs: map[string]*api.AllocationMetric{
			"big": {NodesEvaluated: 4, NodesInPool: 4, CoalescedFailures: 2,
				ConstraintFiltered: map[string]int{"${attr.kernel.name} = windows": 1},
				DimensionExhausted: map[string]int{"memory": 3}},
			"lost": {NodePool: "gpu"},
		},
	})
	if got.Groups["web"] != (GroupChanges{Place: 2, Destructive: 1, Canary: 1}) || got.Groups["big"].Place != 3 {
		t.Errorf("groups %+v", got.Groups)
	}
	want := []PlacementFailure{
		{Group: "big", Unplaced: 3, Reasons: []string{"constraint `${attr.kernel.name} = windows` filtered 1 nodes", "memory exhausted on 3 nodes"}},
		{Group: "lost", Unplaced: 1, Reasons: []string{`no nodes in node pool "gpu"`}},
	}
	if !reflect.DeepEqual(got.Failures, want) {
		t.Errorf("failures\n got %+v\nwant %+v", got.Failures, want)
	}
}

func TestGroupChangesStringUsesNomadsWords(t *testing.T) {
	for _, c := range []struct {
		in   GroupChanges
		want string
	}{
		{GroupChanges{Place: 2}, "2 create"},
		{GroupChanges{Stop: 1, Ignore: 1}, "1 destroy, 1 ignore"},
		{GroupChanges{Destructive: 1, Canary: 1, InPlace: 2}, "1 create/destroy update, 2 in-place update, 1 canary"},
		{GroupChanges{}, "no change"},
	} {
		if got := c.in.String(); got != c.want {
			t.Errorf("%+v: %q, want %q", c.in, got, c.want)
		}
	}
}
