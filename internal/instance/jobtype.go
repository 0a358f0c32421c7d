package instance

import (
	"fmt"

	"github.com/hashicorp/nomad/api"

	"github.com/berthhq/terraform-provider-berth/internal/allocstatus"
)

// Job types an instance may have (Spec.Type; "" means TypeService).
const (
	// TypeService jobs run until stopped; applies follow their deployment.
	TypeService = api.JobTypeService
	// TypeBatch jobs run to completion once per job version.
	TypeBatch = api.JobTypeBatch
	// TypeSystem jobs run one allocation on every eligible node of their
	// node pool.
	TypeSystem = api.JobTypeSystem
)

// JobTypes lists the job types berth supports, for docs and validators.
func JobTypes() []string { return []string{TypeService, TypeBatch, TypeSystem} }

// JobType is s's job type with "" read as TypeService.
func (s Spec) JobType() string {
	if s.Type == "" {
		return TypeService
	}
	return s.Type
}

// normalizeJobType applies what the job type implies to a normalized spec:
// batch jobs have no update strategy (Nomad refuses one), so whatever the
// spec says there is not part of it; system jobs have no count of their
// own (one allocation per node), so Replicas is unset.
func normalizeJobType(s *Spec) {
	s.Type = s.JobType()
	switch s.Type {
	case TypeBatch:
		s.Update = Update{}
	case TypeSystem:
		s.Replicas = nil
	}
}

// validateJobType reports what Nomad refuses (or, for canaries, ignores)
// on the spec's job type. A batch job's update is refused by the provider,
// which alone can tell a configured update from the schema's default.
func (v *validator) jobType(s Spec) {
	if s.JobType() != TypeSystem {
		return
	}
	if s.Replicas != nil {
		v.add(path("replicas"), "replicas on a system job",
			"A system job runs one allocation on every eligible node of its node pool; it has no replica count. Remove replicas.")
	}
	if s.PinNode != "" {
		v.add(path("node_reservation"), "node_reservation on a system job",
			"A system job runs on every eligible node of its node pool, so it cannot be placed into one node's reservation. "+
				"Remove node_reservation, or use a service job.")
	}
	if s.Update.Canary > 0 {
		v.add(path("update", "canary"), "Canaries on a system job",
			"Nomad runs no deployments for system jobs, so canaries would never be placed or promoted. Set canary to 0.")
	}
}

// systemCount is the group count of a system job: one allocation per node.
const systemCount = 1

// checkJobType reports job types berth does not run.
func (r *reader) checkJobType(job *api.Job) string {
	t := deref(job.Type)
	if t == "" {
		return TypeService
	}
	for _, known := range JobTypes() {
		if t == known {
			return t
		}
	}
	r.add("job type is %q (berth instances are %s jobs)", t, joinQuoted(JobTypes()))
	return t
}

func joinQuoted(list []string) string {
	out := ""
	for i, s := range list {
		switch {
		case i == 0:
		case i == len(list)-1:
			out += " or "
		default:
			out += ", "
		}
		out += fmt.Sprintf("%q", s)
	}
	return out
}

// deriveBatchStatus is DeriveStatus for a batch job: while an allocation
// may still run it is the service status of those allocations; after that
// the job ended, and the status says how the allocations of the job's
// current version ended: failed when any of them failed (or was lost)
// without being replaced, complete when they all completed, pending when
// there are none yet.
func deriveBatchStatus(jobStopped bool, jobVersion uint64, allocs []*api.AllocationListStub) Status {
	if jobStopped {
		return StatusStopped
	}
	var live []*api.AllocationListStub
	var ended []*api.AllocationListStub
	for _, a := range allocs {
		if a == nil || a.NextAllocation != "" ||
			(a.DesiredStatus != "" && a.DesiredStatus != api.AllocDesiredStatusRun) {
			continue
		}
		if allocstatus.Live(a.ClientStatus) {
			live = append(live, a)
		} else {
			ended = append(ended, a)
		}
	}
	if len(live) > 0 {
		return DeriveStatus(false, jobVersion, live)
	}
	failed, complete := 0, 0
	for _, a := range ended {
		// Nomad runs every new version of a batch job again and ignores
		// what older versions left behind; a version without allocations
		// yet is still to run (its evaluation may be blocked).
		if a.JobVersion != jobVersion {
			continue
		}
		if a.ClientStatus == api.AllocClientStatusComplete {
			complete++
		} else {
			failed++
		}
	}
	switch {
	case failed > 0:
		return StatusFailed
	case complete > 0:
		return StatusComplete
	default:
		return StatusPending
	}
}

// deriveStatusFor picks the status rule for the job's type.
func deriveStatusFor(job *api.Job, allocs []*api.AllocationListStub) Status {
	if deref(job.Type) == TypeBatch {
		return deriveBatchStatus(deref(job.Stop), deref(job.Version), allocs)
	}
	return DeriveStatus(deref(job.Stop), deref(job.Version), allocs)
}
