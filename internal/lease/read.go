package lease

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/nomad/api"

	"github.com/berthhq/terraform-provider-berth/internal/taskconfig"
)

// ClockSkewAllowance is how far past expires_at a timer may appear to run,
// judged from the job's submit time (Nomad's clock) against the sleep berth
// computed (berth's clock), before LeaseFromJob calls it a foreign change.
const ClockSkewAllowance = time.Minute

// LeaseFromJob rebuilds the lease from a job as Nomad returns it (after
// canonicalisation and a JSON round trip, where driver config lists are
// []any): the workload from the workload task and group disk, timing, user
// and signature from job meta, NodeID from the job's pin constraint. Verify on
// the result therefore fails after any out-of-band change to what is signed.
//
// Everything else must be what berth writes: the job is compared, field by
// field (leaseFields), with the one BuildJob writes for the lease read, and
// every difference is listed in Lease.Foreign, which Verify also rejects;
// only fields Nomad fills in or keeps for itself may differ. Unparsable meta
// is reported there too (leaving the field zero) rather than as an error, so
// a tampered lease still reads as drift instead of failing the read. Leases
// of older berths keep reading as they did (expectedJob).
//
// It returns an error only when job is not a berth lease at all: no kind
// meta, or no "lease" group with both tasks.
func LeaseFromJob(job *api.Job) (Lease, error) {
	if job == nil {
		return Lease{}, errors.New("job is missing")
	}
	if !IsLeaseJob(job) {
		return Lease{}, fmt.Errorf("job %q is not a berth lease (meta %s is %q, want %q)",
			deref(job.ID), MetaKind, job.Meta[MetaKind], KindLease)
	}
	var group *api.TaskGroup
	for _, g := range job.TaskGroups {
		if g != nil && deref(g.Name) == GroupName {
			group = g
			break
		}
	}
	if group == nil {
		return Lease{}, fmt.Errorf("job %q has no %q task group", deref(job.ID), GroupName)
	}
	workload, timer := findTask(group, WorkloadTask), findTask(group, TimerTask)
	if workload == nil || timer == nil {
		return Lease{}, fmt.Errorf("job %q lacks the %q and %q tasks of a lease", deref(job.ID), WorkloadTask, TimerTask)
	}

	r := &reader{}
	l := Lease{
		Name:      deref(job.ID),
		Namespace: deref(job.Namespace),
		User:      job.Meta[MetaUser],
		Signature: job.Meta[MetaSignature],
		Reference: job.Meta[MetaReference],
		// Read as written; compared through the template it sets.
		ReferenceAlloc: job.Meta[MetaReferenceAlloc],
		NodeID:         pinnedNode(job),
	}
	r.readTiming(&l, job.Meta)
	r.readSignedAt(&l, job.Meta)
	l.Workload = r.readWorkload(workload)
	l.Workload.Ports = dynamicPorts(group)
	l.Workload.Disk = deref(deref(group.EphemeralDisk).SizeMB)
	want := r.expectedJob(job, group, timer, l)
	r.foreign = append(r.foreign, compareJob(job, want)...)
	l.Foreign = r.foreign
	return l, nil
}

// reader accumulates Foreign findings while a job is read.
type reader struct{ foreign []string }

func (r *reader) add(format string, args ...any) {
	r.foreign = append(r.foreign, fmt.Sprintf(format, args...))
}

func (r *reader) readTiming(l *Lease, meta map[string]string) {
	created, err := time.Parse(time.RFC3339, meta[MetaCreatedAt])
	if err != nil {
		r.add("meta %s %q is not an RFC 3339 time", MetaCreatedAt, meta[MetaCreatedAt])
	} else {
		l.CreatedAt = created.UTC()
	}
	dur, err := time.ParseDuration(meta[MetaDuration])
	if err != nil {
		r.add("meta %s %q is not a duration", MetaDuration, meta[MetaDuration])
	} else {
		l.Duration = dur
	}
	if err == nil && !l.CreatedAt.IsZero() && meta[MetaExpiresAt] != stamp(l.ExpiresAt()) {
		r.add("meta %s is %q, but created_at + duration is %s", MetaExpiresAt, meta[MetaExpiresAt], stamp(l.ExpiresAt()))
	}
}

// pinnedNode is the node of the job-level pin BuildJob writes, or "".
// Any other constraint differs from what BuildJob writes for the lease.
func pinnedNode(job *api.Job) string {
	for _, c := range job.Constraints {
		if c != nil && c.LTarget == PinTarget && c.Operand == "=" {
			return c.RTarget
		}
	}
	return ""
}

// dynamicPorts lists the labels of the group's dynamic ports, in order.
func dynamicPorts(g *api.TaskGroup) []string {
	var out []string
	for _, n := range g.Networks {
		if n == nil {
			continue
		}
		for _, p := range n.DynamicPorts {
			out = append(out, p.Label)
		}
	}
	return out
}

