package instance

import (
	"maps"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"
)

// policySpec sets every policy field, none to Nomad's default.
func policySpec() Spec {
	s := fullSpec()
	s.Policies = &Policies{
		Priority: ptr(70),
		Restart:  &Restart{Attempts: ptr(0), Interval: ptr(10 * time.Minute), Delay: ptr(5 * time.Second), Mode: ptr("fail"), RenderTemplates: ptr(true)},
		Reschedule: &Reschedule{Attempts: ptr(3), Interval: ptr(time.Hour), Delay: ptr(10 * time.Second),
			DelayFunction: ptr("constant"), MaxDelay: ptr(time.Minute), Unlimited: ptr(false)},
		Migrate:       &Migrate{MaxParallel: ptr(2), HealthCheck: ptr("task_states"), MinHealthyTime: ptr(time.Second), HealthyDeadline: ptr(time.Minute)},
		EphemeralDisk: &EphemeralDisk{SizeMB: ptr(500), Sticky: ptr(true), Migrate: ptr(true)},
	}
	web := s.Services["web"]
	web.Policies = &TaskPolicies{KillTimeout: ptr(20 * time.Second), ShutdownDelay: ptr(3 * time.Second), User: "nobody",
		Logs: &Logs{MaxFiles: ptr(3), MaxFileSizeMB: ptr(20)}, Meta: map[string]string{"team": "shop"}}
	s.Services["web"] = web
	proxy := s.Services["proxy"]
	proxy.Role = RolePrestartSidecar
	proxy.Policies = &TaskPolicies{KillTimeout: ptr(time.Duration(0))} // set to 0: not the same as unset
	s.Services["proxy"] = proxy
	s.Services["notify"] = Service{Role: RolePoststart, Driver: "exec", Command: "/bin/true", CPU: 10, Memory: 10}
	s.Services["cleanup"] = Service{Role: RolePoststop, Driver: "exec", Command: "/bin/true", CPU: 10, Memory: 10}
	return s
}

// withPolicies returns s with its policies changed by f.
func withPolicies(s Spec, f func(*Policies)) Spec {
	p := s.pol()
	f(&p)
	s.Policies = &p
	return s
}

// withTask returns s with service name's task policies changed by f.
func withTask(s Spec, name string, f func(*TaskPolicies)) Spec {
	svc := s.Services[name]
	p := svc.pol()
	f(&p)
	svc.Policies = &p
	s.Services = maps.Clone(s.Services)
	s.Services[name] = svc
	return s
}

func TestRoundTripPolicies(t *testing.T) {
	partial := withPolicies(minimalSpec(), func(p *Policies) {
		p.Restart = &Restart{Attempts: ptr(0)}
		p.Reschedule = &Reschedule{Attempts: ptr(0), Unlimited: ptr(false)}
		p.EphemeralDisk = &EphemeralDisk{SizeMB: ptr(DefaultEphemeralDiskMB)} // the default, but set
	})
	partial = withTask(partial, "app", func(p *TaskPolicies) {
		p.Logs = &Logs{MaxFiles: ptr(2)}
		p.KillTimeout = ptr(DefaultKillTimeout)
	})

	for name, spec := range map[string]Spec{"every field": policySpec(), "partial and defaults set": partial} {
		t.Run(name, func(t *testing.T) {
			if errs := Validate(spec); len(errs) > 0 {
				t.Fatalf("test spec is invalid: %+v", errs)
			}
			got, unsupported := readBack(simulateNomad(t, BuildJob(spec, 1)), spec)
			if len(unsupported) > 0 {
				t.Errorf("unsupported = %q", unsupported)
			}
			if d := Diff(spec, got); len(d) > 0 {
				t.Errorf("Diff(input, read back) = %q, want none", d)
			}
			// Set policies read back in full.
			p := got.pol()
			if p.Restart == nil || p.Restart.Interval == nil || p.Reschedule == nil || p.Reschedule.MaxDelay == nil ||
				p.EphemeralDisk == nil || p.EphemeralDisk.Sticky == nil {
				t.Errorf("set policies not read in full: %+v", p)
			}
		})
	}
	// With every field set the read is exact, except the task settings
	// left unset on services that set none (AbsorbDefaults leaves them nil).
	s := policySpec()
	got, _ := readBack(simulateNomad(t, BuildJob(s, 1)), s)
	want := Normalize(s)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("read back differs:\n%s\ngot %+v\nwant %+v", strings.Join(Diff(want, got), "\n"), got.Services["proxy"].Policies, want.Services["proxy"].Policies)
	}
}

