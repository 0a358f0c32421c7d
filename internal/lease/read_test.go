package lease

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"
)

// nomadCopy is job as Nomad hands it back: canonicalised, submitted at
// submit, and through JSON, so config lists are []any and numbers float64.
func nomadCopy(t *testing.T, job *api.Job, submit time.Time) *api.Job {
	t.Helper()
	job.Canonicalize()
	job.SubmitTime = new(submit.UnixNano())
	raw, err := json.Marshal(job)
	if err != nil {
		t.Fatal(err)
	}
	var out api.Job
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatal(err)
	}
	return &out
}

func TestLeaseFromJobRoundTrip(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(*Lease)
		// want is what reads back; nil means the signed lease itself.
		want func(Lease) Lease
	}{
		{"every field", func(*Lease) {}, nil},
		{"minimal with Nomad defaults", func(l *Lease) {
			l.Namespace, l.NodeID = "", ""
			l.Workload = Workload{Driver: "exec", Command: "/bin/true", CPU: 100, Memory: 64}
		}, func(l Lease) Lease {
			l.Namespace, l.Workload.Disk = "default", 300
			return l
		}},
		{"image only", func(l *Lease) {
			l.Workload = Workload{Driver: "docker", Image: "busybox", CPU: 1, Memory: 10, Disk: 11}
		}, nil},
		{"ports", func(l *Lease) { l.Workload.Ports = []string{"http", "admin"} }, nil},
		{"reference", func(l *Lease) { l.Reference, l.ReferenceAlloc = "parent", parentAlloc }, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := fixture()
			tt.mutate(&l)
			l = signed(t, l)
			now := l.CreatedAt.Add(3 * time.Second)
			got, err := LeaseFromJob(nomadCopy(t, BuildJob(l, "", now), now))
			if err != nil {
				t.Fatal(err)
			}
			if ok, problems := Verify(got); !ok {
				t.Fatalf("Verify = false: %v", problems)
			}
			want := l
			if tt.want != nil {
				want = tt.want(l)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("read back\n%+v\nwant\n%+v", got, want)
			}
			if d := Diff(l, got); len(d) != 0 {
				t.Errorf("Diff = %v", d)
			}
		})
	}
}

// TestLeaseFromJobOutOfBand edits Nomad's copy of a signed lease job the way
// an operator could; Verify must fail on each with the named problem.
// oldTimer turns the job's timer into an older lease's: /bin/sleep with
// secs, no script, no identity.
func oldTimer(j *api.Job, secs string) {
	timer := findTask(j.TaskGroups[0], TimerTask)
	timer.Config = map[string]any{"command": TimerCommand, "args": []any{secs}}
	timer.Identities = nil
}

