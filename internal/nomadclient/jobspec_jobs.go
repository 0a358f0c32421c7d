package nomadclient

import (
	"context"

	"github.com/hashicorp/nomad/api"

	"github.com/berthhq/terraform-provider-berth/internal/jobspec"
)

// RegisterJobspec parses s (jobspec.Parse) and registers the job in
// namespace when the jobspec names none, pinned to node pin when set (a
// job placed into a node reservation), with check-and-set at modifyIndex
// (0: the job must not exist), settling a lost answer as RegisterJob does.
// The pin is a constraint of the job's own, which drift does not report
// (constraints compare as a set).
func (c *Client) RegisterJobspec(ctx context.Context, s jobspec.Spec, namespace, pin string, modifyIndex uint64) (*RegisterResult, error) {
	job, err := jobspec.Parse(s)
	if err != nil {
		return nil, &WriteNotAppliedError{Err: err}
	}
	if job.Namespace == nil || *job.Namespace == "" {
		job.Namespace = &namespace
	}
	if pin != "" {
		job.Constraints = append(job.Constraints, api.NewConstraint("${node.unique.id}", "=", pin))
	}
	return c.RegisterJob(ctx, job, modifyIndex)
}

// JobspecDrift is where the job differs from what s sets (jobspec.Drift).
func (j *Job) JobspecDrift(s jobspec.Spec) ([]string, error) {
	want, err := jobspec.Parse(s)
	if err != nil {
		return nil, err
	}
	return jobspec.Drift(want, j.job), nil
}

// Version is the job's version, which each registration that changes it
// increments.
func (j *Job) Version() uint64 { return deref(j.job.Version) }

// Type is the job's type (service, batch, system, sysbatch).
func (j *Job) Type() string { return deref(j.job.Type) }

// JSON is the job as Nomad's API carries it, the form a jobspec of format
// "json" takes: what an import records.
func (j *Job) JSON() (string, error) { return jobspec.JSONOf(j.job) }

// Parameterized reports whether the job is parameterized: it runs only
// when dispatched.
func (j *Job) Parameterized() bool { return j.job.ParameterizedJob != nil }

// Dispatched is one run of a parameterized job.
type Dispatched struct{ JobID, EvalID string }

// DispatchJob starts a run of parameterized job id with meta and payload.
// A dispatch is not idempotent, so it is not retried: an answer that was
// lost may still have started a run.
func (c *Client) DispatchJob(ctx context.Context, namespace, id string, meta map[string]string, payload []byte) (*Dispatched, error) {
	resp, _, err := c.api.Jobs().DispatchOpts(&api.DispatchOptions{JobID: id, Meta: meta, Payload: payload},
		(&api.WriteOptions{Namespace: namespace}).WithContext(ctx))
	if err != nil {
		return nil, c.writeError(err)
	}
	return &Dispatched{JobID: resp.DispatchedJobID, EvalID: resp.EvalID}, nil
}