func TestBuildJobSendsOnlySetPolicyFields(t *testing.T) {
	s := minimalSpec()
	job := BuildJob(s, 1)
	g := job.TaskGroups[0]
	if job.Priority != nil || g.RestartPolicy != nil || g.ReschedulePolicy != nil || g.Migrate != nil || g.EphemeralDisk != nil {
		t.Errorf("unset policies were sent: priority %v restart %+v reschedule %+v migrate %+v disk %+v",
			job.Priority, g.RestartPolicy, g.ReschedulePolicy, g.Migrate, g.EphemeralDisk)
	}
	if task := g.Tasks[0]; task.KillTimeout != nil || task.LogConfig != nil || task.User != "" || task.ShutdownDelay != 0 || task.Meta != nil {
		t.Errorf("unset task policies were sent: %+v", task)
	}

	s = withPolicies(s, func(p *Policies) { p.Restart = &Restart{Attempts: ptr(0)} })
	s = withTask(s, "app", func(p *TaskPolicies) { p.Meta = map[string]string{"team": "a"} })
	app := s.Services["app"]
	app.Ports = map[string]Port{"http": {}}
	s.Services["app"] = app
	job = BuildJob(s, 1)
	if want := (&api.RestartPolicy{Attempts: ptr(0)}); !reflect.DeepEqual(job.TaskGroups[0].RestartPolicy, want) {
		t.Errorf("restart = %+v, want only attempts", job.TaskGroups[0].RestartPolicy)
	}
	if want := map[string]string{"team": "a", MetaPorts: "http"}; !reflect.DeepEqual(job.TaskGroups[0].Tasks[0].Meta, want) {
		t.Errorf("task meta = %v, want %v", job.TaskGroups[0].Tasks[0].Meta, want)
	}
	// berth's key stays out of the user's meta when read back.
	got, _ := readBack(simulateNomad(t, job), s)
	if m := got.Services["app"].pol().Meta; !reflect.DeepEqual(m, app.pol().Meta) {
		t.Errorf("task meta read back = %v, want %v", m, app.pol().Meta)
	}
}

func TestBuildJobLifecycleRoles(t *testing.T) {
	want := map[Role]*api.TaskLifecycle{
		RoleMain:            nil,
		RoleInit:            {Hook: "prestart"},
		RolePrestartSidecar: {Hook: "prestart", Sidecar: true},
		RoleSidecar:         {Hook: "poststart", Sidecar: true},
		RolePoststart:       {Hook: "poststart"},
		RolePoststop:        {Hook: "poststop"},
	}
	if len(want) != len(Roles()) {
		t.Fatalf("roles %v not all covered", Roles())
	}
	for _, role := range Roles() {
		if got := lifecycleFor(role); !reflect.DeepEqual(got, want[role]) {
			t.Errorf("%s: lifecycle %+v, want %+v", role, got, want[role])
		}
		task := &api.Task{Name: "t", Lifecycle: lifecycleFor(role)}
		r := &reader{}
		if got := r.readRole(task); got != role || len(r.unsupported) > 0 {
			t.Errorf("%s read back as %s (%v)", role, got, r.unsupported)
		}
	}
}

