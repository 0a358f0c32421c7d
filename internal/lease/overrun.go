package lease

import (
	"fmt"
	"time"
)

// A lease ends when its timer task exits, and nothing else in the cluster
// ends it: anyone with namespace write (alloc-lifecycle) can pause the
// timer (`nomad alloc signal -s SIGSTOP`), and the workload then runs on
// past expires_at. Nomad 1.10 has no second end a signal cannot pause (no
// max run duration for jobs or tasks), so a reader checks what Nomad shows
// instead: an allocation still live well after the end is a lease that did
// not end, whatever its signature says.

// OverrunAllowance is how long after expires_at (by the reader's clock) an
// allocation of a lease may still be live: the timer ends by the node's
// clock, which may be up to ClockSkewAllowance behind, and stopping the
// group (the workload's kill timeout, the client reporting it) takes
// seconds more.
const OverrunAllowance = ClockSkewAllowance + 30*time.Second

// Run is one allocation of a lease job as Nomad shows it, without Nomad's
// types.
type Run struct {
	AllocationID string
	ClientStatus string
	// Live: the allocation may still be running (allocstatus.Live).
	Live bool
	// TimerState is the timer task's state ("pending", "running", "dead";
	// "" when Nomad reports none).
	TimerState string
	// TimerSignal is the last signal Nomad sent the timer task ("" none),
	// so a paused timer is named as such.
	TimerSignal string
}

// Overruns lists the allocations of l still live at now although l ended
// more than OverrunAllowance before: each one means the lease did not end
// (a paused timer, a client that stopped reporting), so it must not read
// as verified. Empty before then, and for a lease whose allocations all
// ended.
func Overruns(l Lease, runs []Run, now time.Time) []string {
	end := l.ExpiresAt()
	if l.CreatedAt.IsZero() || !now.After(end.Add(OverrunAllowance)) {
		return nil
	}
	late := now.Sub(end).Round(time.Second)
	var out []string
	for _, r := range runs {
		if !r.Live {
			continue
		}
		out = append(out, fmt.Sprintf("allocation %s is %s %s after the lease's end at %s: %s",
			shortID(r.AllocationID), r.ClientStatus, late, stamp(end), r.timerSays()))
	}
	return out
}

// timerSays is what Nomad shows of the timer task, and what it means.
func (r Run) timerSays() string {
	switch {
	case r.TimerSignal == "SIGSTOP" || r.TimerSignal == "SIGTSTP":
		return fmt.Sprintf("timer paused: task %s was sent %s and is %s", TimerTask, r.TimerSignal, orNone(r.TimerState))
	case r.TimerState == "running":
		return fmt.Sprintf("task %s is still running past its end (paused or its node's clock is far behind)", TimerTask)
	case r.TimerState == "dead":
		return fmt.Sprintf("task %s ended but the allocation was not stopped (its client may have lost contact)", TimerTask)
	}
	return fmt.Sprintf("task %s is %s", TimerTask, orNone(r.TimerState))
}

func orNone(state string) string {
	if state == "" {
		return "not reported"
	}
	return state
}

// shortID is the first 8 characters of an ID, as Nomad's CLI shows them.
func shortID(id string) string {
	if len(id) > 8 {
		return id[:8]
	}
	return id
}
