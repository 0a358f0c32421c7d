package nomadclient

import (
	"context"

	"github.com/hashicorp/nomad/api"

	"github.com/berthhq/terraform-provider-berth/internal/jobspec"
)

// RegisterJobspec parses s (jobspec.Parse, with the cluster's parser) and registers the job in
// namespace when the jobspec names none, pinned to node pin when set (a
// job placed into a node reservation), with check-and-set at modifyIndex
// (0: the job must not exist), settling a lost answer as RegisterJob does.
// The pin is a constraint of the job's own, which drift does not report
// (constraints compare as a set).
func (c *Client) RegisterJobspec(ctx context.Context, s jobspec.Spec, namespace, pin string, modifyIndex uint64) (*RegisterResult, error) {
	job, extra, err := jobspec.Parse(s, c.parser(ctx, namespace))
	if err != nil {
		return nil, &WriteNotAppliedError{Err: err}
	}
	if job.Namespace == nil || *job.Namespace == "" {
		job.Namespace = &namespace
	}
	if pin != "" {
		job.Constraints = append(job.Constraints, api.NewConstraint("${node.unique.id}", "=", pin))
	}
	return c.registerJob(ctx, job, extra, &api.JobSubmission{Source: s.Source, Format: s.FormatOf(), VariableFlags: s.Variables}, modifyIndex)
}

// JobSource is the jobspec job's current version was registered from (the
// source Nomad keeps from `nomad job run`, berth_job, or the web UI), when
// Nomad has it and berth can hold it: HCL2 or JSON, with -var values but
// no var-file content. ok is false otherwise (HCL1, a var file, a job
// registered through the API without its source, or one too large for the
// server to keep).
func (c *Client) JobSource(ctx context.Context, j *Job) (s jobspec.Spec, ok bool, err error) {
	ns, id, version := deref(j.job.Namespace), deref(j.job.ID), int(deref(j.job.Version))
	sub, err := getOrNil(ctx, c, "read job source", func(ctx context.Context) (*api.JobSubmission, error) {
		out, _, err := c.api.Jobs().Submission(id, version, c.query(ctx, &api.QueryOptions{Namespace: ns}))
		return out, err
	}, "reading the source of job %q in namespace %q", id, ns)
	switch {
	case err != nil:
		return s, false, err
	case sub == nil || sub.Variables != "" || (sub.Format != jobspec.FormatHCL2 && sub.Format != jobspec.FormatJSON):
		return s, false, nil
	}
	// Nomad keeps -var values query-escaped and unescapes them when read.
	return jobspec.Spec{Source: sub.Source, Format: sub.Format, Variables: sub.VariableFlags}, true, nil
}

// JobspecDrift is where the job differs from what s sets (jobspec.Drift,
// and jobspec.ExtraDrift for the fields berth's api structs do not hold),
// s parsed by p.
func (j *Job) JobspecDrift(s jobspec.Spec, p jobspec.Parser) ([]string, error) {
	want, extra, err := jobspec.Parse(s, p)
	if err != nil {
		return nil, err
	}
	return append(jobspec.Drift(want, j.job), jobspec.ExtraDrift(extra, j.extra)...), nil
}

// Version is the job's version, which each registration that changes it
// increments.
func (j *Job) Version() uint64 { return deref(j.job.Version) }

// Type is the job's type (service, batch, system, sysbatch).
func (j *Job) Type() string { return deref(j.job.Type) }

// JSON is the job as Nomad's API carries it, the form a jobspec of format
// "json" takes: what an import records.
func (j *Job) JSON() (string, error) { return jobspec.JSONOf(j.job, j.extra) }

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
		c.write(ctx, namespace))
	if err != nil {
		return nil, c.writeError(err)
	}
	return &Dispatched{JobID: resp.DispatchedJobID, EvalID: resp.EvalID}, nil
}
