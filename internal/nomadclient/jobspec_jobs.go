package nomadclient

import (
	"context"

	"github.com/berthhq/terraform-provider-berth/internal/jobspec"
)

// RegisterJobspec parses s (jobspec.Parse) and registers the job in
// namespace when the jobspec names none, with check-and-set at
// modifyIndex (0: the job must not exist), settling a lost answer as
// RegisterJob does.
func (c *Client) RegisterJobspec(ctx context.Context, s jobspec.Spec, namespace string, modifyIndex uint64) (*RegisterResult, error) {
	job, err := jobspec.Parse(s)
	if err != nil {
		return nil, &WriteNotAppliedError{Err: err}
	}
	if job.Namespace == nil || *job.Namespace == "" {
		job.Namespace = &namespace
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
