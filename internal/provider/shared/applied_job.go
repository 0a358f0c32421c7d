package shared

import (
	"context"

	"github.com/berthhq/terraform-provider-berth/internal/nomadclient"
)

// AppliedJob carries, from an apply to the read that checks the state the
// apply answered (the server's recordApplied), the job the apply read back
// after its write, so that read need not ask Nomad for it again. It holds
// only the last read-back of one ApplyResourceChange; nothing else reads
// it.
type AppliedJob struct{ job *nomadclient.Job }

type appliedJobKey struct{}

type readBackJobKey struct{}

// WithAppliedJob returns ctx carrying an empty AppliedJob for one apply.
func WithAppliedJob(ctx context.Context) (context.Context, *AppliedJob) {
	a := &AppliedJob{}
	return context.WithValue(ctx, appliedJobKey{}, a), a
}

// RecordAppliedJob keeps job, as read back right after an apply's write,
// in ctx's AppliedJob (when ctx has one).
func RecordAppliedJob(ctx context.Context, job *nomadclient.Job) {
	if a, ok := ctx.Value(appliedJobKey{}).(*AppliedJob); ok {
		a.job = job
	}
}

// ReadBackContext returns ctx for the read that checks an apply's state:
// its job read answers the job the apply read back. ok is false when the
// apply read none (then the read asks Nomad).
func (a *AppliedJob) ReadBackContext(ctx context.Context) (context.Context, bool) {
	if a == nil || a.job == nil {
		return ctx, false
	}
	return context.WithValue(ctx, readBackJobKey{}, a.job), true
}

// ReadBackJob is the job ReadBackContext put in ctx, when it is job name
// in namespace ns; nil otherwise (the reader then asks Nomad). A job read
// right after the write is what a read at that job's modify index
// answers, which is all the record the read makes relies on.
func ReadBackJob(ctx context.Context, ns, name string) *nomadclient.Job {
	j, ok := ctx.Value(readBackJobKey{}).(*nomadclient.Job)
	if !ok || j == nil || j.Namespace() != ns || j.ID() != name {
		return nil
	}
	return j
}
