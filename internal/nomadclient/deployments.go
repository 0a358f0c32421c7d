package nomadclient

import (
	"context"
	"errors"
	"strings"

	"github.com/hashicorp/nomad/api"
)

// deploymentStatusInitializing is a status Nomad's server uses that the
// api package has no constant for.
const deploymentStatusInitializing = "initializing"

// DeploymentActive reports whether a deployment is still in progress, as
// Nomad decides it (structs.Deployment.Active): such a deployment makes
// Nomad refuse the scale endpoint.
func DeploymentActive(d *api.Deployment) bool {
	if d == nil {
		return false
	}
	switch d.Status {
	case api.DeploymentStatusRunning, api.DeploymentStatusPaused, api.DeploymentStatusPending,
		api.DeploymentStatusBlocked, api.DeploymentStatusUnblocking, deploymentStatusInitializing:
		return true
	}
	return false
}

// ActiveDeployment returns the job's deployment in progress (started by
// anyone: berth, `nomad job scale`, an autoscaler, an unpromoted canary),
// or nil. Only a deployment of this incarnation of the job counts, as in
// Nomad's own check.
func (c *Client) activeDeployment(ctx context.Context, job *api.Job) (*api.Deployment, error) {
	ns, id := "", ""
	if job.Namespace != nil {
		ns = *job.Namespace
	}
	if job.ID != nil {
		id = *job.ID
	}
	d, err := c.latestDeployment(ctx, ns, id)
	if err != nil || !DeploymentActive(d) {
		return nil, err
	}
	if job.CreateIndex != nil && d.JobCreateIndex != *job.CreateIndex {
		return nil, nil
	}
	return d, nil
}

// NomadMessage is what Nomad itself said in an error answer (the body,
// without the client's "Unexpected response code" wrapping), or the error
// text when there is no body.
func NomadMessage(err error) string {
	var ure api.UnexpectedResponseError
	if errors.As(err, &ure) && ure.HasBody() {
		return strings.TrimSpace(ure.Body())
	}
	var pure *api.UnexpectedResponseError
	if errors.As(err, &pure) && pure != nil && pure.HasBody() {
		return strings.TrimSpace(pure.Body())
	}
	return err.Error()
}

// IsScaleBlocked reports whether Nomad refused a scale because a
// deployment is in progress; a registration is accepted then.
func IsScaleBlocked(err error) bool {
	return err != nil && statusCode(err) == 400 && strings.Contains(NomadMessage(err), "blocked due to active deployment")
}

// IsJobIndexConflict reports whether Nomad refused a check-and-set write
// (register or scale) because the job changed since it was read: its
// refusals all start "Enforcing job modify index N:" ("job already exists"
// at N = 0, "job exists with conflicting job modify index", "job does not
// exist").
func IsJobIndexConflict(err error) bool {
	return err != nil && statusCode(err) != 0 && strings.Contains(NomadMessage(err), "Enforcing job modify index")
}

// IsBadRequest reports whether Nomad answered 400: it refused the request
// itself, so sending it again will not help.
func IsBadRequest(err error) bool { return statusCode(err) == 400 }
