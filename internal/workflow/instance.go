package workflow

import (
	"context"

	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/berthhq/terraform-provider-berth/internal/instance"
	"github.com/berthhq/terraform-provider-berth/internal/nomadclient"
)

// InstanceNomad is what berth_instance's writes need of Nomad;
// *nomadclient.Client has it.
type InstanceNomad interface {
	Ledger
	GetJob(ctx context.Context, ns, name string) (*nomadclient.Job, error)
	RegisterInstance(ctx context.Context, spec instance.Spec, count int, index uint64) (*nomadclient.RegisterResult, error)
	ActiveDeployment(ctx context.Context, job *nomadclient.Job) (*nomadclient.Deployment, error)
	ScaleJob(ctx context.Context, ns, name, group string, count int, reason string, index uint64) (*nomadclient.RegisterResult, error)
	RemoveJob(ctx context.Context, ns, name string, r nomadclient.Removal) error
	WaitAllocationsStopped(ctx context.Context, ns, name string) error
	WaitBatchComplete(ctx context.Context, ns, name, evalID string) error
	WaitSystemRunning(ctx context.Context, ns, name, evalID string) error
	WaitForPlacement(ctx context.Context, ns, name, evalID string) (*nomadclient.Deployment, error)
	WaitForRollout(ctx context.Context, ns, name, evalID string) (*nomadclient.Deployment, error)
	PromoteCanaries(ctx context.Context, ns, name string, opts nomadclient.PromoteOptions) (*nomadclient.Deployment, error)
	RestartAllocations(ctx context.Context, ns, name string) error
	PutSecretEnv(ctx context.Context, ns, path string, items map[string]string, index uint64) (uint64, error)
	DeleteSecretEnv(ctx context.Context, ns, path string, index uint64) error
}

// Instances runs berth_instance's writes: charge → secrets Variables →
// register (or scale) → settle → promote → restart → hand back, and the
// undo steps of each.
type Instances struct {
	Nomad   InstanceNomad
	Charges Charges
}

// NewInstances is the instance workflow on nomad, with node reservation
// ledgers in ledgerNamespace.
func NewInstances(nomad InstanceNomad, ledgerNamespace string) Instances {
	return Instances{Nomad: nomad, Charges: Charges{Nomad: nomad, Namespace: ledgerNamespace}}
}

// InstanceWrite is one create or update of an instance, as domain values.
type InstanceWrite struct {
	Want instance.Spec
	// Had is the instance as state has it; nil for a create. An update
	// whose count is left to Nomad has nil Replicas in Want and Had.
	Had *instance.Spec
	// Reservation and HadReservation are the node reservation IDs
	// planned and in state ("" for none).
	Reservation, HadReservation string
	// Secrets are the services' secret_env_wo values, from the
	// configuration (they are write-only: never in plan or state).
	Secrets map[string]map[string]string
	// SecretIndexes are the modify indexes of the secrets Variables as
	// berth last wrote them, by path (nomadclient.SecretIndexUnrecorded
	// for one an older state did not record): the check-and-set indexes
	// of their next rewrite or delete.
	SecretIndexes map[string]uint64
	// Wait is wait_for_healthy.
	Wait bool

	// For an update:
	// Index is the job modify index state recorded.
	Index uint64
	// Unmanaged are the settings berth does not manage that the last
	// refresh recorded (the plan said the apply removes them).
	Unmanaged []string
	// Promote (promote_trigger changed to a value) and Restart
	// (restart_triggers changed).
	Promote, Restart bool
	// CollectedBatch: state is a completed batch job, which Nomad may have
	// garbage-collected; Replicas is the count state recorded.
	CollectedBatch bool
	Replicas       *int
}

// Deployment is the deployment an apply followed, as deployment_id and
// deployment_status say it.
type Deployment struct {
	ID, Status string
	// Warning is for the apply's diagnostics: set when Nomad left the
	// deployment running although the rollout is done (see followed).
	Warning *Warning
}

// warnings are the deployment's warnings, none for nil.
func (d *Deployment) warnings() []Warning {
	if d == nil || d.Warning == nil {
		return nil
	}
	return []Warning{*d.Warning}
}

// DeploymentAwaitingPromotion is deployment_status while a deployment's
// canaries are placed and healthy and wait for a promotion (Nomad itself
// says "running").
const DeploymentAwaitingPromotion = "running (awaiting promotion)"

// DeploymentStatusOf is what deployment_status says about dep.
func DeploymentStatusOf(dep *nomadclient.Deployment) string {
	if dep.AwaitingPromotion {
		return DeploymentAwaitingPromotion
	}
	return dep.Status
}

// InstanceOutcome is what an instance write did.
type InstanceOutcome struct {
	// Written is the job write (registration or scale); nil when no job
	// was written. Once it is set, the job exists: state must record it.
	Written *nomadclient.RegisterResult
	// Deployment is the deployment the apply last saw (nil: none).
	Deployment *Deployment
	// RolloutErr: the job was written but did not settle (a
	// *nomadclient.RolloutError, or berth lost track of it).
	RolloutErr error
	Warnings   []Warning
	// Problems are undo and clean-up steps that failed: each is reported
	// beside the write's own outcome.
	Problems []error
	// SecretIndexes are the secrets Variables berth holds after the write,
	// by path, at the modify index it wrote (to record for the next one).
	SecretIndexes map[string]uint64
}