func TestAbsorbDefaults(t *testing.T) {
	read := func(jobType string, mutate func(*api.Job)) Spec {
		s := minimalSpec()
		s.Type = jobType
		job := BuildJob(s, 1)
		if jobType != "" {
			job.Type = ptr(jobType)
			if jobType != jobTypeService {
				job.TaskGroups[0].Update = nil
			}
		}
		job = simulateNomad(t, job)
		if mutate != nil {
			mutate(job)
		}
		got, _ := SpecFromJob(job)
		got.Type = jobType
		return got
	}
	setRestart := withPolicies(minimalSpec(), func(p *Policies) { p.Restart = &Restart{Attempts: ptr(2)} })
	setKill := withTask(minimalSpec(), "app", func(p *TaskPolicies) { p.KillTimeout = ptr(DefaultKillTimeout) })

	tests := []struct {
		name  string
		read  Spec
		prior Spec
		want  []string // Diff(prior, AbsorbDefaults(read, prior))
	}{
		{"defaults of an unset policy absorb", read("", nil), minimalSpec(), nil},
		{"import: defaults absorb", read("", nil), Spec{}, nil},
		{"batch defaults absorb", read(jobTypeBatch, nil), Spec{Type: jobTypeBatch}, nil},
		{"system job has no reschedule or migrate", read(jobTypeSystem, nil), Spec{Type: jobTypeSystem}, nil},
		{"changed unset policy shows", read("", func(j *api.Job) { j.TaskGroups[0].RestartPolicy.Attempts = ptr(5) }), minimalSpec(),
			[]string{"policies: added"}},
		{"changed unset priority shows", read("", func(j *api.Job) { j.Priority = ptr(80) }), minimalSpec(),
			[]string{"policies: added"}},
		{"changed unset kill_timeout shows", read("", func(j *api.Job) { j.TaskGroups[0].Tasks[0].KillTimeout = ptr(time.Minute) }), minimalSpec(),
			[]string{"services.app.policies: added"}},
		{"changed unset logs show", read("", func(j *api.Job) { j.TaskGroups[0].Tasks[0].LogConfig.MaxFiles = ptr(1) }), minimalSpec(),
			[]string{"services.app.policies: added"}},
		{"set policy at its default stays", read("", nil), setRestart, nil},
		{"set kill_timeout at its default stays", read("", nil), setKill, nil},
		{"set policy changed shows the field", read("", func(j *api.Job) { j.TaskGroups[0].RestartPolicy.Attempts = ptr(5) }), setRestart,
			[]string{"policies.restart.attempts: 2 -> 5"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := AbsorbDefaults(tt.read, tt.prior)
			prior := tt.prior
			if prior.Services == nil {
				prior = got // import: compare policies only
				prior.Policies = nil
				prior.Services = map[string]Service{}
				for n, svc := range got.Services {
					svc.Policies = nil
					prior.Services[n] = svc
				}
			}
			if d := Diff(prior, got); !reflect.DeepEqual(d, tt.want) {
				t.Errorf("Diff = %q, want %q", d, tt.want)
			}
		})
	}
	// Service defaults on a batch job are not batch's defaults.
	svcRestart := read("", nil).pol().Restart
	batch := withPolicies(read(jobTypeBatch, nil), func(p *Policies) { p.Restart = svcRestart })
	if got := AbsorbDefaults(batch, Spec{Type: jobTypeBatch}); got.pol().Restart == nil {
		t.Errorf("service restart defaults absorbed on a batch job")
	}
}

func TestDiffPolicies(t *testing.T) {
	a := minimalSpec()
	b := withPolicies(minimalSpec(), func(p *Policies) { p.Restart = &Restart{Attempts: ptr(0)} })
	if d := Diff(a, b); !reflect.DeepEqual(d, []string{"policies: added"}) {
		t.Errorf("added policies: %q", d)
	}
	a = withPolicies(a, func(p *Policies) { p.Priority = ptr(60) })
	if d := Diff(a, b); !reflect.DeepEqual(d, []string{"policies.priority: 60 -> (unset)", "policies.restart: added"}) {
		t.Errorf("added restart: %q", d)
	}
	// A field one side leaves to Nomad is not compared.
	a = withPolicies(minimalSpec(), func(p *Policies) { p.Restart = &Restart{Attempts: ptr(0), Interval: ptr(time.Hour)} })
	if d := Diff(a, b); len(d) > 0 {
		t.Errorf("unset sub-field compared: %q", d)
	}
	b = withTask(b, "app", func(p *TaskPolicies) { p.KillTimeout = ptr(time.Duration(0)) })
	a = withTask(a, "app", func(*TaskPolicies) {})
	if d := Diff(a, b); !reflect.DeepEqual(d, []string{"services.app.policies.kill_timeout: (unset) -> 0s"}) {
		t.Errorf("kill_timeout set to 0: %q", d)
	}
}

func TestEphemeralDiskMB(t *testing.T) {
	s := minimalSpec()
	if got := s.EphemeralDiskMB(); got != 300 {
		t.Errorf("default = %d", got)
	}
	s.Policies = &Policies{EphemeralDisk: &EphemeralDisk{Sticky: ptr(true)}}
	if got := s.EphemeralDiskMB(); got != 300 {
		t.Errorf("size unset = %d", got)
	}
	s.Policies.EphemeralDisk.SizeMB = ptr(1024)
	if got := s.EphemeralDiskMB(); got != 1024 {
		t.Errorf("size set = %d", got)
	}
}

