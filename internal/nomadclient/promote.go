package nomadclient

import (
	"context"
	"fmt"

	"github.com/hashicorp/nomad/api"
	"github.com/hashicorp/terraform-plugin-log/tflog"
)

// Deployment is what berth tells of a Nomad deployment above this package.
type Deployment struct {
	ID     string
	Status string
	// AwaitingPromotion: running with canaries nobody has promoted yet
	// (awaitingPromotion).
	AwaitingPromotion bool
	// Forgotten is set when the wait stopped following a deployment Nomad
	// left running although every group is healthy and its allocations
	// confirm it (forgottenOutcome): what Nomad shows, for a warning.
	Forgotten string
}

// deploymentOf is d as a Deployment; nil for nil.
func deploymentOf(d *api.Deployment) *Deployment {
	if d == nil {
		return nil
	}
	return &Deployment{ID: d.ID, Status: d.Status, AwaitingPromotion: awaitingPromotion(d)}
}

// awaitingPromotion reports whether d is running with canaries nobody has
// promoted yet (Nomad's Deployment.RequiresPromotion). Such a deployment
// stays open, with the old allocations running next to the canaries, until
// it is promoted, failed or superseded by a newer job version.
func awaitingPromotion(d *api.Deployment) bool {
	if d == nil || d.Status != api.DeploymentStatusRunning {
		return false
	}
	for _, s := range d.TaskGroups {
		if s != nil && s.DesiredCanaries > 0 && !s.Promoted {
			return true
		}
	}
	return false
}

// canariesReady reports whether every unpromoted group of d has all its
// canaries placed and healthy, which is what Nomad requires to promote.
func canariesReady(d *api.Deployment) bool {
	for _, s := range d.TaskGroups {
		if s == nil || s.DesiredCanaries == 0 || s.Promoted {
			continue
		}
		if len(s.PlacedCanaries) < s.DesiredCanaries || s.HealthyAllocs < s.DesiredCanaries {
			return false
		}
	}
	return true
}

// manualPromotion reports whether some group of job has canaries that
// Nomad does not promote by itself. The deployment does not say so (the
// API's DeploymentState has no auto_promote), the job does.
func manualPromotion(job *api.Job) bool {
	for _, g := range job.TaskGroups {
		if g != nil && g.Update != nil && deref(g.Update.Canary) > 0 && !deref(g.Update.AutoPromote) {
			return true
		}
	}
	return false
}

// PromoteOptions says what PromoteCanaries waits for.
type PromoteOptions struct {
	// WaitReady waits until the canaries are placed and healthy before
	// promoting (Nomad refuses to promote earlier). Leave it off when only
	// a person marks allocations healthy (health_check "manual"): then an
	// unready deployment is refused at once instead of waited for.
	WaitReady bool
	// WaitDone waits for the deployment to succeed after the promotion.
	WaitDone bool
}

// PromoteCanaries promotes all canaries of the job's deployment in progress
// (Nomad's deployment promote API) and returns that deployment; nil, nil
// when no deployment of the job awaits promotion. A promotion Nomad
// refuses is a *RolloutError with Nomad's reason. A promote request whose
// answer was lost counts as done when the deployment reads back promoted.
// Waiting, it treats a deployment Nomad leaves running as WaitForRollout
// does (Deployment.Forgotten).
func (c *Client) PromoteCanaries(ctx context.Context, namespace, jobID string, opts PromoteOptions) (*Deployment, error) {
	dep, forgotten, err := c.promoteCanaries(ctx, namespace, jobID, opts)
	out := deploymentOf(dep)
	if out != nil {
		out.Forgotten = forgotten
	}
	return out, err
}

func (c *Client) promoteCanaries(ctx context.Context, namespace, jobID string, opts PromoteOptions) (*api.Deployment, string, error) {
	job, err := c.getJob(ctx, namespace, jobID)
	if err != nil {
		return nil, "", err
	}
	if job == nil {
		return nil, "", fmt.Errorf("job %q is gone from namespace %q", jobID, namespace)
	}
	dep, err := c.activeDeployment(ctx, job)
	if err != nil || !awaitingPromotion(dep) {
		return nil, "", err
	}
	if opts.WaitReady {
		// Someone else may promote it meanwhile: a deployment then left
		// running once healthy ends the wait as it would after a promotion.
		if forgotten, err := c.waitDeployment(ctx, namespace, jobID, dep, true, forgottenAfter(job)); err != nil || forgotten != "" {
			return dep, forgotten, err
		}
	}
	if awaitingPromotion(dep) {
		tflog.Info(ctx, "Promoting canaries", map[string]any{"job": jobID, "deployment": dep.ID})
		_, _, err := c.api.Deployments().PromoteAll(dep.ID, c.write(ctx, namespace))
		if err != nil {
			if promoted, readErr := c.readDeployment(ctx, namespace, dep.ID); readErr == nil && !awaitingPromotion(promoted) {
				*dep = *promoted
			} else if IsBadRequest(err) {
				return dep, "", &RolloutError{JobID: jobID, DeploymentID: dep.ID,
					Reason: fmt.Sprintf("Nomad refused to promote deployment %s: %s", idPrefix(dep.ID), NomadMessage(err))}
			} else {
				return dep, "", fmt.Errorf("promoting deployment %s: %w", dep.ID, c.classify(err, "promote deployment"))
			}
		}
	}
	if !opts.WaitDone {
		if d, err := c.readDeployment(ctx, namespace, dep.ID); err == nil {
			*dep = *d
		}
		return dep, "", nil
	}
	forgotten, err := c.waitDeployment(ctx, namespace, jobID, dep, false, forgottenAfter(job))
	return dep, forgotten, err
}

func (c *Client) readDeployment(ctx context.Context, namespace, id string) (*api.Deployment, error) {
	return readRetry(ctx, c, "read deployment", func(ctx context.Context) (*api.Deployment, error) {
		out, _, err := c.api.Deployments().Info(id, c.query(ctx, &api.QueryOptions{Namespace: namespace}))
		return out, err
	})
}
