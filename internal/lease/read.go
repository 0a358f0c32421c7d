package lease

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
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
// What BuildJob never writes and could change what runs or for how long —
// extra tasks or groups, unknown driver config, host volumes, restarts or
// reschedules, a timer that is no longer the leader or sleeps past expiry —
// is listed in Lease.Foreign, which Verify also rejects. Unparsable meta is
// reported there too (leaving the field zero) rather than as an error, so a
// tampered lease still reads as drift instead of failing the read.
// Constraints other than node pins, node pool, priority and the timer's
// driver are not part of the lease and are not checked.
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
	}
	r.readTiming(&l, job.Meta)
	r.readSignedAt(&l, job.Meta)
	if typ := deref(job.Type); typ != api.JobTypeBatch {
		r.add("job type is %q, not %q", typ, api.JobTypeBatch)
	}
	if n := len(job.TaskGroups); n != 1 {
		r.add("job has %d task groups, not 1", n)
	}
	l.NodeID = r.readPins(job, group)
	r.readGroup(group)
	r.readServices(group, l)
	l.Workload = r.readWorkload(workload)
	l.Workload.Ports = dynamicPorts(group)
	l.Workload.Disk = deref(deref(group.EphemeralDisk).SizeMB)
	r.readTimer(job, group, timer, l)
	for _, t := range group.Tasks {
		if t != nil && t.Name != WorkloadTask && t.Name != TimerTask {
			r.add("extra task %q", t.Name)
		}
	}
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

// readPins returns the node of the job-level pin BuildJob writes and reports
// any other node pin, which would move or block the lease.
func (r *reader) readPins(job *api.Job, group *api.TaskGroup) string {
	node := ""
	pinned := false
	check := func(where string, cs []*api.Constraint) {
		for _, c := range cs {
			if c == nil || c.LTarget != PinTarget {
				continue
			}
			if where == "job" && c.Operand == "=" && !pinned {
				node, pinned = c.RTarget, true
				continue
			}
			r.add("extra %s constraint on %s %s %q", where, PinTarget, c.Operand, c.RTarget)
		}
	}
	check("job", job.Constraints)
	check("group", group.Constraints)
	for _, t := range group.Tasks {
		if t != nil {
			check("task "+strconv.Quote(t.Name), t.Constraints)
		}
	}
	return node
}

func (r *reader) readGroup(g *api.TaskGroup) {
	if n := deref(g.Count); n != 1 {
		r.add("group count is %d, not 1", n)
	}
	if rp := g.ReschedulePolicy; rp != nil && (deref(rp.Attempts) > 0 || deref(rp.Unlimited)) {
		r.add("group reschedules (a rescheduled allocation restarts the full timer)")
	}
	if len(g.Volumes) > 0 {
		r.add("group has %d volumes", len(g.Volumes))
	}
	r.readNetworks(g)
}

// readNetworks reports any network but the one of dynamic ports BuildJob
// writes for the workload's ports.
func (r *reader) readNetworks(g *api.TaskGroup) {
	if len(g.Networks) > 1 {
		r.add("group has %d networks", len(g.Networks))
	}
	for _, n := range g.Networks {
		if n == nil {
			continue
		}
		if len(n.ReservedPorts) > 0 {
			r.add("group network reserves %d static ports", len(n.ReservedPorts))
		}
		if n.Mode != "" && n.Mode != "host" {
			r.add("group network mode is %q", n.Mode)
		}
		for _, p := range n.DynamicPorts {
			if p.Value != 0 || p.To != 0 || p.HostNetwork != "" && p.HostNetwork != "default" {
				r.add("port %q is mapped (value %d, to %d, host network %q)", p.Label, p.Value, p.To, p.HostNetwork)
			}
		}
	}
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

func (r *reader) readWorkload(t *api.Task) Workload {
	w := Workload{Driver: t.Driver}
	if len(t.Env) > 0 {
		w.Env = maps.Clone(t.Env)
	}
	for _, k := range sortedKeys(t.Config) {
		v := t.Config[k]
		var ok bool
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
		default:
			r.add("workload config has %q", k)
			continue
		}
		if !ok {
			r.add("workload config %q has unexpected type %T", k, v)
		}
	}
	if res := t.Resources; res != nil {
		w.CPU, w.Memory = deref(res.CPU), deref(res.MemoryMB)
		if deref(res.Cores) > 0 {
			r.add("workload reserves %d cores", deref(res.Cores))
		}
		if deref(res.MemoryMaxMB) > 0 {
			r.add("workload has memory_max %d", deref(res.MemoryMaxMB))
		}
		if len(res.Devices) > 0 {
			r.add("workload requests %d devices", len(res.Devices))
		}
	}
	r.readExtras("workload", t)
	return w
}

