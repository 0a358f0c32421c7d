// Package lease models berth_reservation: a signed, time-bounded workload
// lease that runs as a Nomad batch job.
//
// The job has one task group ("lease") holding the workload task and a
// leader timer task that sleeps until the lease expires. When the leader exits
// Nomad stops the whole group, so the workload ends at expiry on the cluster's
// own clock, even if berth (or Terraform) never runs again.
//
// What a lease may do is signed with ed25519 over CanonicalBytes; the job
// records the signer and signature in its meta so anyone can rebuild the lease
// from the running job (LeaseFromJob) and check it still matches (Verify).
package lease

import (
	"errors"
	"fmt"
	"time"

	"github.com/berthhq/terraform-provider-berth/internal/capacity"
)

const (
	// GroupName is the single task group of every lease job.
	GroupName = "lease"
	// WorkloadTask runs what the lease was granted for.
	WorkloadTask = "workload"
	// TimerTask is the leader task whose exit ends the lease.
	TimerTask = "lease-timer"

	// DefaultTimerDriver runs the timer when the caller does not choose one.
	DefaultTimerDriver = "exec"
	// TimerCommand is what the timer task runs, with the seconds left as its
	// only argument.
	TimerCommand = "/bin/sleep"

	// MetaKind marks jobs managed by berth; KindLease is its value on leases.
	MetaKind  = "berth.kind"
	KindLease = "lease"
	// MetaUser holds the signer's hex ed25519 public key.
	MetaUser = "berth.user"
	// MetaCreatedAt holds CreatedAt in RFC 3339 (UTC).
	MetaCreatedAt = "berth.created_at"
	// MetaDuration holds Duration as a Go duration string.
	MetaDuration = "berth.duration"
	// MetaExpiresAt holds ExpiresAt in RFC 3339 (UTC); it is redundant, for
	// humans reading the job, and LeaseFromJob checks it agrees.
	MetaExpiresAt = "berth.expires_at"
	// MetaSignature holds the hex ed25519 signature over CanonicalBytes.
	MetaSignature = "berth.signature"
	// MetaSignedAt holds SignedAt in RFC 3339 with nanoseconds (UTC); only
	// on leases signed since signing times exist (canonical form v2).
	MetaSignedAt = "berth.signed_at"

	// PinTarget is the constraint attribute that pins a lease to one node.
	PinTarget = "${node.unique.id}"

	// DefaultNamespace is what Nomad uses for an empty namespace; an empty
	// Lease.Namespace means it, so both sign and compare the same.
	DefaultNamespace = "default"
	// DefaultDiskMB is Nomad's ephemeral disk size when none is requested;
	// Workload.Disk 0 means it, so both sign and compare the same.
	DefaultDiskMB = 300

	// Both tasks keep LogFiles x LogFileMB of logs. Nomad requires each
	// task's log storage to be strictly below the group's ephemeral disk, so
	// its defaults (10 x 10 MB) would forbid any disk under 101 MB.
	LogFiles  = 2
	LogFileMB = 5
	// MinDiskMB is the smallest Workload.Disk Nomad accepts with these logs.
	MinDiskMB = LogFiles*LogFileMB + 1

	// MinCPU and MinMemoryMB are Nomad's minimum task resources.
	MinCPU      = 1
	MinMemoryMB = 10

	// Timer task resources: it only sleeps.
	TimerCPU      = 20
	TimerMemoryMB = 16
)

// Workload is what a lease runs. Every field is signed.
// The tf tags name the fields in Diff's lines (drift.Diff).
type Workload struct {
	Driver  string            `tf:"driver"`
	Image   string            `tf:"image"`   // config.image, omitted when empty
	Command string            `tf:"command"` // config.command, omitted when empty
	Args    []string          `tf:"args"`
	Env     map[string]string `tf:"env"`
	CPU     int               `tf:"cpu"`    // MHz
	Memory  int               `tf:"memory"` // MiB
	Disk    int               `tf:"disk"`   // MiB of group ephemeral disk; 0 = Nomad's default (DefaultDiskMB)
	// Ports are labels of dynamic ports Nomad gives the workload (the
	// task reads NOMAD_PORT_<label>); the result reports where each is.
	Ports []string `tf:"ports"`
}

