package nomadclient

import (
	"context"

	"github.com/hashicorp/nomad/api"

	"github.com/berthhq/terraform-provider-berth/internal/allocstatus"
	"github.com/berthhq/terraform-provider-berth/internal/lease"
)

// LeaseVersions reads every version of a lease job Nomad keeps
// (/v1/job/:id/versions), each as a lease; versions that are not leases
// at all are left out. Nil when Nomad has no such job. The newest signed
// one is a record of the lease no state loss erases (lease.NewestSigned).
func (c *Client) LeaseVersions(ctx context.Context, namespace, id string) ([]lease.Lease, error) {
	jobs, err := getOrNil(ctx, c, "read job versions", func(ctx context.Context) ([]*api.Job, error) {
		out, _, _, err := c.api.Jobs().Versions(id, false, c.query(ctx, &api.QueryOptions{Namespace: namespace}))
		return out, err
	}, "reading the versions of job %q in namespace %q", id, namespace)
	if err != nil {
		return nil, err
	}
	out := make([]lease.Lease, 0, len(jobs))
	for _, j := range jobs {
		if l, err := lease.LeaseFromJob(j); err == nil {
			out = append(out, l)
		}
	}
	return out, nil
}

// LeaseRuns is what Nomad shows of each allocation of a lease job: whether
// it is live and what its timer task does (lease.Overruns).
func (a Allocations) LeaseRuns() []lease.Run {
	out := make([]lease.Run, 0, len(a.stubs))
	for _, s := range a.stubs {
		if s == nil {
			continue
		}
		r := lease.Run{AllocationID: s.ID, ClientStatus: s.ClientStatus, Live: allocstatus.Live(s.ClientStatus)}
		if ts := s.TaskStates[lease.TimerTask]; ts != nil {
			r.TimerState = ts.State
			r.TimerSignal = lastSignal(ts.Events)
		}
		out = append(out, r)
	}
	return out
}

// lastSignal is the signal of the newest Signaling event, or "" when the
// task was restarted or started since (a new process is not paused).
func lastSignal(events []*api.TaskEvent) string {
	for i := len(events) - 1; i >= 0; i-- {
		e := events[i]
		if e == nil {
			continue
		}
		switch e.Type {
		case api.TaskSignaling:
			// A signal sent through the API (nomad alloc signal) is
			// in Details; one the client sends itself in TaskSignal.
			if sig := e.Details["signal"]; sig != "" {
				return sig
			}
			return e.TaskSignal
		case api.TaskStarted, api.TaskRestarting:
			return ""
		}
	}
	return ""
}