func (r *reader) readTimer(job *api.Job, g *api.TaskGroup, t *api.Task, l Lease) {
	if !t.Leader {
		r.add("%s is not the group leader, so its exit no longer ends the lease", TimerTask)
	}
	rp := t.RestartPolicy
	if rp == nil {
		rp = g.RestartPolicy
	}
	if rp != nil && deref(rp.Attempts) > 0 {
		r.add("%s restarts (a restart sleeps the full time again)", TimerTask)
	}
	if cmd, _ := t.Config["command"].(string); cmd == timerShell {
		r.readScriptTimer(t, l)
		r.readExtras(TimerTask, &api.Task{User: t.User, Artifacts: t.Artifacts, VolumeMounts: t.VolumeMounts,
			Services: t.Services, Lifecycle: t.Lifecycle, Vault: t.Vault}) // its templates are checked above
		return
	}
	if l.Reference != "" {
		r.add("%s runs no script, so it does not end with lease %q", TimerTask, l.Reference)
	}
	if cmd, _ := t.Config["command"].(string); cmd != TimerCommand {
		r.add("%s runs %q, not %s", TimerTask, cmd, TimerCommand)
	}
	for _, k := range sortedKeys(t.Config) {
		if k != "command" && k != "args" {
			r.add("%s config has %q", TimerTask, k)
		}
	}
	args, _ := taskconfig.StringList(t.Config["args"])
	secs := -1
	if len(args) == 1 {
		if n, err := strconv.Atoi(args[0]); err == nil && n > 0 {
			secs = n
		}
	}
	if secs < 0 {
		r.add("%s args %q are not one positive number of seconds", TimerTask, args)
		return
	}
	if l.Duration > 0 && time.Duration(secs)*time.Second > l.Duration {
		r.add("%s sleeps %ds, longer than the %s lease", TimerTask, secs, l.Duration)
	}
	// A job re-registered later with a fresh sleep would outlive the lease
	// even with a sleep shorter than the duration; the submit time shows it.
	if job.SubmitTime != nil && !l.CreatedAt.IsZero() && l.Duration > 0 {
		end := time.Unix(0, *job.SubmitTime).Add(time.Duration(secs) * time.Second)
		if end.After(l.ExpiresAt().Add(ClockSkewAllowance)) {
			r.add("%s, submitted at %s, sleeps until %s, after expires_at %s",
				TimerTask, stamp(time.Unix(0, *job.SubmitTime)), stamp(end), stamp(l.ExpiresAt()))
		}
	}
	r.readExtras(TimerTask, t)
}

// readExtras reports task features that change what the task can reach or
// run, none of which BuildJob writes.
func (r *reader) readExtras(name string, t *api.Task) {
	for _, f := range []struct {
		what string
		set  bool
	}{
		{"a user", t.User != ""},
		{"artifacts", len(t.Artifacts) > 0},
		{"templates", len(t.Templates) > 0},
		{"volume mounts", len(t.VolumeMounts) > 0},
		{"services", len(t.Services) > 0},
		{"a lifecycle", t.Lifecycle != nil && !t.Lifecycle.Empty()},
		{"vault", t.Vault != nil},
	} {
		if f.set {
			r.add("%s task has %s", name, f.what)
		}
	}
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
