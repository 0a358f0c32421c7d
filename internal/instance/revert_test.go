package instance

import (
	"errors"
	"strings"
	"testing"
)

func TestRevertTarget(t *testing.T) {
	v := func(n uint64) *uint64 { return &n }
	// History of a job at version 4: 0 and 2 deployed fine, 1 and 3 did
	// not (or never finished), 4 is running now.
	history := []JobVersion{{4, false}, {3, false}, {2, true}, {1, false}, {0, true}}
	cases := []struct {
		name      string
		current   uint64
		kept      []JobVersion
		requested *uint64
		want      uint64
		refusal   string // a part of the refusal; "" when a version is chosen
	}{
		{name: "previous stable skips unstable versions", current: 4, kept: history, want: 2},
		{name: "previous stable ignores the current version being stable", current: 2,
			kept: []JobVersion{{2, true}, {1, false}, {0, true}}, want: 0},
		{name: "order of the list does not matter", current: 4,
			kept: []JobVersion{{0, true}, {2, true}, {4, true}, {3, false}}, want: 2},
		{name: "requested older version, stable or not", current: 4, kept: history, requested: v(1), want: 1},
		{name: "requested version zero", current: 1, kept: []JobVersion{{1, false}, {0, true}}, requested: v(0), want: 0},
		{name: "requested newer than current cannot exist", current: 4, kept: history, requested: v(9),
			refusal: "the job has no version 9: Nomad keeps versions 4, 3, 2 (stable), 1, 0 (stable)"},
		{name: "requested version dropped from history", current: 9,
			kept: []JobVersion{{9, false}, {8, true}, {7, true}}, requested: v(2), refusal: "the job has no version 2"},
		{name: "requested current version", current: 4, kept: history, requested: v(4),
			refusal: "version 4 is the job's current version"},
		{name: "no stable version before the current one", current: 3,
			kept: []JobVersion{{3, true}, {2, false}, {1, false}}, refusal: "no version older than the current one (3) is stable"},
		{name: "a new job has nothing to return to", current: 0, kept: []JobVersion{{0, true}},
			refusal: "Nomad keeps versions 0 (stable)"},
		{name: "empty history", current: 0, requested: v(0), refusal: "Nomad keeps versions none"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := RevertTarget(tc.current, tc.kept, tc.requested)
			if tc.refusal == "" {
				if err != nil || got != tc.want {
					t.Fatalf("RevertTarget = %d, %v; want %d", got, err, tc.want)
				}
				return
			}
			var r *RevertRefusal
			if !errors.As(err, &r) || !strings.Contains(r.Reason, tc.refusal) {
				t.Fatalf("RevertTarget = %d, %v; want a refusal containing %q", got, err, tc.refusal)
			}
		})
	}
}