// Lease is a signed grant to run Workload from CreatedAt for Duration.
type Lease struct {
	Name      string `tf:"name"`
	Namespace string `tf:"namespace"` // "" = DefaultNamespace
	// NodeID is the requested node; "" lets Nomad place the lease.
	NodeID string `tf:"node"`
	// User is the signer's hex ed25519 public key; "" when unsigned.
	User     string   `tf:"user"`
	Workload Workload `tf:"workload"`
	// Reference names another lease in the same namespace this one
	// belongs to: it ends when that one ends (reference.go). "" for none.
	Reference string `tf:"reference"`
	// ReferenceAlloc is the allocation of the referenced lease berth
	// verified when this one was created: only that allocation's service
	// keeps this lease running, so no other job (a non-lease, or another
	// lease reusing the name after the referenced one ended) can. Signed;
	// "" for none and for referring leases of earlier berths. Untagged:
	// berth sets it, not the configuration.
	ReferenceAlloc string
	CreatedAt      time.Time     `tf:"created_at"` // UTC, whole seconds
	Duration       time.Duration `tf:"duration"`   // > 0, whole seconds
	// Signature is the hex ed25519 signature over CanonicalBytes; "" when
	// unsigned. Diff says only that it changed.
	Signature string
	// SignedAt is when berth signed this version of the lease (signed, so
	// a version signed earlier cannot pass for a later one: Check); zero
	// when unsigned or signed before signing times existed. Untagged, like
	// Signature: it belongs to the signing, not to what the lease grants,
	// and state does not hold it (Diff compares a lease from state).
	SignedAt time.Time

	// Foreign lists what LeaseFromJob found in the job that BuildJob never
	// writes (extra tasks, unknown driver config, a longer timer, …). It is
	// not signed; Verify fails while it is non-empty, because such a change
	// can alter what runs or for how long without touching signed fields.
	Foreign []string
}

// ExpiresAt is when the lease ends.
func (l Lease) ExpiresAt() time.Time { return l.CreatedAt.Add(l.Duration) }

// Footprint is what the lease's job asks Nomad for, and so what a node
// reservation is charged for it: the workload task plus the timer task
// (cpu and memory), and the group's ephemeral disk, which both tasks share.
func (l Lease) Footprint() capacity.Resources {
	w := l.effective().Workload
	return capacity.Resources{
		CPU:      int64(w.CPU) + TimerCPU,
		MemoryMB: int64(w.Memory) + TimerMemoryMB,
		DiskMB:   int64(w.Disk),
	}
}

// Remaining is how long the lease still has at now, never negative.
func (l Lease) Remaining(now time.Time) time.Duration {
	return max(0, l.ExpiresAt().Sub(now))
}

// Expired reports whether the lease has ended at now; the expiry instant
// itself counts as expired, matching Remaining == 0.
func (l Lease) Expired(now time.Time) bool { return !now.Before(l.ExpiresAt()) }

// Validate reports what would make the lease unsignable or the job
// unacceptable to Nomad, so callers fail at plan time rather than on submit.
func (l Lease) Validate() error {
	var errs []error
	add := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	if l.Name == "" {
		add("name must not be empty")
	}
	if l.CreatedAt.IsZero() {
		add("created_at must be set")
	}
	if err := checkTiming(l); err != nil {
		errs = append(errs, err)
	}
	w := l.Workload
	if w.Driver == "" {
		add("workload.driver must not be empty")
	}
	if w.CPU < MinCPU {
		add("workload.cpu must be at least %d MHz; got %d", MinCPU, w.CPU)
	}
	if w.Memory < MinMemoryMB {
		add("workload.memory must be at least %d MiB; got %d", MinMemoryMB, w.Memory)
	}
	if w.Disk != 0 && w.Disk < MinDiskMB {
		add("workload.disk must be 0 (Nomad's default) or at least %d MiB, above the %d MiB of task logs; got %d",
			MinDiskMB, LogFiles*LogFileMB, w.Disk)
	}
	for k := range w.Env {
		if k == "" {
			add("workload.env keys must not be empty")
			break
		}
	}
	if l.Reference != "" && l.Reference == l.Name {
		add("reference must name another lease, not this one")
	}
	if _, err := CanonicalBytes(l); err != nil && len(errs) == 0 {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// checkTiming rejects timing the canonical form cannot represent exactly:
// it carries whole seconds, so a sub-second part would be unsigned.
func checkTiming(l Lease) error {
	if l.Duration <= 0 {
		return fmt.Errorf("duration must be positive; got %s", l.Duration)
	}
	if l.Duration%time.Second != 0 {
		return fmt.Errorf("duration must be whole seconds; got %s", l.Duration)
	}
	if l.CreatedAt.Nanosecond() != 0 {
		return errors.New("created_at must be whole seconds")
	}
	return nil
}

// effective resolves the values Nomad substitutes for empty ones, so a lease
// signed with "" or 0 still verifies against the job Nomad actually stores.
func (l Lease) effective() Lease {
	if l.Namespace == "" {
		l.Namespace = DefaultNamespace
	}
	if l.Workload.Disk == 0 {
		l.Workload.Disk = DefaultDiskMB
	}
	return l
}
