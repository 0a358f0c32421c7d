package instance

import (
	"sort"
	"strings"

	"github.com/hashicorp/nomad/api"

	"github.com/berthhq/terraform-provider-berth/internal/allocstatus"
)

// DeploymentFailed is the status of a deployment Nomad gave up on.
const DeploymentFailed = api.DeploymentStatusFailed

// Observed is what Nomad decides about an instance's job: the values the
// provider reports as computed attributes.
type Observed struct {
	Namespace   string
	Name        string
	Version     int
	ModifyIndex int
	Status      Status
	// Allocations are the ones that may still run (allocstatus.Live), by
	// name, then ID.
	Allocations []Allocation
}

// Allocation is one allocation of an instance.
type Allocation struct {
	ID           string
	Name         string
	NodeID       string
	NodeName     string
	ClientStatus string
	Desired      string
	JobVersion   int
	Healthy      *bool // deployment health; nil until decided
	Tasks        []TaskSummary
}

// Running reports whether the allocation's client runs it.
func (a Allocation) Running() bool { return a.ClientStatus == allocstatus.Running }

// TaskSummary is the state of one task of an allocation.
type TaskSummary struct {
	Name     string
	State    string
	Failed   bool
	Restarts int
	// LastEvent is "<type>: <message>" of the latest task event, "" if none.
	LastEvent string
}

// Observe reads the computed side of an instance from its job and
// allocations.
func Observe(job *api.Job, allocs []*api.AllocationListStub) Observed {
	return Observed{
		Namespace: deref(job.Namespace), Name: deref(job.ID),
		Version: int(deref(job.Version)), ModifyIndex: int(deref(job.JobModifyIndex)),
		Status:      deriveStatusFor(job, withoutPoststop(job, allocs)),
		Allocations: LiveAllocations(allocs),
	}
}

// LiveAllocations returns the allocations that may still run, by name then ID.
func LiveAllocations(allocs []*api.AllocationListStub) []Allocation {
	sorted := append([]*api.AllocationListStub(nil), allocs...)
	sort.SliceStable(sorted, func(i, j int) bool {
		return sorted[i].Name < sorted[j].Name || sorted[i].Name == sorted[j].Name && sorted[i].ID < sorted[j].ID
	})
	out := []Allocation{}
	for _, a := range sorted {
		if !allocstatus.Live(a.ClientStatus) {
			continue
		}
		al := Allocation{
			ID: a.ID, Name: a.Name, NodeID: a.NodeID, NodeName: a.NodeName, ClientStatus: a.ClientStatus,
			Desired: a.DesiredStatus, JobVersion: int(a.JobVersion), Tasks: taskSummaries(a.TaskStates),
		}
		if a.DeploymentStatus != nil && a.DeploymentStatus.Healthy != nil {
			h := *a.DeploymentStatus.Healthy
			al.Healthy = &h
		}
		out = append(out, al)
	}
	return out
}

func taskSummaries(states map[string]*api.TaskState) []TaskSummary {
	out := make([]TaskSummary, 0, len(states))
	for _, n := range sortedKeys(states) {
		ts := states[n]
		if ts == nil {
			continue
		}
		last := ""
		if len(ts.Events) > 0 && ts.Events[len(ts.Events)-1] != nil {
			e := ts.Events[len(ts.Events)-1]
			msg := e.DisplayMessage
			if msg == "" {
				msg = e.Message
			}
			last = strings.TrimSpace(e.Type + ": " + msg)
		}
		out = append(out, TaskSummary{Name: n, State: ts.State, Failed: ts.Failed, Restarts: int(ts.Restarts), LastEvent: last})
	}
	return out
}
