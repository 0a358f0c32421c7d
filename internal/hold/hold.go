// Package hold is the scheduler side of a node reservation: the Nomad job
// that makes Nomad itself count a reservation's unused budget as taken, so
// work submitted any other way (nomad job run, another provider, the HTTP
// API) cannot be placed into it.
//
// Each node reservation owns at most one hold job, pinned to its node, with
// one task that does nothing and is sized to what the reservation has not
// lent to consumers (request − charged). The ledger stays the source of
// truth; the hold is derived from it, so building the same job twice from
// the same ledger yields the same job and rewriting it changes nothing.
package hold

import (
	"time"

	"github.com/hashicorp/nomad/api"

	"github.com/berthhq/terraform-provider-berth/internal/capacity"
)

// Nomad refuses a task below these (nomad/structs: minimum CPU 1 MHz,
// MemoryMB 10, ephemeral DiskMB 10).
const (
	MinCPU      = 1
	MinMemoryMB = 10
	MinDiskMB   = 10
)

// Priority is the hold job's priority: well above Nomad's default of 50,
// so no ordinary job outranks it, and the most Nomad allows by default.
const Priority = 100

// Meta keys and the kind value that mark a hold job, so operators and
// berth's own readers recognize it.
const (
	MetaKind            = "berth.kind"
	KindHold            = "node-reservation-hold"
	MetaNodeID          = "berth.node_id"
	MetaNodeReservation = "berth.node_reservation"
	// MetaLedgerItem mirrors the reservation's ledger item, so listing
	// nodes reads every reservation with one request for all hold jobs.
	MetaLedgerItem = "berth.ledger_item"
)

// GroupName and TaskName name the hold's only group and task.
const (
	GroupName = "hold"
	TaskName  = "hold"
)

// Command and Args keep the hold task alive without doing anything: a
// sleep of about 68 years, spelled as seconds so every sleep(1) accepts it.
const Command = "/bin/sleep"

// Args is the hold task's argument list (a fresh slice each call).
func Args() []string { return []string{"2147483647"} }

// JobPrefix starts every hold job's ID.
const JobPrefix = "berth-hold-"

// JobID is the ID of the hold job of the reservation name on nodeID: the
// node's short ID keeps reservations of the same name on different nodes
// apart, as Nomad's CLI shows node IDs.
func JobID(nodeID, name string) string {
	short := nodeID
	if len(short) > 8 {
		short = short[:8]
	}
	return JobPrefix + short + "-" + name
}

// Size is what the hold of a reservation with unused budget holds, and
// whether there is one. Nomad cannot run a task below MinCPU or
// MinMemoryMB, so a budget with less than that in cpu or memory has no hold
// (its whole unused budget is unheld; see Unheld). Ephemeral disk below
// MinDiskMB is raised to MinDiskMB: most reservations hold no disk, and a
// 10 MiB sliver is what any allocation costs; the caller counts the excess
// as allocated on the node so its arithmetic stays exact.
func Size(unused capacity.Resources) (capacity.Resources, bool) {
	if unused.CPU < MinCPU || unused.MemoryMB < MinMemoryMB {
		return capacity.Resources{}, false
	}
	held := unused
	held.DiskMB = max(held.DiskMB, MinDiskMB)
	return held, true
}

// Unheld is the part of an unused budget that no hold can keep from other
// jobs: all of it when Size finds no hold, nothing otherwise. Negative
// dimensions (an over-charged reservation) count as zero.
func Unheld(unused capacity.Resources) capacity.Resources {
	if _, ok := Size(unused); ok {
		return capacity.Resources{}
	}
	return capacity.Resources{CPU: max(unused.CPU, 0), MemoryMB: max(unused.MemoryMB, 0), DiskMB: max(unused.DiskMB, 0)}
}

// Excess is what a hold sized held takes beyond the unused budget (the
// disk raised to Nomad's minimum): capacity the node gives up that no
// reservation accounts for.
func Excess(held, unused capacity.Resources) capacity.Resources {
	d := held.Sub(unused)
	return capacity.Resources{CPU: max(d.CPU, 0), MemoryMB: max(d.MemoryMB, 0), DiskMB: max(d.DiskMB, 0)}
}

// Spec is what a hold job is built from.
type Spec struct {
	Namespace, NodeID, Name, Driver string
	// Held is what the hold takes (see Size); zero when Nomad cannot hold
	// the budget: the job then runs no allocation but still exists, so
	// its meta lists the reservation.
	Held capacity.Resources
	// Item is the reservation's ledger item as stored (ledger.EncodeItem).
	Item string
}