// readWorkload reads the signed workload from its task. Config keys and
// resources berth does not write are left to compareJob.
func (r *reader) readWorkload(t *api.Task) Workload {
	w := Workload{Driver: t.Driver}
	if len(t.Env) > 0 {
		w.Env = maps.Clone(t.Env)
	}
	for _, k := range sortedKeys(t.Config) {
		v := t.Config[k]
		ok := true
		switch k {
		case "image":
			w.Image, ok = v.(string)
		case "command":
			w.Command, ok = v.(string)
		case "args":
			w.Args, ok = taskconfig.StringList(v)
			if len(w.Args) == 0 {
				w.Args = nil
			}
		}
		if !ok {
			r.add("workload config %q has unexpected type %T", k, v)
		}
	}
	if res := t.Resources; res != nil {
		w.CPU, w.Memory = deref(res.CPU), deref(res.MemoryMB)
	}
	return w
}

// expectedJob is the job berth writes for l, to compare with job: what
// BuildJob writes today, with the timer's driver when it is one of
// TimerDrivers, or what an older berth wrote when the job is one of its.
//
// Older berths ran the timer as TimerCommand with the seconds left instead
// of the script, with no result identity, and before references registered
// no service. Such a timer is checked here instead: its one argument a
// positive number of seconds that, from the job's submit time, ends by
// expires_at (with ClockSkewAllowance), so a job re-registered later with a
// fresh sleep does not pass.
func (r *reader) expectedJob(job *api.Job, group *api.TaskGroup, timer *api.Task, l Lease) *api.Job {
	driver := timer.Driver
	if !slices.Contains(TimerDrivers, driver) {
		r.add("group %q task %q driver is %q, berth writes %s", GroupName, TimerTask, driver, quotedList(TimerDrivers))
	}
	// The time only sets an older timer's sleep, which is replaced below.
	want := BuildJob(l, driver, l.CreatedAt)
	wantGroup := want.TaskGroups[0]
	wantTimer := findTask(wantGroup, TimerTask)
	cmd, _ := timer.Config["command"].(string)
	switch {
	case cmd == timerShell:
		r.readScriptTimer(timer, wantTimer, l)
	case l.Reference != "":
		r.add("%s runs no script, so it does not end with lease %q", TimerTask, l.Reference)
	case cmd == TimerCommand:
		// Nothing in the job shows a restart of this timer (alloc restart,
		// alloc stop, a drain), and each one sleeps the seconds afresh, so
		// it can outlive expires_at: it never verifies.
		r.add("%s sleeps %s seconds afresh after every restart (an earlier berth's timer), so it can outlive expires_at; replace the lease",
			TimerTask, r.readSleep(job, timer, l))
		wantTimer.Config = map[string]any{"command": TimerCommand, "args": timer.Config["args"]}
		wantTimer.Identities = nil
		if len(group.Services) == 0 {
			wantGroup.Services = nil
		}
	default:
		r.add("%s runs %q, not %s or %s", TimerTask, cmd, timerShell, TimerCommand)
	}
	return want
}

// readSleep checks an older timer's sleep and returns its argument.
func (r *reader) readSleep(job *api.Job, t *api.Task, l Lease) string {
	args, _ := taskconfig.StringList(t.Config["args"])
	secs := -1
	if len(args) == 1 {
		if n, err := strconv.Atoi(args[0]); err == nil && n > 0 {
			secs = n
		}
	}
	if secs < 0 {
		r.add("%s args %q are not one positive number of seconds", TimerTask, args)
		return ""
	}
	if l.Duration > 0 && time.Duration(secs)*time.Second > l.Duration {
		r.add("%s sleeps %ds, longer than the %s lease", TimerTask, secs, l.Duration)
	}
	if job.SubmitTime != nil && !l.CreatedAt.IsZero() && l.Duration > 0 {
		end := time.Unix(0, *job.SubmitTime).Add(time.Duration(secs) * time.Second)
		if end.After(l.ExpiresAt().Add(ClockSkewAllowance)) {
			r.add("%s, submitted at %s, sleeps until %s, after expires_at %s",
				TimerTask, stamp(time.Unix(0, *job.SubmitTime)), stamp(end), stamp(l.ExpiresAt()))
		}
	}
	return args[0]
}

func quotedList(values []string) string {
	q := make([]string, len(values))
	for i, v := range values {
		q[i] = strconv.Quote(v)
	}
	return strings.Join(q, " or ")
}

func findTask(g *api.TaskGroup, name string) *api.Task {
	for _, t := range g.Tasks {
		if t != nil && t.Name == name {
			return t
		}
	}
	return nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}
