package lease

import (
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"
)

// A lease job as a Nomad server returns it, with everything the server
// fills in, verifies.
func TestLeaseFromJobAcceptsWhatNomadFills(t *testing.T) {
	for _, tt := range []struct {
		name   string
		lease  func(*Lease)
		driver string
		older  func(*api.Job)
	}{
		{"pinned", func(*Lease) {}, "", nil},
		{"placed by Nomad in the namespace's pool", func(l *Lease) { l.NodeID = "" }, "", func(j *api.Job) { j.NodePool = new("gpu") }},
		{"raw_exec timer, reference and ports", func(l *Lease) {
			l.Reference, l.ReferenceAlloc, l.Workload.Ports = "parent", parentAlloc, []string{"http"}
		}, "raw_exec", nil},
		{"stopped", func(*Lease) {}, "", func(j *api.Job) { j.Stop = new(true) }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			l := fixture()
			tt.lease(&l)
			l = signed(t, l)
			now := l.CreatedAt.Add(3 * time.Second)
			job := nomadCopy(t, BuildJob(l, tt.driver, now), now)
			serverFills(job)
			if tt.older != nil {
				tt.older(job)
			}
			got, err := LeaseFromJob(job)
			if err != nil {
				t.Fatal(err)
			}
			if ok, problems := Verify(got); !ok {
				t.Fatalf("Verify = false: %q", problems)
			}
		})
	}
}

// An earlier berth's timer slept the seconds left: a restart (alloc
// restart, alloc stop, a drain) sleeps them again and nothing in the job
// shows it, so such a lease never verifies, whatever else it holds.
func TestLeaseFromJobOlderSleepTimerNeverVerifies(t *testing.T) {
	legacySleep := func(j *api.Job) {
		timer := findTask(j.TaskGroups[0], TimerTask)
		timer.Config = map[string]any{"command": TimerCommand, "args": []any{"7197"}}
		timer.Identities = nil
	}
	for _, tt := range []struct {
		name  string
		older func(*api.Job)
	}{
		// Before result signatures: the timer slept the seconds left.
		{"timer sleeps, service", legacySleep},
		// Before references: no service either.
		{"timer sleeps, no service", func(j *api.Job) {
			legacySleep(j)
			j.TaskGroups[0].Services = nil
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			l := signed(t, fixture())
			now := l.CreatedAt.Add(3 * time.Second)
			job := nomadCopy(t, BuildJob(l, "", now), now)
			serverFills(job)
			tt.older(job)
			got, err := LeaseFromJob(job)
			if err != nil {
				t.Fatal(err)
			}
			ok, problems := Verify(got)
			if ok || len(got.Foreign) != 1 || !strings.Contains(got.Foreign[0], "afresh after every restart") {
				t.Fatalf("Verify = %v, foreign %q, problems %q; want only the restart finding", ok, got.Foreign, problems)
			}
		})
	}
}

