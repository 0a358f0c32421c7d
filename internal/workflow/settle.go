package workflow

import (
	"context"
	"errors"

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
	var out *Deployment
	if dep != nil {
		out = &Deployment{dep.ID, DeploymentStatusOf(dep)}
	}
	var re *nomadclient.RolloutError
	if errors.As(err, &re) && re.DeploymentID != "" {
		out = &Deployment{re.DeploymentID, instance.DeploymentFailed}
	}
	return out, err
}

// TypeSysbatch is Nomad's job type that runs to completion on every
// eligible node.
const TypeSysbatch = "sysbatch"
