package nomadclient

import (
	"context"
	"strings"

	"github.com/hashicorp/nomad/api"

	"github.com/berthhq/terraform-provider-berth/internal/jobspec"
)

// JobRefusedError is a job the cluster's own validation refuses (`nomad
// job validate`, PUT /v1/validate/job): each problem in Nomad's words.
type JobRefusedError struct {
	Problems []string
}

func (e *JobRefusedError) Error() string {
	return "Nomad refuses the job: " + strings.Join(e.Problems, "; ")
}

// ValidateJobspec asks the cluster to validate the job s describes (in
// namespace when it names none), as `nomad job validate` does: a job it
// refuses is a *JobRefusedError with its words; any other failure (no
// permission, no answer) is returned as it is, for the caller to treat as
// "could not ask". Nothing is written: it is retried like a read.
func (c *Client) ValidateJobspec(ctx context.Context, s jobspec.Spec, namespace string) error {
	job, extra, err := jobspec.Parse(s, c.parser(ctx, namespace))
	if err != nil {
		return err
	}
	if job.Namespace == nil || *job.Namespace == "" {
		job.Namespace = &namespace
	}
	resp, err := readRetry(ctx, c, "validate job", func(ctx context.Context) (*api.JobValidateResponse, error) {
		return c.sendValidate(ctx, job, extra)
	})
	if err != nil {
		return err
	}
	if problems := validationProblems(resp); len(problems) > 0 {
		return &JobRefusedError{Problems: problems}
	}
	return nil
}

// validationProblems is what a validate answer refuses: its list, or its
// one error where it gives no list.
func validationProblems(resp *api.JobValidateResponse) []string {
	var out []string
	for _, p := range resp.ValidationErrors {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	if len(out) == 0 && strings.TrimSpace(resp.Error) != "" {
		out = append(out, strings.TrimSpace(resp.Error))
	}
	return out
}
