package lease

import (
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timetypes/timetypes"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// TestDecideLeasePlan checks every time decision of a lease's plan at
// chosen instants, so none of them depends on how fast a test runs.
func TestDecideLeasePlan(t *testing.T) {
	created := time.Date(2026, 3, 4, 10, 0, 0, 0, time.UTC)
	end := created.Add(time.Hour)
	type in struct {
		expired  bool
		verified types.Bool
		renew    bool
		duration string // planned; state has "1h"
		now      time.Time
	}
	tests := []struct {
		name        string
		in          in
		wantReplace bool
		wantEnd     time.Time
		wantTooLate string
	}{
		{"live, nothing changes", in{false, types.BoolValue(true), true, "1h", end.Add(-time.Second)}, false, time.Time{}, ""},
		{"ended as last read, renew", in{true, types.BoolValue(true), true, "1h", end.Add(-time.Minute)}, true, time.Time{}, ""},
		{"ended as last read, no renew", in{true, types.BoolValue(true), false, "1h", end.Add(time.Hour)}, false, time.Time{}, ""},
		// With -refresh=false the state still says live; the clock decides.
		{"ended by the clock, renew", in{false, types.BoolValue(true), true, "1h", end}, true, time.Time{}, ""},
		{"ended by the clock, no renew", in{false, types.BoolValue(true), false, "1h", end}, false, time.Time{}, ""},
		{"one second before the end", in{false, types.BoolValue(true), true, "1h", end.Add(-time.Second)}, false, time.Time{}, ""},
		{"failed verification", in{false, types.BoolValue(false), true, "1h", created}, true, time.Time{}, ""},
		{"failed verification, no renew", in{false, types.BoolValue(false), false, "1h", created}, true, time.Time{}, ""},
		{"unsigned", in{false, types.BoolNull(), true, "1h", created}, false, time.Time{}, ""},
		{"extended", in{false, types.BoolValue(true), true, "2h", end.Add(-time.Second)}, false, created.Add(2 * time.Hour), ""},
		{"shortened, still ahead", in{false, types.BoolValue(true), true, "30m", created.Add(29 * time.Minute)}, false, created.Add(30 * time.Minute), ""},
		{"shortened into the past", in{false, types.BoolValue(true), true, "30m", created.Add(30 * time.Minute)}, false, time.Time{}, "ends at 2026-03-04T10:30:00Z, which is in the past"},
		{"expired and renewed wins over a duration change", in{true, types.BoolValue(true), true, "2h", end.Add(time.Minute)}, true, time.Time{}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			state := leaseModel{
				Duration:  timetypes.NewGoDurationValueFromStringMust("1h"),
				CreatedAt: timetypes.NewRFC3339ValueMust(created.Format(time.RFC3339)),
				ExpiresAt: timetypes.NewRFC3339ValueMust(end.Format(time.RFC3339)),
				Expired:   types.BoolValue(tt.in.expired),
				Verified:  tt.in.verified,
				Renew:     types.BoolValue(tt.in.renew),
			}
			plan := state
			plan.Duration = timetypes.NewGoDurationValueFromStringMust(tt.in.duration)
			got := decideLeasePlan(plan, state, tt.in.now)
			if (got.replace != "") != tt.wantReplace {
				t.Errorf("replace = %q, want replacement %v", got.replace, tt.wantReplace)
			}
			if !got.newEnd.Equal(tt.wantEnd) {
				t.Errorf("newEnd = %s, want %s", got.newEnd, tt.wantEnd)
			}
			if (tt.wantTooLate == "") != (got.tooLate == "") || !strings.Contains(got.tooLate, tt.wantTooLate) {
				t.Errorf("tooLate = %q, want containing %q", got.tooLate, tt.wantTooLate)
			}
		})
	}
}
