package instance

import (
	"reflect"
	"time"

	"github.com/hashicorp/nomad/api"
)

// Lifecycle policies: the group's restart, reschedule and migrate policies
// and ephemeral disk, the job's priority, and per task the kill timeout,
// shutdown delay, user, log rotation and meta.
//
// A policy the user does not set is nil and not sent, so Nomad applies its
// default for the job type. Inside a policy each field is a pointer: nil
// means "not set, Nomad fills it in", so `restart = { attempts = 0 }` sends
// only the attempts. SpecFromJob always reads the whole policy back;
// AbsorbDefaults then turns a policy the previous spec did not set back
// into nil when Nomad holds exactly its default, so an unset policy stays
// unset and any other value shows as a difference.
//
// The defaults below are Nomad 1.10's (api/tasks.go Canonicalize,
// nomad/structs/structs.go DefaultServiceJobRestartPolicy and friends).

// Policies are the job's priority and the group's policies, the instance's
// `policies` attribute (one nested attribute rather than five top-level
// ones keeps the plan's cost down; see DESIGN.md).
type Policies struct {
	// Priority is compared even when one side is unset.
	Priority      *int           `tf:"priority" diff:"presence"`
	Restart       *Restart       `tf:"restart"`
	Reschedule    *Reschedule    `tf:"reschedule"`
	Migrate       *Migrate       `tf:"migrate"`
	EphemeralDisk *EphemeralDisk `tf:"ephemeral_disk"`
}

// TaskPolicies are a service's task settings, its `policies` attribute.
type TaskPolicies struct {
	// KillTimeout and ShutdownDelay are compared even when one side is unset.
	KillTimeout   *time.Duration    `tf:"kill_timeout" diff:"presence"`
	ShutdownDelay *time.Duration    `tf:"shutdown_delay" diff:"presence"`
	User          string            `tf:"user"`
	Logs          *Logs             `tf:"logs"`
	Meta          map[string]string `tf:"meta"` // task meta; keys starting with MetaPrefix are reserved
}

// pol returns s's policies, the zero Policies when unset.
func (s Spec) pol() Policies {
	if s.Policies == nil {
		return Policies{}
	}
	return *s.Policies
}

// pol returns svc's policies, the zero TaskPolicies when unset.
func (svc Service) pol() TaskPolicies {
	if svc.Policies == nil {
		return TaskPolicies{}
	}
	return *svc.Policies
}

// Restart is the group's restart policy (Nomad's `restart` block).
type Restart struct {
	Attempts        *int           `tf:"attempts"`
	Interval        *time.Duration `tf:"interval"`
	Delay           *time.Duration `tf:"delay"`
	Mode            *string        `tf:"mode"`
	RenderTemplates *bool          `tf:"render_templates"`
}

// Reschedule is the group's reschedule policy (Nomad's `reschedule` block).
type Reschedule struct {
	Attempts      *int           `tf:"attempts"`
	Interval      *time.Duration `tf:"interval"`
	Delay         *time.Duration `tf:"delay"`
	DelayFunction *string        `tf:"delay_function"`
	MaxDelay      *time.Duration `tf:"max_delay"`
	Unlimited     *bool          `tf:"unlimited"`
}

// Migrate is the group's migrate strategy, used when a node is drained.
type Migrate struct {
	MaxParallel     *int           `tf:"max_parallel"`
	HealthCheck     *string        `tf:"health_check"`
	MinHealthyTime  *time.Duration `tf:"min_healthy_time"`
	HealthyDeadline *time.Duration `tf:"healthy_deadline"`
}

// EphemeralDisk is the group's ephemeral disk.
type EphemeralDisk struct {
	SizeMB  *int  `tf:"size"` // MiB
	Sticky  *bool `tf:"sticky"`
	Migrate *bool `tf:"migrate"`
}

// Logs is a task's log rotation.
type Logs struct {
	MaxFiles      *int `tf:"max_files"`
	MaxFileSizeMB *int `tf:"max_file_size_mb"`
}

// Nomad's job types as Spec.Type spells them; "" is a service job.
const (
	jobTypeService = api.JobTypeService
	jobTypeBatch   = api.JobTypeBatch
	jobTypeSystem  = api.JobTypeSystem
)

// effectiveType is the job type Nomad uses for t ("" = service).
func effectiveType(t string) string {
	if t == "" {
		return jobTypeService
	}
	return t
}

