package nomadclient

import (
	"testing"

	"github.com/hashicorp/nomad/api"

	"github.com/berthhq/terraform-provider-berth/internal/lease"
)

// LeaseRuns names the timer's last signal as Nomad records it: in the
// event's details for a signal sent through the API (nomad alloc signal),
// in TaskSignal for one the client sends; a start or restart since means
// the process is not paused.
func TestLeaseRuns(t *testing.T) {
	t.Parallel()
	timer := func(events ...*api.TaskEvent) map[string]*api.TaskState {
		return map[string]*api.TaskState{lease.TimerTask: {State: "running", Events: events}}
	}
	sig := func(details, field string) *api.TaskEvent {
		e := &api.TaskEvent{Type: api.TaskSignaling, TaskSignal: field}
		if details != "" {
			e.Details = map[string]string{"signal": details}
		}
		return e
	}
	started := &api.TaskEvent{Type: api.TaskStarted}
	allocs := Allocations{stubs: []*api.AllocationListStub{
		{ID: "api", ClientStatus: "running", TaskStates: timer(started, sig("SIGSTOP", ""))},
		{ID: "client", ClientStatus: "running", TaskStates: timer(started, sig("", "SIGTSTP"))},
		{ID: "continued", ClientStatus: "running", TaskStates: timer(started, sig("SIGSTOP", ""), sig("SIGCONT", ""))},
		{ID: "restarted", ClientStatus: "running", TaskStates: timer(sig("SIGSTOP", ""), &api.TaskEvent{Type: api.TaskRestarting})},
		{ID: "done", ClientStatus: "complete"},
	}}
	want := map[string]lease.Run{
		"api":       {AllocationID: "api", ClientStatus: "running", Live: true, TimerState: "running", TimerSignal: "SIGSTOP"},
		"client":    {AllocationID: "client", ClientStatus: "running", Live: true, TimerState: "running", TimerSignal: "SIGTSTP"},
		"continued": {AllocationID: "continued", ClientStatus: "running", Live: true, TimerState: "running", TimerSignal: "SIGCONT"},
		"restarted": {AllocationID: "restarted", ClientStatus: "running", Live: true, TimerState: "running"},
		"done":      {AllocationID: "done", ClientStatus: "complete"},
	}
	runs := allocs.LeaseRuns()
	if len(runs) != len(want) {
		t.Fatalf("%d runs, want %d", len(runs), len(want))
	}
	for _, r := range runs {
		if r != want[r.AllocationID] {
			t.Errorf("run %s = %+v, want %+v", r.AllocationID, r, want[r.AllocationID])
		}
	}
}