// Each setting of point 1 of issue 33 that kept a verified lease running
// past its end, and the rest of what berth never writes: each is foreign,
// named by its field.
func TestLeaseFromJobAllowList(t *testing.T) {
	group := func(j *api.Job) *api.TaskGroup { return j.TaskGroups[0] }
	workload := func(j *api.Job) *api.Task { return findTask(j.TaskGroups[0], WorkloadTask) }
	timer := func(j *api.Job) *api.Task { return findTask(j.TaskGroups[0], TimerTask) }
	const grp, tmr, wl = `group "lease" `, `group "lease" task "lease-timer" `, `group "lease" task "workload" `
	for _, tt := range []struct {
		name   string
		mutate func(*api.Job)
		want   string
	}{
		{"group shutdown_delay", func(j *api.Job) { group(j).ShutdownDelay = new(8760 * time.Hour) },
			grp + "shutdown_delay is 8760h, berth writes none"},
		{"workload shutdown_delay", func(j *api.Job) { workload(j).ShutdownDelay = 8760 * time.Hour },
			wl + "shutdown_delay is 8760h, berth writes none"},
		{"workload kill_timeout", func(j *api.Job) { workload(j).KillTimeout = new(time.Hour) },
			wl + "kill_timeout is 1h, berth writes 5s"},
		{"timer env", func(j *api.Job) { timer(j).Env = map[string]string{"PATH": "/tmp/evil"} },
			tmr + `env key "PATH" is set, berth writes none`},
		{"timer kill_timeout", func(j *api.Job) { timer(j).KillTimeout = new(8760 * time.Hour) },
			tmr + "kill_timeout is 8760h, berth writes 5s"},
		{"timer kill_signal", func(j *api.Job) { timer(j).KillSignal = "SIGWINCH" }, tmr + `kill_signal is "SIGWINCH", berth writes none`},
		{"timer driver", func(j *api.Job) { timer(j).Driver = "docker" }, tmr + `driver is "docker", berth writes "exec" or "raw_exec"`},
		{"timer extra config key", func(j *api.Job) { timer(j).Config["pid_mode"] = "host" },
			tmr + `config key "pid_mode" is set, berth writes none`},
		{"timer user", func(j *api.Job) { timer(j).User = "nobody" }, tmr + `user is "nobody", berth writes none`},
		{"timer resources", func(j *api.Job) { timer(j).Resources.CPU = new(4000) }, tmr + "resources cpu is 4000, berth writes 20"},
		{"timer lifecycle", func(j *api.Job) { timer(j).Lifecycle = &api.TaskLifecycle{Hook: "poststop"} }, tmr + "lifecycle is set"},
		{"timer artifact", func(j *api.Job) { timer(j).Artifacts = []*api.TaskArtifact{{GetterSource: new("https://x/y")}} },
			tmr + "artifact is 1 blocks, berth writes none"},
		{"extra identity", func(j *api.Job) {
			timer(j).Identities = append(timer(j).Identities, &api.WorkloadIdentity{Name: "vault_default", Audience: []string{"vault.io"}})
		}, tmr + `has identity "vault_default", berth writes none`},
		{"identity in env", func(j *api.Job) { timer(j).Identities[0].Env = true }, tmr + `identity "berth-result" env is true, berth writes false`},
		{"workload identity", func(j *api.Job) {
			workload(j).Identities = []*api.WorkloadIdentity{{Name: "x", Audience: []string{"a"}}}
		},
			wl + `has identity "x", berth writes none`},
		{"default identity changed", func(j *api.Job) {
			workload(j).Identity = &api.WorkloadIdentity{Name: "default", Audience: []string{"nomadproject.io"}, TTL: time.Hour}
		}, wl + "identity is set, berth writes none"},
		{"periodic", func(j *api.Job) { j.Periodic = &api.PeriodicConfig{Spec: new("* * * * *"), Enabled: new(true)} },
			"job periodic is set, berth writes none"},
		{"parameterized", func(j *api.Job) { j.ParameterizedJob = &api.ParameterizedJobConfig{Payload: "optional"} },
			"job parameterized is set, berth writes none"},
		{"dispatched child", func(j *api.Job) { j.ParentID, j.Dispatched = new("train-42"), true },
			`job parent_id is "train-42", berth writes none`},
		{"group meta", func(j *api.Job) { group(j).Meta = map[string]string{"x": "y"} }, grp + `meta key "x" is set, berth writes none`},
		{"job meta key", func(j *api.Job) { j.Meta["owner"] = "eve" }, `job meta key "owner" is set, berth writes none`},
		{"disconnect", func(j *api.Job) { group(j).Disconnect = &api.DisconnectStrategy{LostAfter: new(time.Hour)} },
			grp + "disconnect is set, berth writes none"},
		{"datacenters", func(j *api.Job) { j.Datacenters = []string{"dc2"} }, `job datacenters is ["dc2"], berth writes none`},
		{"node pool of a pinned lease", func(j *api.Job) { j.NodePool = new("default") }, `job node_pool is "default", berth writes "all"`},
		{"service check", func(j *api.Job) {
			group(j).Services[0].Checks = []api.ServiceCheck{{Type: "tcp", Interval: time.Second, Timeout: time.Second}}
		}, `service "berth-lease-`},
		{"extra group constraint", func(j *api.Job) {
			group(j).Constraints = append(group(j).Constraints, &api.Constraint{LTarget: "${attr.kernel.name}", RTarget: "linux", Operand: "="})
		}, grp + `constraint is [${attr.kernel.name} = "linux"], berth writes none`},
		{"update with canaries", func(j *api.Job) { j.Update.Canary = new(2) }, "job update is set, berth writes none"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			l := fixture()
			l.Reference, l.ReferenceAlloc = "parent", parentAlloc
			l = signed(t, l)
			now := l.CreatedAt.Add(3 * time.Second)
			job := nomadCopy(t, BuildJob(l, "", now), now)
			serverFills(job)
			tt.mutate(job)
			got, err := LeaseFromJob(job)
			if err != nil {
				t.Fatal(err)
			}
			if ok, problems := Verify(got); ok || !containsAny(problems, tt.want) {
				t.Errorf("Verify = %v, %q; want a problem containing %q", ok, problems, tt.want)
			}
		})
	}
}

