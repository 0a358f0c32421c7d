package lease

import (
	"strings"
	"testing"
	"time"
)

func TestOverruns(t *testing.T) {
	t.Parallel()
	l := fixture()
	end := l.ExpiresAt()
	paused := Run{AllocationID: "0123456789abcdef", ClientStatus: "running", Live: true, TimerState: "running", TimerSignal: "SIGSTOP"}
	ended := Run{AllocationID: "fedcba9876543210", ClientStatus: "complete", TimerState: "dead"}
	for _, tt := range []struct {
		name string
		runs []Run
		now  time.Time
		want []string // substrings of the one problem; nil: none
	}{
		{"before the end", []Run{paused}, end.Add(-time.Second), nil},
		{"at the end of the allowance", []Run{paused}, end.Add(OverrunAllowance), nil},
		{"past it, paused", []Run{paused}, end.Add(OverrunAllowance + 5*time.Second),
			[]string{"allocation 01234567 is running 1m35s after the lease's end", "timer paused", "SIGSTOP"}},
		{"past it, ended", []Run{ended}, end.Add(time.Hour), nil},
		{"past it, timer running unsignalled", []Run{{AllocationID: "a", ClientStatus: "running", Live: true, TimerState: "running"}},
			end.Add(time.Hour), []string{"lease-timer is still running past its end"}},
		{"past it, client lost contact", []Run{{AllocationID: "a", ClientStatus: "unknown", Live: true, TimerState: "dead"}},
			end.Add(time.Hour), []string{"is unknown", "ended but the allocation was not stopped"}},
	} {
		got := Overruns(l, tt.runs, tt.now)
		if tt.want == nil {
			if len(got) != 0 {
				t.Errorf("%s: Overruns = %q, want none", tt.name, got)
			}
			continue
		}
		if len(got) != 1 {
			t.Errorf("%s: Overruns = %q, want one", tt.name, got)
			continue
		}
		for _, w := range tt.want {
			if !strings.Contains(got[0], w) {
				t.Errorf("%s: %q lacks %q", tt.name, got[0], w)
			}
		}
	}
	if got := Overruns(Lease{}, []Run{paused}, end.Add(time.Hour)); len(got) != 0 {
		t.Errorf("a lease with no created_at (unreadable meta) reads as overrun: %q", got)
	}
}