func (o *InstanceOutcome) warn(ws ...Warning) { o.Warnings = append(o.Warnings, ws...) }

// Create writes a new instance. The registration refuses a job that
// exists (check-and-set at index 0), so the job is looked up first only
// when something is written before it: a charge or a secret must never be
// written for another job of that name.
func (w Instances) Create(ctx context.Context, in InstanceWrite) (InstanceOutcome, error) {
	out := InstanceOutcome{SecretIndexes: map[string]uint64{}}
	spec := in.Want
	if in.Reservation != "" || len(instance.SecretEnvPaths(spec)) > 0 {
		existing, err := w.Nomad.GetJob(ctx, spec.Namespace, spec.Name)
		if err != nil {
			return out, &NomadError{"Could not check for an existing job", err}
		}
		if existing != nil {
			return out, &JobExistsError{Namespace: spec.Namespace, Name: spec.Name, Berth: existing.IsBerthInstance()}
		}
	}
	count := 1
	if spec.Replicas != nil {
		count = *spec.Replicas
	}
	if err := w.charge(ctx, &out, in.Reservation, spec, count); err != nil {
		return out, err
	}
	written, err := w.writeSecrets(ctx, &out, in, nil)
	if err != nil {
		undo := CleanupContext(ctx)
		w.deleteSecrets(undo, &out, spec.Namespace, written, false)
		w.release(undo, &out, in.Reservation, spec)
		return out, err
	}
	res, err := w.Nomad.RegisterInstance(ctx, spec, 1, 0)
	if nomadclient.OutcomeUnknown(err) {
		// The job may exist: the caller keeps it (tainted) with its charge,
		// so the next apply finds and replaces it rather than orphaning it.
		return out, &WriteError{Summary: "Could not register the job", Err: err, Uncertain: true}
	}
	if err != nil {
		err = w.createRefused(ctx, spec, err)
		undo := CleanupContext(ctx)
		w.deleteSecrets(undo, &out, spec.Namespace, written, false)
		w.release(undo, &out, in.Reservation, spec)
		return out, err
	}
	tflog.Info(ctx, "Registered job", map[string]any{"job": spec.Name, "namespace": spec.Namespace, "eval": res.EvalID})
	out.Written = res
	if res.Warnings != "" {
		out.warn(Warning{"Nomad warnings", res.Warnings})
	}
	out.RolloutErr = w.settle(ctx, &out, spec, res.EvalID, in.Wait)
	return out, nil
}

// createRefused says why a create's registration was refused: a job of
// that name (someone registered it since the plan), or Nomad's refusal.
func (w Instances) createRefused(ctx context.Context, spec instance.Spec, err error) error {
	switch {
	case nomadclient.IsJobIndexConflict(err):
		existing, readErr := w.Nomad.GetJob(CleanupContext(ctx), spec.Namespace, spec.Name)
		if readErr != nil || existing == nil {
			return &NomadError{"Could not register the job", err}
		}
		return &JobExistsError{Namespace: spec.Namespace, Name: spec.Name, Berth: existing.IsBerthInstance()}
	case nomadclient.IsBadRequest(err):
		return &WriteError{Summary: "Could not register the job", Err: err}
	}
	return &NomadError{"Could not register the job", err}
}

// InstanceDelete is one destroy of an instance.
type InstanceDelete struct {
	Namespace, Name string
	// Reservation is the node reservation it is placed into ("" none).
	Reservation string
	Purge       bool
	// Had is the instance as state has it, for its secrets Variables; nil
	// when state cannot say. SecretIndexes as in InstanceWrite.
	Had           *instance.Spec
	SecretIndexes map[string]uint64
}

// Delete removes the instance's job, gives its capacity back to its node
// reservation without a gap, and deletes its secrets Variables. It returns
// once Nomad's scheduler has stopped the allocations (their room is free);
// an instance that mounts volumes (or whose volumes state cannot say)
// waits until the clients stopped them too, so the volume's own destroy,
// next in the same apply, finds it released.
func (w Instances) Delete(ctx context.Context, in InstanceDelete) (InstanceOutcome, error) {
	out := InstanceOutcome{SecretIndexes: secretIndexes(in.SecretIndexes)}
	removal := nomadclient.Removal{Purge: in.Purge, UntilStopped: in.Had == nil || len(in.Had.Volumes) > 0}
	remove := func(ctx context.Context) error { return w.Nomad.RemoveJob(ctx, in.Namespace, in.Name, removal) }
	var err error
	out.Warnings, out.Problems, err = w.Charges.Remove(ctx, in.Reservation, "instance", nomadclient.InstanceConsumer(in.Namespace, in.Name), remove)
	if err != nil {
		return out, &NomadError{"Could not delete the job", err}
	}
	if in.Had != nil {
		w.dropSecrets(ctx, &out, *in.Had, nil)
	}
	return out, nil
}

// settle waits for the outcome of an instance's registration (Settle).
func (w Instances) settle(ctx context.Context, out *InstanceOutcome, spec instance.Spec, evalID string, wait bool) error {
	dep, err := Settle(ctx, w.Nomad, Settling{Namespace: spec.Namespace, Name: spec.Name, Type: spec.JobType(), EvalID: evalID,
		Stopped: !spec.Running, Wait: wait, ManualHealth: instance.HealthCheckOf(spec) == instance.HealthCheckManual})
	if dep != nil {
		out.Deployment = dep
		out.warn(dep.warnings()...)
	}
	return err
}
