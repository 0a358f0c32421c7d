package workflow

import (
	"context"
	"errors"
	"fmt"

	"github.com/berthhq/terraform-provider-berth/internal/instance"
	"github.com/berthhq/terraform-provider-berth/internal/nomadclient"
)

// Waiter is what waiting for a registration's outcome needs of Nomad;
// *nomadclient.Client has it.
type Waiter interface {
	WaitAllocationsStopped(ctx context.Context, ns, name string) error
	WaitBatchComplete(ctx context.Context, ns, name, evalID string) error
	WaitSystemRunning(ctx context.Context, ns, name, evalID string) error
	WaitForPlacement(ctx context.Context, ns, name, evalID string) (*nomadclient.Deployment, error)
	WaitForRollout(ctx context.Context, ns, name, evalID string) (*nomadclient.Deployment, error)
}

// Settling is one registration whose outcome an apply waits for.
type Settling struct {
	Namespace, Name, Type, EvalID string
	// Stopped: the job was registered stopped; its allocations must stop.
	Stopped bool
	// Wait is wait_for_healthy; Launched: a periodic or parameterized job,
	// whose runs start later, so there is nothing to wait for.
	Wait, Launched bool
	// ManualHealth: allocations are marked healthy by hand, so only the
	// placement is waited for.
	ManualHealth bool
}

// Settle waits for what an apply waits for after a registration: a
// healthy deployment for a service job (or its placement, with manual
// health), completion for a batch or sysbatch job, every eligible node for
// a system job, all allocations stopped for a stopped one. It returns the
// deployment it followed (nil: none), a failed one included.
func Settle(ctx context.Context, nomad Waiter, s Settling) (*Deployment, error) {
	ns, name := s.Namespace, s.Name
	switch {
	case s.Stopped:
		return nil, nomad.WaitAllocationsStopped(ctx, ns, name)
	case !s.Wait || s.Launched:
		return nil, nil
	case s.Type == instance.TypeBatch || s.Type == TypeSysbatch:
		return nil, nomad.WaitBatchComplete(ctx, ns, name, s.EvalID)
	case s.Type == instance.TypeSystem:
		return nil, nomad.WaitSystemRunning(ctx, ns, name, s.EvalID)
	}
	var dep *nomadclient.Deployment
	var err error
	if s.ManualHealth {
		dep, err = nomad.WaitForPlacement(ctx, ns, name, s.EvalID)
	} else {
		dep, err = nomad.WaitForRollout(ctx, ns, name, s.EvalID)
	}
	out := followed(dep)
	var re *nomadclient.RolloutError
	if errors.As(err, &re) && re.DeploymentID != "" {
		// A deployment Nomad left running is recorded as Nomad shows it.
		status := instance.DeploymentFailed
		if re.DeploymentStatus != "" {
			status = re.DeploymentStatus
		}
		out = &Deployment{ID: re.DeploymentID, Status: status}
	}
	return out, err
}

// followed is the deployment a wait followed, as deployment_id and
// deployment_status say it, with the warning about one Nomad left running
// (nil for nil).
func followed(dep *nomadclient.Deployment) *Deployment {
	if dep == nil {
		return nil
	}
	out := &Deployment{ID: dep.ID, Status: DeploymentStatusOf(dep)}
	if dep.Forgotten != "" {
		out.Warning = &Warning{"Deployment left running by Nomad", fmt.Sprintf("%s\n\n"+
			"Nomad normally marks such a deployment successful within seconds; berth stopped waiting for it rather than "+
			"wait for its progress deadline, and the apply succeeded because the allocations confirm the rollout. "+
			"Until Nomad closes the deployment it keeps watching it: an allocation that fails meanwhile can still fail it "+
			"(and, with auto_revert, revert the job). A later change registers a new version, whose deployment replaces "+
			"this one. Check it with `nomad deployment status %s`.", dep.Forgotten, dep.ID)}
	}
	return out
}

// TypeSysbatch is Nomad's job type that runs to completion on every
// eligible node.
const TypeSysbatch = "sysbatch"