func TestValidatePolicies(t *testing.T) {
	spec := func(f func(*Spec)) Spec {
		s := minimalSpec()
		s.Policies = &Policies{}
		f(&s)
		return s
	}
	app := func(f func(*Service)) Spec {
		return spec(func(s *Spec) {
			svc := s.Services["app"]
			svc.Policies = &TaskPolicies{}
			f(&svc)
			s.Services["app"] = svc
		})
	}
	tests := []struct {
		name string
		spec Spec
		path []any // nil: valid
	}{
		{"restart attempts 0 with the default mode", spec(func(s *Spec) { s.Policies.Restart = &Restart{Attempts: ptr(0)} }), nil},
		{"restart attempts 0 in delay mode", spec(func(s *Spec) { s.Policies.Restart = &Restart{Attempts: ptr(0), Mode: ptr("delay")} }),
			path("policies", "restart", "mode")},
		{"restart interval too short", spec(func(s *Spec) { s.Policies.Restart = &Restart{Attempts: ptr(0), Interval: ptr(time.Second)} }),
			path("policies", "restart", "interval")},
		{"restart delay too long for the default interval", spec(func(s *Spec) { s.Policies.Restart = &Restart{Delay: ptr(time.Hour)} }),
			path("policies", "restart", "delay")},
		{"restart attempts do not fit the set interval", spec(func(s *Spec) {
			s.Policies.Restart = &Restart{Attempts: ptr(10), Interval: ptr(time.Minute)}
		}), path("policies", "restart", "interval")},
		{"reschedule off", spec(func(s *Spec) { s.Policies.Reschedule = &Reschedule{Attempts: ptr(0), Unlimited: ptr(false)} }), nil},
		{"reschedule attempts with unlimited by default", spec(func(s *Spec) { s.Policies.Reschedule = &Reschedule{Attempts: ptr(3)} }),
			path("policies", "reschedule", "attempts")},
		{"reschedule attempts and unlimited", spec(func(s *Spec) { s.Policies.Reschedule = &Reschedule{Attempts: ptr(3), Unlimited: ptr(true)} }),
			path("policies", "reschedule", "unlimited")},
		{"reschedule limited without interval", spec(func(s *Spec) { s.Policies.Reschedule = &Reschedule{Attempts: ptr(3), Unlimited: ptr(false)} }),
			path("policies", "reschedule", "interval")},
		{"reschedule delay too short", spec(func(s *Spec) { s.Policies.Reschedule = &Reschedule{Delay: ptr(time.Second)} }),
			path("policies", "reschedule", "delay")},
		{"reschedule max_delay below delay", spec(func(s *Spec) {
			s.Policies.Reschedule = &Reschedule{Delay: ptr(time.Minute), MaxDelay: ptr(30 * time.Second)}
		}),
			path("policies", "reschedule", "max_delay")},
		{"reschedule delay above the default max_delay", spec(func(s *Spec) { s.Policies.Reschedule = &Reschedule{Delay: ptr(2 * time.Hour)} }),
			path("policies", "reschedule", "delay")},
		{"reschedule interval too short", spec(func(s *Spec) {
			s.Policies.Reschedule = &Reschedule{Attempts: ptr(1), Unlimited: ptr(false), Interval: ptr(10 * time.Second)}
		}), path("policies", "reschedule", "interval")},
		{"reschedule attempts do not fit", spec(func(s *Spec) {
			s.Policies.Reschedule = &Reschedule{Attempts: ptr(5), Unlimited: ptr(false), Interval: ptr(time.Minute), DelayFunction: ptr("constant")}
		}), path("policies", "reschedule", "interval")},
		{"reschedule attempts fit", spec(func(s *Spec) {
			s.Policies.Reschedule = &Reschedule{Attempts: ptr(5), Unlimited: ptr(false), Interval: ptr(time.Hour)}
		}), nil},
		{"reschedule fibonacci fits", spec(func(s *Spec) {
			s.Policies.Reschedule = &Reschedule{Attempts: ptr(4), Unlimited: ptr(false), Interval: ptr(10 * time.Minute), DelayFunction: ptr("fibonacci")}
		}), nil},
		{"reschedule on a system job", spec(func(s *Spec) { s.Type, s.Replicas = jobTypeSystem, nil; s.Policies.Reschedule = &Reschedule{} }), path("policies", "reschedule")},
		{"migrate on a batch job", spec(func(s *Spec) { s.Type = jobTypeBatch; s.Policies.Migrate = &Migrate{} }), path("policies", "migrate")},
		{"migrate min_healthy_time above deadline", spec(func(s *Spec) { s.Policies.Migrate = &Migrate{MinHealthyTime: ptr(10 * time.Minute)} }),
			path("policies", "migrate", "min_healthy_time")},
		{"migrate negative deadline", spec(func(s *Spec) { s.Policies.Migrate = &Migrate{HealthyDeadline: ptr(-time.Second)} }),
			path("policies", "migrate", "healthy_deadline")},
		{"negative kill_timeout", app(func(a *Service) { a.Policies.KillTimeout = ptr(-time.Second) }), path("services", "app", "policies", "kill_timeout")},
		{"kill_timeout 0", app(func(a *Service) { a.Policies.KillTimeout = ptr(time.Duration(0)) }), nil},
		{"kill_timeout above progress_deadline", app(func(a *Service) { a.Policies.KillTimeout = ptr(time.Hour) }), path("services", "app", "policies", "kill_timeout")},
		{"negative shutdown_delay", app(func(a *Service) { a.Policies.ShutdownDelay = ptr(-time.Second) }), path("services", "app", "policies", "shutdown_delay")},
		{"reserved task meta", app(func(a *Service) { a.Policies.Meta = map[string]string{"berth.ports": "x"} }), path("services", "app", "policies", "meta", "berth.ports")},
		{"logs above the disk", app(func(a *Service) { a.Policies.Logs = &Logs{MaxFiles: ptr(30)} }), path("services", "app", "policies", "logs")},
		{"default logs above a small disk", spec(func(s *Spec) {
			s.Policies.EphemeralDisk = &EphemeralDisk{SizeMB: ptr(100)}
			s.Services["b"] = Service{Driver: "exec", CPU: 1, Memory: 10}
		}), path("policies", "ephemeral_disk", "size")},
		{"small logs on a small disk", spec(func(s *Spec) {
			s.Policies.EphemeralDisk = &EphemeralDisk{SizeMB: ptr(20)}
			svc := s.Services["app"]
			svc.Policies = &TaskPolicies{Logs: nil}
			svc.Policies.Logs = &Logs{MaxFiles: ptr(1), MaxFileSizeMB: ptr(5)}
			s.Services["app"] = svc
		}), nil},
		{"check on a poststop service", app(func(a *Service) {
			a.Role = RolePoststop
			a.Ports = map[string]Port{"http": {}}
			a.Check = &Check{Type: "tcp", Port: "http", Interval: time.Second, Timeout: time.Second}
		}), nil}, // replaced below: no main service left, so two errors
	}
	tests[len(tests)-1].spec.Services["main"] = Service{Driver: "exec", CPU: 1, Memory: 10}
	tests[len(tests)-1].path = path("services", "app", "check")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			errs := Validate(tt.spec)
			if tt.path == nil {
				if len(errs) > 0 {
					t.Errorf("unexpected errors %+v", errs)
				}
				return
			}
			if len(errs) != 1 || !reflect.DeepEqual(errs[0].Path, tt.path) {
				t.Errorf("errors = %+v, want one at %v", errs, tt.path)
			}
		})
	}
}