// The reference template is compared with every option, so none can keep
// it from ever rendering empty.
func TestLeaseFromJobTemplateOptions(t *testing.T) {
	const where = `group "lease" task "lease-timer" template 1 `
	for _, tt := range []struct {
		name   string
		mutate func(*api.Template)
		want   string
	}{
		{"left delimiter", func(tp *api.Template) { tp.LeftDelim = new("[[") }, `left_delimiter is "[[", berth writes "{{"`},
		{"right delimiter", func(tp *api.Template) { tp.RightDelim = new("]]") }, `right_delimiter is "]]", berth writes "}}"`},
		{"once", func(tp *api.Template) { tp.Once = new(true) }, "once is true, berth writes false"},
		{"splay", func(tp *api.Template) { tp.Splay = new(8760 * time.Hour) }, "splay is 8760h, berth writes 5s"},
		{"wait", func(tp *api.Template) { tp.Wait = &api.WaitConfig{Min: new(time.Hour), Max: new(time.Hour)} }, "wait is set, berth writes none"},
		{"change mode", func(tp *api.Template) { tp.ChangeMode = new("noop") }, `change_mode is "noop", berth writes "restart"`},
		{"change signal", func(tp *api.Template) { tp.ChangeMode, tp.ChangeSignal = new("signal"), new("SIGHUP") },
			`change_signal is "SIGHUP", berth writes none`},
		{"perms", func(tp *api.Template) { tp.Perms = new("0000") }, `perms is "0000", berth writes "0644"`},
		{"destination", func(tp *api.Template) { tp.DestPath = new("local/other") }, `destination is "local/other"`},
		{"error on missing key", func(tp *api.Template) { tp.ErrMissingKey = new(true) }, "error_on_missing_key is true"},
		{"as env", func(tp *api.Template) { tp.Envvars = new(true) }, "env is true, berth writes false"},
		{"data counts any job", func(tp *api.Template) {
			tp.EmbeddedTmpl = new(strings.Replace(*tp.EmbeddedTmpl, `{{ if and (eq .JobID "parent") (eq .AllocID "`+parentAlloc+`") }}`, `{{ if true }}`, 1))
		}, `data is "{{ range nomadService`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			l := fixture()
			l.Reference, l.ReferenceAlloc = "parent", parentAlloc
			l = signed(t, l)
			job := nomadCopy(t, BuildJob(l, "", l.CreatedAt), l.CreatedAt)
			tt.mutate(findTask(job.TaskGroups[0], TimerTask).Templates[0])
			got, err := LeaseFromJob(job)
			if err != nil {
				t.Fatal(err)
			}
			if ok, problems := Verify(got); ok || !containsAny(problems, where+tt.want) {
				t.Errorf("Verify = %v, %q; want a problem containing %q", ok, problems, where+tt.want)
			}
		})
	}
}

// A referring lease of an earlier berth counted the referenced lease's
// service from any job: it still reads, but as foreign, saying to replace
// it (another job's service of that name would keep it running).
func TestLeaseFromJobAnyJobReferenceIsReplaced(t *testing.T) {
	l := fixture()
	l.Reference, l.ReferenceAlloc = "parent", parentAlloc
	l = signed(t, l)
	job := nomadCopy(t, BuildJob(l, "", l.CreatedAt), l.CreatedAt)
	findTask(job.TaskGroups[0], TimerTask).Templates[0].EmbeddedTmpl = new(anyJobTemplate(l))
	got, err := LeaseFromJob(job)
	if err != nil {
		t.Fatal(err)
	}
	if got.Reference != "parent" {
		t.Errorf("reference = %q", got.Reference)
	}
	ok, problems := Verify(got)
	if ok || len(problems) != 1 || !strings.Contains(problems[0], "of any job") || !strings.Contains(problems[0], "replace the lease") {
		t.Errorf("Verify = %v, %q; want one problem saying to replace the lease", ok, problems)
	}
	// The new template names the referenced lease's job and allocation.
	if data := *referenceTemplate(l).EmbeddedTmpl; !strings.Contains(data, `eq .JobID "parent"`) ||
		!strings.Contains(data, `eq .AllocID "`+parentAlloc+`"`) {
		t.Errorf("reference template %q does not filter on the referenced job and allocation", data)
	}
}

// parentAlloc is the allocation of the referenced lease in fixtures.
const parentAlloc = "9f1c2d3e-0000-4000-8000-00000000abcd"

// A referring lease of the berth before allocations counted the services
// of any job of the referenced lease's name: a job reusing the name after
// that lease ended kept it running. It still reads, as foreign, saying to
// replace it.
func TestLeaseFromJobJobOnlyReferenceIsReplaced(t *testing.T) {
	l := fixture()
	l.Reference = "parent"
	l = signed(t, l)
	job := nomadCopy(t, BuildJob(l, "", l.CreatedAt), l.CreatedAt)
	got, err := LeaseFromJob(job)
	if err != nil {
		t.Fatal(err)
	}
	ok, problems := Verify(got)
	if ok || len(problems) != 1 || !strings.Contains(problems[0], "by job name only") || !strings.Contains(problems[0], "replace the lease") {
		t.Errorf("Verify = %v, %q; want one problem saying to replace the lease", ok, problems)
	}
}
