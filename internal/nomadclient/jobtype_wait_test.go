package nomadclient

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/hashicorp/nomad/api"
)

func stub(id, client string, version uint64, tasks map[string]*api.TaskState) *api.AllocationListStub {
	return &api.AllocationListStub{ID: id + "-0000-4000-8000-000000000000", Name: "job.app[0]", NodeName: "node-" + id,
		ClientStatus: client, DesiredStatus: api.AllocDesiredStatusRun, JobVersion: version, TaskStates: tasks}
}

func exited(code int) map[string]*api.TaskState {
	return map[string]*api.TaskState{"main": {State: "dead", Failed: code != 0, Events: []*api.TaskEvent{
		{Type: api.TaskStarted, DisplayMessage: "Task started by client"},
		{Type: api.TaskTerminated, DisplayMessage: "Exit Code: " + strconv.Itoa(code), ExitCode: code},
		{Type: api.TaskNotRestarting, DisplayMessage: "Exceeded allowed attempts 0 in interval 24h0m0s and mode is \"fail\""},
	}}}
}

func TestBatchOutcome(t *testing.T) {
	running := map[string]*api.TaskState{"main": {State: "running"}}
	cases := []struct {
		name    string
		allocs  []*api.AllocationListStub
		done    bool
		failure string
	}{
		{"pending", []*api.AllocationListStub{stub("a", "pending", 1, nil)}, false, ""},
		{"running", []*api.AllocationListStub{stub("a", "running", 1, running)}, false, ""},
		{"complete", []*api.AllocationListStub{stub("a", "complete", 1, exited(0))}, true, ""},
		{"old version failed, new complete", []*api.AllocationListStub{stub("a", "failed", 0, exited(1)), stub("b", "complete", 1, exited(0))}, true, ""},
		{"failed", []*api.AllocationListStub{stub("a", "complete", 1, exited(0)), stub("b", "failed", 1, exited(1))}, false,
			`task "main" failed with exit code 1 (restarts 0): "Started: Task started by client", "Terminated: Exit Code: 1"`},
		{"nothing new placed, nothing runs", []*api.AllocationListStub{stub("a", "complete", 0, exited(0))}, true, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			done, _, err := batchOutcome("job", 1, tc.allocs)
			var re *RolloutError
			switch {
			case tc.failure == "" && err != nil:
				t.Fatalf("unexpected error: %v", err)
			case tc.failure != "" && (!errors.As(err, &re) || !strings.Contains(err.Error(), tc.failure)):
				t.Fatalf("error = %v, want one containing %q", err, tc.failure)
			case done != tc.done:
				t.Errorf("done = %t, want %t", done, tc.done)
			}
		})
	}
}

func TestSystemOutcome(t *testing.T) {
	running := map[string]*api.TaskState{"main": {State: "running"}, "init": {State: "dead"}}
	starting := map[string]*api.TaskState{"main": {State: "pending"}, "init": {State: "running"}}
	stopping := stub("c", "running", 0, running)
	stopping.DesiredStatus = api.AllocDesiredStatusStop
	cases := []struct {
		name    string
		allocs  []*api.AllocationListStub
		done    bool
		state   string
		failure string
	}{
		{"all nodes run it", []*api.AllocationListStub{stub("a", "running", 1, running), stub("b", "running", 1, running)}, true, "2 of 2 nodes run version 1", ""},
		{"one still starting", []*api.AllocationListStub{stub("a", "running", 1, running), stub("b", "running", 1, starting)}, false, "1 of 2 nodes", ""},
		{"rolling update", []*api.AllocationListStub{stub("a", "running", 1, running), stub("b", "running", 0, running), stopping},
			false, "1 of 2 nodes run version 1, 1 still on an older version", ""},
		{"failed on a node", []*api.AllocationListStub{stub("a", "running", 1, running), stub("b", "failed", 1, exited(2))}, false, "",
			`system job version 1 failed on 1 node`},
		{"no node can run it", nil, true, "0 of 0 nodes", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			done, state, err := systemOutcome("job", 1, tc.allocs)
			switch {
			case tc.failure == "" && err != nil:
				t.Fatalf("unexpected error: %v", err)
			case tc.failure != "" && (err == nil || !strings.Contains(err.Error(), tc.failure) || !strings.Contains(err.Error(), "exit code 2")):
				t.Fatalf("error = %v, want one containing %q and the exit code", err, tc.failure)
			case done != tc.done:
				t.Errorf("done = %t, want %t", done, tc.done)
			case !strings.Contains(state, tc.state):
				t.Errorf("state = %q, want it to contain %q", state, tc.state)
			}
		})
	}
}