// Restart modes, reschedule delay functions and migrate health checks
// Nomad accepts (structs.go RestartPolicy.Validate, RescheduleDelayFunctions,
// MigrateStrategy.Validate).
func RestartModes() []string        { return []string{"fail", "delay"} }
func DelayFunctions() []string      { return []string{"constant", "exponential", "fibonacci"} }
func MigrateHealthChecks() []string { return []string{HealthCheckChecks, HealthCheckTaskStates} }

// Nomad's defaults and limits for the policies.
const (
	DefaultKillTimeout     = 5 * time.Second
	DefaultPriority        = 50
	DefaultEphemeralDiskMB = 300
	// MinPriority and MaxPriority bound a job's priority. Nomad's servers
	// refuse more than their job_max_priority, 100 unless configured (up to
	// MaxPriority).
	MinPriority = 1
	MaxPriority = 32766

	minRestartInterval    = 5 * time.Second
	minRescheduleDelay    = 5 * time.Second
	minRescheduleInterval = 15 * time.Second
	minEphemeralDiskMB    = 10
)

// DefaultRestart is Nomad's restart policy for a job of type jobType.
func DefaultRestart(jobType string) Restart {
	r := Restart{Attempts: ptr(2), Interval: ptr(30 * time.Minute), Delay: ptr(15 * time.Second), Mode: ptr("fail"), RenderTemplates: ptr(false)}
	switch effectiveType(jobType) {
	case jobTypeService, jobTypeSystem:
	default: // batch and sysbatch
		r.Attempts, r.Interval = ptr(3), ptr(24*time.Hour)
	}
	return r
}

// DefaultReschedule is Nomad's reschedule policy for a job of type
// jobType; nil for system jobs, which have none.
func DefaultReschedule(jobType string) *Reschedule {
	switch effectiveType(jobType) {
	case jobTypeService:
		return &Reschedule{Attempts: ptr(0), Interval: ptr(time.Duration(0)), Delay: ptr(30 * time.Second),
			DelayFunction: ptr("exponential"), MaxDelay: ptr(time.Hour), Unlimited: ptr(true)}
	case jobTypeBatch:
		return &Reschedule{Attempts: ptr(1), Interval: ptr(24 * time.Hour), Delay: ptr(5 * time.Second),
			DelayFunction: ptr("constant"), MaxDelay: ptr(time.Duration(0)), Unlimited: ptr(false)}
	case jobTypeSystem:
		return nil
	default:
		return &Reschedule{Attempts: ptr(0), Interval: ptr(time.Duration(0)), Delay: ptr(time.Duration(0)),
			DelayFunction: ptr(""), MaxDelay: ptr(time.Duration(0)), Unlimited: ptr(false)}
	}
}

// DefaultMigrate is Nomad's migrate strategy for a job of type jobType;
// nil for anything but service jobs, which Nomad gives none.
func DefaultMigrate(jobType string) *Migrate {
	if effectiveType(jobType) != jobTypeService {
		return nil
	}
	return &Migrate{MaxParallel: ptr(1), HealthCheck: ptr(HealthCheckChecks), MinHealthyTime: ptr(10 * time.Second), HealthyDeadline: ptr(5 * time.Minute)}
}

// DefaultEphemeralDisk is Nomad's ephemeral disk.
func DefaultEphemeralDisk() EphemeralDisk {
	return EphemeralDisk{SizeMB: ptr(DefaultEphemeralDiskMB), Sticky: ptr(false), Migrate: ptr(false)}
}

// DefaultLogs is Nomad's log rotation.
func DefaultLogs() Logs { return Logs{MaxFiles: ptr(10), MaxFileSizeMB: ptr(10)} }

// EphemeralDiskMB is the disk each allocation of s takes: the configured
// size, or Nomad's default.
func (s Spec) EphemeralDiskMB() int {
	if d := s.pol().EphemeralDisk; d != nil && d.SizeMB != nil {
		return *d.SizeMB
	}
	return DefaultEphemeralDiskMB
}