func TestLeaseFromJobOutOfBand(t *testing.T) {
	workload := func(j *api.Job) *api.Task { return findTask(j.TaskGroups[0], WorkloadTask) }
	timer := func(j *api.Job) *api.Task { return findTask(j.TaskGroups[0], TimerTask) }
	const sigMismatch = "signature does not match"
	tests := []struct {
		name   string
		mutate func(*api.Job)
		want   string
	}{
		{"env value", func(j *api.Job) { workload(j).Env["FOO"] = "b" }, sigMismatch},
		{"reference meta", func(j *api.Job) { j.Meta[MetaReference] = "other" }, sigMismatch},
		{"reference allocation meta", func(j *api.Job) { j.Meta[MetaReferenceAlloc] = "0000" }, sigMismatch},
		{"extra service", func(j *api.Job) {
			j.TaskGroups[0].Services = append(j.TaskGroups[0].Services, &api.Service{Name: "web", Provider: "nomad"})
		}, "service"},
		{"port added", func(j *api.Job) {
			j.TaskGroups[0].Networks = []*api.NetworkResource{{DynamicPorts: []api.Port{{Label: "ssh"}}}}
		}, sigMismatch},
		{"static port", func(j *api.Job) {
			j.TaskGroups[0].Networks = []*api.NetworkResource{{ReservedPorts: []api.Port{{Label: "ssh", Value: 22}}}}
		}, `group "lease" has network 1, berth writes none`},
		{"env added", func(j *api.Job) { workload(j).Env["NEW"] = "1" }, sigMismatch},
		{"image", func(j *api.Job) { workload(j).Config["image"] = "evil:latest" }, sigMismatch},
		{"args reordered", func(j *api.Job) { workload(j).Config["args"] = []any{"--epochs", "train.py", "3"} }, sigMismatch},
		{"cpu", func(j *api.Job) { *workload(j).Resources.CPU = 4000 }, sigMismatch},
		{"memory", func(j *api.Job) { *workload(j).Resources.MemoryMB = 4096 }, sigMismatch},
		{"disk", func(j *api.Job) { *j.TaskGroups[0].EphemeralDisk.SizeMB = 9000 }, sigMismatch},
		{"driver", func(j *api.Job) { workload(j).Driver = "raw_exec" }, sigMismatch},
		{"pin moved", func(j *api.Job) { j.Constraints[0].RTarget = "other-node" }, sigMismatch},
		{"pin removed", func(j *api.Job) { j.Constraints = nil }, sigMismatch},
		{"duration meta", func(j *api.Job) { j.Meta[MetaDuration] = "3h0m0s" }, sigMismatch},
		{"created_at meta", func(j *api.Job) { j.Meta[MetaCreatedAt] = "2025-01-02T04:04:05Z" }, sigMismatch},
		{"user meta", func(j *api.Job) { j.Meta[MetaUser] = strings.Repeat("ab", 32) }, sigMismatch},
		{"renamed", func(j *api.Job) { j.ID = new("train-43") }, sigMismatch},
		{"unparsable created_at", func(j *api.Job) { j.Meta[MetaCreatedAt] = "yesterday" }, "is not an RFC 3339 time"},
		{"unparsable duration", func(j *api.Job) { j.Meta[MetaDuration] = "long" }, "is not a duration"},
		{"expires_at meta", func(j *api.Job) { j.Meta[MetaExpiresAt] = "2030-01-01T00:00:00Z" }, "but created_at + duration is"},
		{"signature removed", func(j *api.Job) { delete(j.Meta, MetaSignature) }, "lease has a user but no signature"},
		{"service job", func(j *api.Job) { j.Type = new("service") }, `job type is "service"`},
		{"extra group", func(j *api.Job) { j.TaskGroups = append(j.TaskGroups, &api.TaskGroup{Name: new("more")}) }, `job has group "more", berth writes none`},
		{"scaled", func(j *api.Job) { j.TaskGroups[0].Count = new(3) }, `group "lease" count is 3, berth writes 1`},
		{"reschedules", func(j *api.Job) { j.TaskGroups[0].ReschedulePolicy.Unlimited = new(true) }, `group "lease" reschedule unlimited is true, berth writes false`},
		{"host volume", func(j *api.Job) {
			j.TaskGroups[0].Volumes = map[string]*api.VolumeRequest{"root": {Name: "root", Type: "host", Source: "root"}}
		}, `group "lease" volume key "root" is set, berth writes none`},
		{"extra task", func(j *api.Job) { j.TaskGroups[0].Tasks = append(j.TaskGroups[0].Tasks, &api.Task{Name: "miner"}) }, `group "lease" has task "miner", berth writes none`},
		{"extra config key", func(j *api.Job) { workload(j).Config["privileged"] = true }, `task "workload" config key "privileged" is set, berth writes none`},
		{"config wrong type", func(j *api.Job) { workload(j).Config["command"] = 42.0 }, `"command" has unexpected type float64`},
		{"runs as root", func(j *api.Job) { workload(j).User = "root" }, `task "workload" user is "root", berth writes none`},
		{"cores", func(j *api.Job) { workload(j).Resources.Cores = new(8) }, `task "workload" resources cores is 8, berth writes 0`},
		{"group pin", func(j *api.Job) {
			j.TaskGroups[0].Constraints = []*api.Constraint{{LTarget: PinTarget, Operand: "!=", RTarget: "x"}}
		}, `group "lease" constraint is [${node.unique.id} != "x"], berth writes none`},
		{"timer not leader", func(j *api.Job) { timer(j).Leader = false }, `task "lease-timer" leader is false, berth writes true`},
		// An older lease's timer runs /bin/sleep with the seconds left.
		{"old timer longer than lease", func(j *api.Job) { oldTimer(j, "99999") }, "sleeps 99999s, longer than the 2h0m0s lease"},
		{"old timer not a number", func(j *api.Job) { oldTimer(j, "1h") }, "not one positive number of seconds"},
		{"timer script changed", func(j *api.Job) { timer(j).Config["args"] = []any{"-c", "exec /bin/sleep 99999"} }, "does not run berth's timer script"},
		{"result identity removed", func(j *api.Job) { timer(j).Identities = nil }, `task "lease-timer" has no identity "berth-result", berth writes one`},
		{"timer command", func(j *api.Job) { timer(j).Config["command"] = "/bin/true" }, `runs "/bin/true"`},
		{"timer restarts", func(j *api.Job) { timer(j).RestartPolicy.Attempts = new(5) }, `task "lease-timer" restart attempts is 5, berth writes 0`},
		{"old timer re-registered late", func(j *api.Job) {
			oldTimer(j, "7197")
			*j.SubmitTime += int64(time.Hour) // same 7197 s sleep, an hour later
		}, "sleeps until 2025-01-02T06:04:05Z, after expires_at 2025-01-02T05:04:05Z"},
	}
	base := signed(t, fixture())
	now := base.CreatedAt.Add(3 * time.Second)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			job := nomadCopy(t, BuildJob(base, "", now), now)
			tt.mutate(job)
			got, err := LeaseFromJob(job)
			if err != nil {
				t.Fatal(err)
			}
			ok, problems := Verify(got)
			if ok {
				t.Fatal("Verify = true after an out-of-band change")
			}
			if !containsAny(problems, tt.want) {
				t.Errorf("problems = %q, want one containing %q", problems, tt.want)
			}
		})
	}
}

