package nomadclient

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/hashicorp/nomad/api"
)

// AllocationView is one allocation as the berth_allocations data source
// reports it.
type AllocationView struct {
	ID, Name, Namespace, JobID, JobType, TaskGroup string
	JobVersion                                     uint64
	NodeID, NodeName                               string
	ClientStatus, DesiredStatus                    string
	ClientDescription, DesiredDescription          string
	// CreateTime and ModifyTime are Unix nanoseconds.
	CreateTime, ModifyTime int64
	// Tasks are the allocation's task states by task name.
	Tasks map[string]TaskView
}

// TaskView is one task's state in an allocation.
type TaskView struct {
	State    string
	Failed   bool
	Restarts uint64
	// LastEvent is the type and message of the task's latest event
	// (empty when it has none).
	LastEventType, LastEventMessage string
}

// AllocationQuery selects allocations: in Namespace ("*" every one the
// token can read, "" the provider's), of Job when set, matching Filter (a
// Nomad filter expression) when set.
type AllocationQuery struct {
	Namespace, Job, Filter string
}

// BadFilterError is Nomad refusing a filter expression (HTTP 400), with
// its message.
type BadFilterError struct{ Err error }

func (e *BadFilterError) Error() string { return e.Err.Error() }
func (e *BadFilterError) Unwrap() error { return e.Err }

// asBadFilter marks a 400 answer to a filtered list as the filter's fault.
func asBadFilter(err error, filter string) error {
	if filter != "" && statusCode(err) == 400 {
		return &BadFilterError{Err: err}
	}
	return err
}

// ListAllocations lists the allocations q selects, sorted by job, group,
// name and ID. A job narrows Nomad's filter, so only that job's
// allocations come back.
func (c *Client) ListAllocations(ctx context.Context, q AllocationQuery) ([]AllocationView, error) {
	filter := q.Filter
	if q.Job != "" {
		filter = fmt.Sprintf("JobID == %q", q.Job)
		if q.Filter != "" {
			filter += " and (" + q.Filter + ")"
		}
	}
	stubs, err := readRetry(ctx, c, "list allocations", func(ctx context.Context) ([]*api.AllocationListStub, error) {
		out, _, err := c.api.Allocations().List(c.query(ctx, &api.QueryOptions{Namespace: q.Namespace, Filter: filter,
			Params: map[string]string{"task_states": "true"}}))
		return out, err
	})
	if err != nil {
		return nil, fmt.Errorf("listing allocations: %w", asBadFilter(err, filter))
	}
	out := make([]AllocationView, 0, len(stubs))
	for _, a := range stubs {
		if a == nil {
			continue
		}
		v := AllocationView{ID: a.ID, Name: a.Name, Namespace: a.Namespace, JobID: a.JobID, JobType: a.JobType,
			TaskGroup: a.TaskGroup, JobVersion: a.JobVersion, NodeID: a.NodeID, NodeName: a.NodeName,
			ClientStatus: a.ClientStatus, DesiredStatus: a.DesiredStatus, ClientDescription: a.ClientDescription,
			DesiredDescription: a.DesiredDescription, CreateTime: a.CreateTime, ModifyTime: a.ModifyTime,
			Tasks: make(map[string]TaskView, len(a.TaskStates))}
		for name, ts := range a.TaskStates {
			if ts == nil {
				continue
			}
			tv := TaskView{State: ts.State, Failed: ts.Failed, Restarts: ts.Restarts}
			if n := len(ts.Events); n > 0 && ts.Events[n-1] != nil {
				e := ts.Events[n-1]
				tv.LastEventType, tv.LastEventMessage = e.Type, e.DisplayMessage
				if tv.LastEventMessage == "" {
					tv.LastEventMessage = e.Message
				}
			}
			v.Tasks[name] = tv
		}
		out = append(out, v)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if c := strings.Compare(a.Namespace+"\x00"+a.JobID+"\x00"+a.TaskGroup, b.Namespace+"\x00"+b.JobID+"\x00"+b.TaskGroup); c != 0 {
			return c < 0
		}
		if a.Name != b.Name {
			return a.Name < b.Name
		}
		return a.ID < b.ID
	})
	return out, nil
}