// AbsorbDefaults returns read (a spec from SpecFromJob) with every policy
// and task setting that prior (the spec before the read: what state held;
// the zero Spec on import) leaves unset set back to nil when Nomad holds
// exactly its default for read's job type, and a policies object left with
// nothing set back to nil when prior had none. Everything else stays as
// read, so a policy the user never set but someone changed in Nomad shows
// as a difference, and a set policy compares field by field.
func AbsorbDefaults(read, prior Spec) Spec {
	out := read
	jt := read.Type
	was, p := prior.pol(), read.pol()
	p.Restart = absorb(p.Restart, was.Restart, DefaultRestart(jt))
	if d := DefaultReschedule(jt); d != nil {
		p.Reschedule = absorb(p.Reschedule, was.Reschedule, *d)
	}
	if d := DefaultMigrate(jt); d != nil {
		p.Migrate = absorb(p.Migrate, was.Migrate, *d)
	}
	p.EphemeralDisk = absorb(p.EphemeralDisk, was.EphemeralDisk, DefaultEphemeralDisk())
	p.Priority = absorb(p.Priority, was.Priority, DefaultPriority)
	out.Policies = orNil(p, prior.Policies != nil)
	if len(read.Services) > 0 {
		out.Services = make(map[string]Service, len(read.Services))
		for name, svc := range read.Services {
			prev := prior.Services[name] // the zero Service for a new one
			was, tp := prev.pol(), svc.pol()
			tp.Logs = absorb(tp.Logs, was.Logs, DefaultLogs())
			tp.KillTimeout = absorb(tp.KillTimeout, was.KillTimeout, DefaultKillTimeout)
			tp.ShutdownDelay = absorb(tp.ShutdownDelay, was.ShutdownDelay, 0)
			svc.Policies = orNil(tp, prev.Policies != nil)
			svc = absorbFileDefaults(svc, prev)
			out.Services[name] = svc
		}
	}
	return out
}

// absorb is AbsorbDefaults' rule for one setting: nil when the prior spec
// left it unset (was is nil) and Nomad holds exactly its default, read
// otherwise.
func absorb[T any](read, was *T, def T) *T {
	if was == nil && read != nil && reflect.DeepEqual(*read, def) {
		return nil
	}
	return read
}

// orNil returns &p, or nil when p sets nothing and keep is false.
func orNil[T any](p T, keep bool) *T {
	var zero T
	if !keep && reflect.DeepEqual(p, zero) {
		return nil
	}
	return &p
}

// buildPolicies puts the group policies and priority of s into job.
func buildPolicies(s Spec, job *api.Job, g *api.TaskGroup) {
	p := s.pol()
	if p.Priority != nil {
		job.Priority = ptr(*p.Priority)
	}
	if r := p.Restart; r != nil {
		g.RestartPolicy = &api.RestartPolicy{Attempts: clonePtr(r.Attempts), Interval: clonePtr(r.Interval), Delay: clonePtr(r.Delay),
			Mode: clonePtr(r.Mode), RenderTemplates: clonePtr(r.RenderTemplates)}
	}
	if r := p.Reschedule; r != nil {
		g.ReschedulePolicy = &api.ReschedulePolicy{Attempts: clonePtr(r.Attempts), Interval: clonePtr(r.Interval), Delay: clonePtr(r.Delay),
			DelayFunction: clonePtr(r.DelayFunction), MaxDelay: clonePtr(r.MaxDelay), Unlimited: clonePtr(r.Unlimited)}
	}
	if m := p.Migrate; m != nil {
		g.Migrate = &api.MigrateStrategy{MaxParallel: clonePtr(m.MaxParallel), HealthCheck: clonePtr(m.HealthCheck),
			MinHealthyTime: clonePtr(m.MinHealthyTime), HealthyDeadline: clonePtr(m.HealthyDeadline)}
	}
	if d := p.EphemeralDisk; d != nil {
		g.EphemeralDisk = &api.EphemeralDisk{SizeMB: clonePtr(d.SizeMB), Sticky: clonePtr(d.Sticky), Migrate: clonePtr(d.Migrate)}
	}
}

// buildTaskPolicies puts a service's settings into its task. Task meta
// gets the user's keys; berth's own (MetaPrefix) are added by buildTask.
func buildTaskPolicies(svc Service, t *api.Task) {
	p := svc.pol()
	t.KillTimeout = clonePtr(p.KillTimeout)
	if p.ShutdownDelay != nil {
		t.ShutdownDelay = *p.ShutdownDelay
	}
	t.User = p.User
	if l := p.Logs; l != nil {
		t.LogConfig = &api.LogConfig{MaxFiles: clonePtr(l.MaxFiles), MaxFileSizeMB: clonePtr(l.MaxFileSizeMB)}
	}
	if len(p.Meta) > 0 {
		if t.Meta == nil {
			t.Meta = make(map[string]string, len(p.Meta))
		}
		for k, v := range p.Meta {
			t.Meta[k] = v
		}
	}
}