func TestLeaseFromJobClockSkewTolerated(t *testing.T) {
	l := signed(t, fixture())
	now := l.CreatedAt.Add(10 * time.Second)
	// Nomad's clock 30 s ahead of berth's: within ClockSkewAllowance.
	got, err := LeaseFromJob(nomadCopy(t, BuildJob(l, "", now), now.Add(30*time.Second)))
	if err != nil {
		t.Fatal(err)
	}
	if ok, problems := Verify(got); !ok {
		t.Errorf("Verify = false: %v", problems)
	}
}

func TestLeaseFromJobErrors(t *testing.T) {
	good := func() *api.Job { return BuildJob(signed(t, fixture()), "", fixture().CreatedAt) }
	tests := []struct {
		name string
		job  func() *api.Job
		want string
	}{
		{"nil", func() *api.Job { return nil }, "job is missing"},
		{"no kind", func() *api.Job { j := good(); delete(j.Meta, MetaKind); return j }, "is not a berth lease"},
		{"instance", func() *api.Job { j := good(); j.Meta[MetaKind] = "instance"; return j }, `meta berth.kind is "instance"`},
		{"no lease group", func() *api.Job { j := good(); j.TaskGroups[0].Name = new("app"); return j }, `no "lease" task group`},
		{"no timer", func() *api.Job { j := good(); j.TaskGroups[0].Tasks = j.TaskGroups[0].Tasks[:1]; return j }, "lacks the"},
		{"no workload", func() *api.Job { j := good(); j.TaskGroups[0].Tasks = j.TaskGroups[0].Tasks[1:]; return j }, "lacks the"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := LeaseFromJob(tt.job())
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want containing %q", err, tt.want)
			}
		})
	}
}

