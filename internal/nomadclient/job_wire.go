package nomadclient

import (
	"context"
	"encoding/json"
	"net/url"

	"github.com/hashicorp/nomad/api"

	"github.com/berthhq/terraform-provider-berth/internal/jobspec"
)

// Every job berth sends goes as its api.Job with the fields berth's api
// structs do not hold put back (jobspec.Encode): a block a newer cluster
// knows, from the cluster's parser or from the live job, reaches Nomad
// whole. The bodies are the api package's requests with the job as JSON.

type registerBody struct {
	Job            json.RawMessage
	EnforceIndex   bool
	JobModifyIndex uint64
	Submission     *api.JobSubmission `json:",omitempty"`
}

type planBody struct {
	Job  json.RawMessage
	Diff bool
}

type validateBody struct {
	Job    json.RawMessage
	Region string `json:",omitempty"`
}

// sendRegister registers job (with extra) checked against modifyIndex,
// once (the callers retry).
func (c *Client) sendRegister(ctx context.Context, job *api.Job, extra jobspec.Extras, sub *api.JobSubmission,
	modifyIndex uint64) (*api.JobRegisterResponse, error) {
	body, err := jobspec.Encode(job, extra)
	if err != nil {
		return nil, err
	}
	var out api.JobRegisterResponse
	_, err = c.api.Raw().Write("/v1/jobs", &registerBody{Job: body, EnforceIndex: true, JobModifyIndex: modifyIndex, Submission: sub},
		&out, (&api.WriteOptions{Namespace: deref(job.Namespace)}).WithContext(ctx))
	return &out, err
}

// sendPlan asks the scheduler to plan job (with extra), once.
func (c *Client) sendPlan(ctx context.Context, job *api.Job, extra jobspec.Extras, diff bool) (*api.JobPlanResponse, error) {
	body, err := jobspec.Encode(job, extra)
	if err != nil {
		return nil, err
	}
	var out api.JobPlanResponse
	_, err = c.api.Raw().Write("/v1/job/"+url.PathEscape(deref(job.ID))+"/plan", &planBody{Job: body, Diff: diff},
		&out, (&api.WriteOptions{Namespace: deref(job.Namespace)}).WithContext(ctx))
	return &out, err
}

// sendValidate asks the cluster to validate job (with extra), once.
func (c *Client) sendValidate(ctx context.Context, job *api.Job, extra jobspec.Extras) (*api.JobValidateResponse, error) {
	body, err := jobspec.Encode(job, extra)
	if err != nil {
		return nil, err
	}
	var out api.JobValidateResponse
	_, err = c.api.Raw().Write("/v1/validate/job", &validateBody{Job: body, Region: c.region},
		&out, (&api.WriteOptions{Namespace: deref(job.Namespace)}).WithContext(ctx))
	return &out, err
}

// getJobWhole reads a job with the fields berth's api structs do not hold.
// A job that does not exist returns (nil, nil, nil).
func (c *Client) getJobWhole(ctx context.Context, namespace, id string) (*api.Job, jobspec.Extras, error) {
	raw, err := c.getJobRaw(ctx, namespace, id)
	if raw == nil || err != nil {
		return nil, nil, err
	}
	return jobspec.SplitJob(raw)
}

// getJobRaw reads a job as Nomad's JSON, every field whatever berth's api
// structs know. A job that does not exist returns (nil, nil).
func (c *Client) getJobRaw(ctx context.Context, namespace, id string) (json.RawMessage, error) {
	raw, err := readRetry(ctx, c, "read job", func(ctx context.Context) (json.RawMessage, error) {
		var out json.RawMessage
		_, err := c.api.Raw().Query("/v1/job/"+url.PathEscape(id), &out, c.query(ctx, &api.QueryOptions{Namespace: namespace}))
		return out, err
	})
	if IsNotFound(err) {
		return nil, nil
	}
	return raw, err
}
