package instance

import (
	"testing"

	"github.com/hashicorp/nomad/api"
)

// alloc builds an allocation stub; opts tweak it.
func alloc(client string, version uint64, opts ...func(*api.AllocationListStub)) *api.AllocationListStub {
	a := &api.AllocationListStub{ClientStatus: client, DesiredStatus: "run", JobVersion: version}
	for _, o := range opts {
		o(a)
	}
	return a
}

func healthy(h bool) func(*api.AllocationListStub) {
	return func(a *api.AllocationListStub) { a.DeploymentStatus = &api.AllocDeploymentStatus{Healthy: &h} }
}

func healthUndecided(a *api.AllocationListStub) {
	a.DeploymentStatus = &api.AllocDeploymentStatus{}
}

func replaced(a *api.AllocationListStub) { a.NextAllocation = "next" }

func desiredStop(a *api.AllocationListStub) { a.DesiredStatus = "stop" }

func taskStates(states map[string]string) func(*api.AllocationListStub) {
	return func(a *api.AllocationListStub) {
		a.TaskStates = map[string]*api.TaskState{}
		for name, st := range states {
			a.TaskStates[name] = &api.TaskState{State: st}
		}
	}
}

func TestDeriveStatus(t *testing.T) {
	tests := []struct {
		name    string
		stopped bool
		version uint64
		allocs  []*api.AllocationListStub
		want    Status
	}{
		{"stopped job", true, 1, nil, StatusStopped},
		{"stopped job with allocs still running", true, 2, []*api.AllocationListStub{alloc("running", 1, healthy(true))}, StatusStopped},
		{"nothing placed yet", false, 0, nil, StatusPending},
		{"all pending", false, 0, []*api.AllocationListStub{alloc("pending", 0), alloc("pending", 0)}, StatusPending},
		{"all running and healthy", false, 0, []*api.AllocationListStub{alloc("running", 0, healthy(true)), alloc("running", 0, healthy(true))}, StatusRunning},
		{"running outside a deployment", false, 0, []*api.AllocationListStub{alloc("running", 0)}, StatusRunning},
		{"health not decided yet", false, 0, []*api.AllocationListStub{alloc("running", 0, healthUndecided)}, StatusStarting},
		{"one pending one running", false, 0, []*api.AllocationListStub{alloc("pending", 0), alloc("running", 0, healthy(true))}, StatusStarting},
		{"init task running, main not started", false, 0, []*api.AllocationListStub{
			alloc("running", 0, taskStates(map[string]string{"migrate": "running", "web": "pending"}))}, StatusStarting},
		{"init done, main running", false, 0, []*api.AllocationListStub{
			alloc("running", 0, taskStates(map[string]string{"migrate": "dead", "web": "running"}))}, StatusRunning},
		{"some running some failed", false, 0, []*api.AllocationListStub{alloc("running", 0, healthy(true)), alloc("failed", 0)}, StatusDegraded},
		{"unhealthy running alloc", false, 0, []*api.AllocationListStub{alloc("running", 0, healthy(true)), alloc("running", 0, healthy(false))}, StatusDegraded},
		{"all failed", false, 0, []*api.AllocationListStub{alloc("failed", 0), alloc("lost", 0)}, StatusFailed},
		{"failed alloc replaced by running one", false, 0, []*api.AllocationListStub{alloc("failed", 0, replaced), alloc("running", 0, healthy(true))}, StatusRunning},
		{"old version failures ignored once new version runs", false, 2, []*api.AllocationListStub{
			alloc("failed", 1), alloc("running", 2, healthy(true))}, StatusRunning},
		{"update in progress", false, 2, []*api.AllocationListStub{
			alloc("running", 1, healthy(true)), alloc("pending", 2)}, StatusStarting},
		{"update: new version running supersedes old", false, 2, []*api.AllocationListStub{
			alloc("running", 1, healthy(true)), alloc("running", 2, healthUndecided)}, StatusStarting},
		{"old failure, replacement version being placed", false, 2, []*api.AllocationListStub{
			alloc("failed", 1), alloc("pending", 2)}, StatusPending},
		{"failed deployment without revert", false, 2, []*api.AllocationListStub{
			alloc("running", 1, healthy(true)), alloc("running", 2, healthy(false))}, StatusFailed},
		{"old failures before new version is placed", false, 2, []*api.AllocationListStub{alloc("failed", 1)}, StatusPending},
		{"failures of the current version count", false, 2, []*api.AllocationListStub{alloc("failed", 2)}, StatusFailed},
		{"allocs stopped by Nomad are ignored", false, 0, []*api.AllocationListStub{
			alloc("running", 0, healthy(true)), alloc("failed", 0, desiredStop), alloc("complete", 0)}, StatusRunning},
		{"scaled to zero", false, 3, []*api.AllocationListStub{alloc("complete", 2, desiredStop)}, StatusPending},
		{"disconnected client", false, 0, []*api.AllocationListStub{alloc("running", 0), alloc("unknown", 0)}, StatusDegraded},
		// An allocation on a disconnected client may still run: it is not
		// dropped as if stopped while a new version is being placed.
		{"disconnected allocation of the previous version", false, 3, []*api.AllocationListStub{
			alloc("unknown", 2), alloc("pending", 3)}, StatusDegraded},
		{"only a disconnected allocation of an older version", false, 3, []*api.AllocationListStub{alloc("unknown", 2)}, StatusFailed},
		{"failed while another is pending", false, 0, []*api.AllocationListStub{alloc("failed", 0), alloc("pending", 0)}, StatusDegraded},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := DeriveStatus(tt.stopped, tt.version, tt.allocs); got != tt.want {
				t.Errorf("DeriveStatus = %q, want %q", got, tt.want)
			}
		})
	}
}