// BuildJob builds the hold job of s.
//
// It is a service job with deployments turned off, so a resize replaces
// the allocation in one placement and never starts a deployment; it
// restarts and reschedules forever, since a hold that stopped would free
// the capacity it exists to keep.
func BuildJob(s Spec) *api.Job {
	id := JobID(s.NodeID, s.Name)
	count, task := 1, s.Held
	if s.Held.IsZero() {
		// Nothing to hold: no allocation, and a task that would be valid.
		count, task = 0, capacity.Resources{CPU: MinCPU, MemoryMB: MinMemoryMB, DiskMB: MinDiskMB}
	}
	return &api.Job{
		ID:        ptr(id),
		Name:      ptr(id),
		Namespace: ptr(s.Namespace),
		Type:      ptr(api.JobTypeService),
		Priority:  ptr(Priority),
		// "all" so the pin works whatever pool the node is in.
		NodePool:    ptr("all"),
		Datacenters: []string{"*"},
		Constraints: []*api.Constraint{{LTarget: "${node.unique.id}", Operand: "=", RTarget: s.NodeID}},
		Meta:        map[string]string{MetaKind: KindHold, MetaNodeID: s.NodeID, MetaNodeReservation: s.Name, MetaLedgerItem: s.Item},
		TaskGroups: []*api.TaskGroup{{
			Name:  ptr(GroupName),
			Count: ptr(count),
			// Nomad gives a service job without an update block a rolling
			// one; max_parallel 0 turns deployments off, so a resize is
			// one placement that stops the old allocation in the same plan.
			Update:        &api.UpdateStrategy{MaxParallel: ptr(0)},
			EphemeralDisk: &api.EphemeralDisk{SizeMB: ptr(int(task.DiskMB))},
			RestartPolicy: &api.RestartPolicy{Attempts: ptr(3), Mode: ptr(api.RestartPolicyModeDelay)},
			ReschedulePolicy: &api.ReschedulePolicy{
				Unlimited: ptr(true), Delay: ptr(5 * time.Second), DelayFunction: ptr("constant"),
			},
			Tasks: []*api.Task{{
				Name:   TaskName,
				Driver: s.Driver,
				Config: map[string]any{"command": Command, "args": Args()},
				// Kill at once: the sleep is PID 1 of the exec driver's PID
				// namespace and ignores the polite signal, so Nomad's default
				// 5 s grace would hold the room that long after every resize.
				KillTimeout: ptr(time.Millisecond),
				Resources: &api.Resources{
					CPU:      ptr(int(task.CPU)),
					MemoryMB: ptr(int(task.MemoryMB)),
				},
				// One 1 MiB log file: the whole log budget must fit in the
				// smallest ephemeral disk a hold may have.
				LogConfig: &api.LogConfig{MaxFiles: ptr(1), MaxFileSizeMB: ptr(1)},
			}},
		}},
	}
}

// IsHoldJob reports whether job is a hold job.
func IsHoldJob(job *api.Job) bool { return job != nil && job.Meta[MetaKind] == KindHold }

// Of reads what a hold job holds (zero when it runs no allocation) and
// the driver it runs with. ok is false for a job that is not a hold or is
// not shaped like one.
func Of(job *api.Job) (held capacity.Resources, driver string, ok bool) {
	if !IsHoldJob(job) || len(job.TaskGroups) != 1 || len(job.TaskGroups[0].Tasks) != 1 {
		return capacity.Resources{}, "", false
	}
	g := job.TaskGroups[0]
	t := g.Tasks[0]
	if deref(g.Count) == 0 || deref(job.Stop) {
		return capacity.Resources{}, t.Driver, true
	}
	if t.Resources != nil {
		held.CPU = int64(deref(t.Resources.CPU))
		held.MemoryMB = int64(deref(t.Resources.MemoryMB))
	}
	if g.EphemeralDisk != nil {
		held.DiskMB = int64(deref(g.EphemeralDisk.SizeMB))
	}
	return held, t.Driver, true
}

// Matches reports whether job is the hold BuildJob makes for s, in what
// berth decides: an equal job needs no write. A stopped job never matches.
func Matches(job *api.Job, s Spec) bool {
	got, driver, ok := Of(job)
	if !ok || deref(job.Stop) || deref(job.Priority) != Priority {
		return false
	}
	pinned := len(job.Constraints) == 1 && job.Constraints[0].RTarget == s.NodeID
	return got == s.Held && driver == s.Driver && pinned && job.Meta[MetaNodeID] == s.NodeID &&
		job.Meta[MetaNodeReservation] == s.Name && job.Meta[MetaLedgerItem] == s.Item
}

func ptr[T any](v T) *T { return &v }

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}
