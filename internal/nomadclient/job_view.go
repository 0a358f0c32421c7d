package nomadclient

import (
	"context"
	"time"

	"github.com/hashicorp/nomad/api"

	"github.com/berthhq/terraform-provider-berth/internal/instance"
	"github.com/berthhq/terraform-provider-berth/internal/jobspec"
	"github.com/berthhq/terraform-provider-berth/internal/lease"
)

// Job is a job read from Nomad as the layers above this package hold it:
// opaque, read through its methods and the domain readers they call, so
// no Nomad API type leaves nomadclient (DESIGN.md, Layers). A missing job
// is a nil *Job.
type Job struct {
	job   *api.Job
	extra jobspec.Extras // what job's api structs do not hold
}

func jobOf(j *api.Job) *Job {
	if j == nil {
		return nil
	}
	return &Job{job: j}
}

// InstanceJob is the job Nomad holds once spec is registered with count
// allocations at modify index index, as GetJob returns it (before Nomad's
// canonicalisation). It lets the layers above, which never see a Nomad
// job, stand in for Nomad in their tests.
func InstanceJob(spec instance.Spec, count int, index uint64) *Job {
	j := instance.BuildJob(spec, count)
	j.JobModifyIndex = &index
	return jobOf(j)
}

// LeaseJob is the job Nomad holds once l is registered (timer task run by
// driver, at now) at modify index index, as GetJob returns it; for the
// same tests as InstanceJob.
func LeaseJob(l lease.Lease, driver string, now time.Time, index uint64) *Job {
	j := lease.BuildJob(l, driver, now)
	j.JobModifyIndex = &index
	return jobOf(j)
}

// ID is the job's ID.
func (j *Job) ID() string { return deref(j.job.ID) }

// Namespace is the job's namespace.
func (j *Job) Namespace() string { return deref(j.job.Namespace) }

// ModifyIndex is the job's modify index, what check-and-set writes compare.
func (j *Job) ModifyIndex() uint64 { return deref(j.job.JobModifyIndex) }

// NodePool is the node pool the job runs in.
func (j *Job) NodePool() string { return deref(j.job.NodePool) }

// RegistersLeaseService reports whether the lease job registers the
// service referring leases watch.
func (j *Job) RegistersLeaseService() bool { return lease.RegistersService(j.job) }

// Stopped reports whether someone stopped the job (`nomad job stop`,
// without purging it).
func (j *Job) Stopped() bool { return deref(j.job.Stop) }

// Dead reports whether Nomad considers the job dead (stopped, or done).
func (j *Job) Dead() bool { return deref(j.job.Status) == jobStatusDead }

// jobStatusDead is Nomad's status of a job with nothing left to run; the
// api package has no constant for it.
const jobStatusDead = "dead"

// IsBerthInstance reports whether berth_instance created the job.
func (j *Job) IsBerthInstance() bool { return instance.IsBerthJob(j.job) }

// InstanceSpec reads the job as an instance, with what berth_instance
// cannot represent (instance.SpecFromJob), fields berth's api structs do
// not hold (a newer Nomad's) among them, but for those Nomad fills in
// itself (jobspec.Extra.FilledByNomad): an import refuses them by name,
// and a managed job's plan says the update removes them, as for any
// setting berth_instance does not manage.
func (j *Job) InstanceSpec() (instance.Spec, []string) {
	spec, unsupported := instance.SpecFromJob(j.job)
	for _, e := range j.extra {
		if !e.FilledByNomad(j.job) {
			unsupported = append(unsupported, e.Name)
		}
	}
	return spec, unsupported
}

// ObserveInstance is what the job and its allocations tell of an instance.
func (j *Job) ObserveInstance(allocs Allocations) instance.Observed {
	return instance.Observe(j.job, allocs.stubs)
}

// Lease reads the job as a lease (lease.LeaseFromJob).
func (j *Job) Lease() (lease.Lease, error) { return lease.LeaseFromJob(j.job) }

// IsLeaseJobOf reports whether the job is the one l's create registered.
func (j *Job) IsLeaseJobOf(l lease.Lease) bool { return lease.IsJobOf(j.job, l) }

// Allocations are a job's allocations as the layers above hold them.
type Allocations struct{ stubs []*api.AllocationListStub }

// NewestTaskOutcome is how task ended in the newest allocation.
func (a Allocations) NewestTaskOutcome(task string) TaskOutcome {
	return NewestTaskOutcome(a.stubs, task)
}

// GetJob returns the job, or nil when Nomad has none by that ID.
func (c *Client) GetJob(ctx context.Context, namespace, id string) (*Job, error) {
	j, extra, err := c.getJobWhole(ctx, namespace, id)
	if err != nil || j == nil {
		return nil, err
	}
	return &Job{job: j, extra: extra}, nil
}

// Unheld names the job's fields that berth's api structs do not hold (a
// block of a newer Nomad), as berth names them to users.
func (j *Job) Unheld() []string { return j.extra.Names() }

// JobAllocations returns every allocation of the job.
func (c *Client) JobAllocations(ctx context.Context, namespace, id string) (Allocations, error) {
	stubs, err := c.jobAllocations(ctx, namespace, id)
	return Allocations{stubs: stubs}, err
}

// RegisterInstance registers the job of spec (instance.BuildJob) with
// count allocations, check-and-set against modifyIndex (0: a new job).
func (c *Client) RegisterInstance(ctx context.Context, spec instance.Spec, count int, modifyIndex uint64) (*RegisterResult, error) {
	return c.RegisterJob(ctx, instance.BuildJob(spec, count), modifyIndex)
}

// RegisterLease registers the job of l (lease.BuildJob) run by driver,
// check-and-set against modifyIndex (0: a new job).
func (c *Client) RegisterLease(ctx context.Context, l lease.Lease, driver string, now time.Time, modifyIndex uint64) (*RegisterResult, error) {
	return c.RegisterJob(ctx, lease.BuildJob(l, driver, now), modifyIndex)
}

// ActiveDeployment returns the job's deployment in progress, or nil
// (activeDeployment).
func (c *Client) ActiveDeployment(ctx context.Context, job *Job) (*Deployment, error) {
	d, err := c.activeDeployment(ctx, job.job)
	return deploymentOf(d), err
}

// JobspecJob is the job Nomad holds once s is registered at modify index
// index, as GetJob returns it; for the same tests as InstanceJob.
func JobspecJob(s jobspec.Spec, index uint64) (*Job, error) {
	j, extra, err := jobspec.Parse(s, nil)
	if err != nil {
		return nil, err
	}
	j.JobModifyIndex = &index
	return &Job{job: j, extra: extra}, nil
}