// readPolicies reads the job's priority and the group's policies in full.
func (r *reader) readPolicies(s *Spec, job *api.Job, g *api.TaskGroup) {
	p := &Policies{}
	if job.Priority != nil {
		p.Priority = ptr(*job.Priority)
	}
	if rp := g.RestartPolicy; rp != nil {
		p.Restart = &Restart{Attempts: clonePtr(rp.Attempts), Interval: clonePtr(rp.Interval), Delay: clonePtr(rp.Delay),
			Mode: clonePtr(rp.Mode), RenderTemplates: clonePtr(rp.RenderTemplates)}
	}
	if rp := g.ReschedulePolicy; rp != nil {
		p.Reschedule = &Reschedule{Attempts: clonePtr(rp.Attempts), Interval: clonePtr(rp.Interval), Delay: clonePtr(rp.Delay),
			DelayFunction: clonePtr(rp.DelayFunction), MaxDelay: clonePtr(rp.MaxDelay), Unlimited: clonePtr(rp.Unlimited)}
	}
	if m := g.Migrate; m != nil {
		p.Migrate = &Migrate{MaxParallel: clonePtr(m.MaxParallel), HealthCheck: clonePtr(m.HealthCheck),
			MinHealthyTime: clonePtr(m.MinHealthyTime), HealthyDeadline: clonePtr(m.HealthyDeadline)}
	}
	if d := g.EphemeralDisk; d != nil {
		p.EphemeralDisk = &EphemeralDisk{SizeMB: clonePtr(d.SizeMB), Sticky: clonePtr(d.Sticky), Migrate: clonePtr(d.Migrate)}
	}
	s.Policies = orNil(*p, false)
	if g.ShutdownDelay != nil && *g.ShutdownDelay != 0 {
		r.add("group sets a shutdown_delay (berth sets it per service)")
	}
}

// readTaskPolicies reads a task's settings in full and reports a restart
// policy of its own, which berth cannot express (it sets the group's).
func (r *reader) readTaskPolicies(svc *Service, t *api.Task, g *api.TaskGroup) {
	p := TaskPolicies{KillTimeout: clonePtr(t.KillTimeout), ShutdownDelay: ptr(t.ShutdownDelay), User: t.User, Meta: userMeta(t.Meta)}
	if l := t.LogConfig; l != nil {
		p.Logs = &Logs{MaxFiles: clonePtr(l.MaxFiles), MaxFileSizeMB: clonePtr(l.MaxFileSizeMB)}
		if deref(l.Disabled) {
			r.add("task %q disables log collection", t.Name)
		}
	}
	svc.Policies = orNil(p, false)
	if t.RestartPolicy != nil && g.RestartPolicy != nil && !reflect.DeepEqual(*t.RestartPolicy, *g.RestartPolicy) {
		r.add("task %q has a restart policy of its own (berth sets the group's)", t.Name)
	}
}

func clonePtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

// withoutPoststop returns allocs without the states of the job's poststop
// tasks, which stay pending until the allocation stops: a running
// allocation waiting to run them is not still starting.
func withoutPoststop(job *api.Job, allocs []*api.AllocationListStub) []*api.AllocationListStub {
	poststop := map[string]bool{}
	for _, g := range job.TaskGroups {
		for _, t := range g.Tasks {
			if t != nil && t.Lifecycle != nil && t.Lifecycle.Hook == lifecyclePoststop {
				poststop[t.Name] = true
			}
		}
	}
	if len(poststop) == 0 {
		return allocs
	}
	out := make([]*api.AllocationListStub, len(allocs))
	for i, a := range allocs {
		if a == nil {
			continue
		}
		c := *a
		c.TaskStates = make(map[string]*api.TaskState, len(a.TaskStates))
		for name, ts := range a.TaskStates {
			if !poststop[name] {
				c.TaskStates[name] = ts
			}
		}
		out[i] = &c
	}
	return out
}