func TestDiff(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(*Lease)
		want   []string
	}{
		{"same", func(*Lease) {}, nil},
		{"Nomad defaults are not differences", func(l *Lease) { l.Namespace, l.Workload.Disk = "", 0 }, nil},
		{"env value", func(l *Lease) { l.Workload.Env["FOO"] = "b" }, []string{`workload.env.FOO: "a" -> "b"`}},
		{"env added and removed", func(l *Lease) { delete(l.Workload.Env, "BAR"); l.Workload.Env["ZED"] = "z" },
			[]string{`workload.env.BAR: "x<&>y" -> (unset)`, `workload.env.ZED: (unset) -> "z"`}},
		{"args order", func(l *Lease) { l.Workload.Args = []string{"--epochs", "train.py", "3"} },
			[]string{`workload.args: ["train.py","--epochs","3"] -> ["--epochs","train.py","3"]`}},
		{"node and cpu", func(l *Lease) { l.NodeID, l.Workload.CPU = "n2", 900 },
			[]string{`node: "5c2f1e0a-8d4b-4f3e-9a61-0b7c2d3e4f50" -> "n2"`, "workload.cpu: 500 -> 900"}},
		{"duration", func(l *Lease) { l.Duration = 3 * time.Hour }, []string{
			"duration: 2h0m0s -> 3h0m0s",
			"expires_at: 2025-01-02T05:04:05Z -> 2025-01-02T06:04:05Z",
		}},
		{"created_at", func(l *Lease) { l.CreatedAt = l.CreatedAt.Add(time.Minute) }, []string{
			"created_at: 2025-01-02T03:04:05Z -> 2025-01-02T03:05:05Z",
			"expires_at: 2025-01-02T05:04:05Z -> 2025-01-02T05:05:05Z",
		}},
		{"foreign", func(l *Lease) { l.Foreign = []string{`extra task "miner"`} }, []string{`job: extra task "miner"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Signed with the values Nomad substitutes, read back as them.
			s := fixture()
			s.Namespace, s.Workload.Disk = "default", 300
			a := fixture()
			a.Namespace, a.Workload.Disk = "default", 300
			tt.mutate(&a)
			if got := Diff(s, a); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Diff =\n%q\nwant\n%q", got, tt.want)
			}
		})
	}
}

// A referring lease's timer is checked as strictly as the plain one: its
// template must watch the referenced lease, its script end in time.
func TestLeaseFromJobReferenceTimer(t *testing.T) {
	timer := func(j *api.Job) *api.Task { return findTask(j.TaskGroups[0], TimerTask) }
	for _, tt := range []struct {
		name   string
		mutate func(*api.Job)
		want   string
	}{
		{"template removed", func(j *api.Job) { timer(j).Templates = nil }, `task "lease-timer" has no template 1, berth writes one`},
		{"template watches another", func(j *api.Job) {
			timer(j).Templates[0].EmbeddedTmpl = new(`{{ range nomadService "berth-lease-000000000000" }}x{{ end }}`)
		}, `task "lease-timer" template 1 data is "{{ range nomadService \"berth-lease-000000000000\" }}x{{ end }}"`},
		{"script sleeps longer", func(j *api.Job) {
			timer(j).Config["args"] = []any{"-c", strings.Replace(timer(j).Config["args"].([]any)[1].(string), "((", "((99", 1)}
		}, "sleeps until"},
		{"plain sleep instead", func(j *api.Job) { timer(j).Config = map[string]any{"command": TimerCommand, "args": []any{"60"}} },
			"runs no script"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			l := fixture()
			l.Reference, l.ReferenceAlloc = "parent", parentAlloc
			l = signed(t, l)
			now := l.CreatedAt.Add(3 * time.Second)
			job := nomadCopy(t, BuildJob(l, "", now), now)
			tt.mutate(job)
			got, err := LeaseFromJob(job)
			if err != nil {
				t.Fatal(err)
			}
			if ok, problems := Verify(got); ok || !strings.Contains(strings.Join(problems, "; "), tt.want) {
				t.Errorf("Verify = %v, %v; want a problem naming %q", ok, problems, tt.want)
			}
		})
	}
}