func TestViableAttemptsMatchesNomad(t *testing.T) {
	// Figures from Nomad's own TestReschedulePolicy_Validate cases.
	p := Reschedule{Attempts: ptr(10), Interval: ptr(time.Hour), Delay: ptr(20 * time.Minute), DelayFunction: ptr("constant"),
		MaxDelay: ptr(time.Duration(0)), Unlimited: ptr(false)}
	if ok, possible, rec := viableAttempts(p); ok || possible != 3 || rec != 200*time.Minute {
		t.Errorf("constant: %v %d %s", ok, possible, rec)
	}
	p = Reschedule{Attempts: ptr(10), Interval: ptr(time.Hour), Delay: ptr(20 * time.Minute), DelayFunction: ptr("exponential"),
		MaxDelay: ptr(80 * time.Minute), Unlimited: ptr(false)}
	if ok, possible, rec := viableAttempts(p); ok || possible != 2 || rec != 80*time.Minute*8 {
		t.Errorf("exponential: %v %d %s", ok, possible, rec)
	}
}

// TestObservePoststopPending: a running allocation whose poststop task
// waits (pending until the allocation stops) is running, not starting.
func TestObservePoststopPending(t *testing.T) {
	s := minimalSpec()
	s.Services["drain"] = Service{Role: RolePoststop, Driver: "exec", CPU: 10, Memory: 10}
	job := simulateNomad(t, BuildJob(s, 1))
	job.Version = ptr(uint64(0))
	allocs := []*api.AllocationListStub{{ID: "a", ClientStatus: "running", DesiredStatus: "run",
		TaskStates: map[string]*api.TaskState{"app": {State: "running"}, "drain": {State: "pending"}}}}
	if got := Observe(job, allocs).Status; got != StatusRunning {
		t.Errorf("status = %s, want running", got)
	}
	if got := Observe(job, allocs).Allocations[0].Tasks; len(got) != 2 {
		t.Errorf("task summaries = %+v, want both tasks listed", got)
	}
	allocs[0].TaskStates["app"].State = "pending"
	if got := Observe(job, allocs).Status; got != StatusStarting {
		t.Errorf("main task pending: status = %s, want starting", got)
	}
}
