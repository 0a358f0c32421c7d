package lease

import (
	"fmt"
	"maps"
	"reflect"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"
)

func TestTimerSeconds(t *testing.T) {
	l := fixture() // 7200 s
	exp := l.ExpiresAt()
	tests := []struct {
		name string
		now  time.Time
		want int
	}{
		{"at creation", l.CreatedAt, 7200},
		{"half a second in rounds up", l.CreatedAt.Add(500 * time.Millisecond), 7200},
		{"just over a second in", l.CreatedAt.Add(time.Second + time.Nanosecond), 7199},
		{"a whole second in", l.CreatedAt.Add(time.Second), 7199},
		{"1ns left", exp.Add(-time.Nanosecond), 1},
		{"at expiry at least 1", exp, 1},
		{"after expiry at least 1", exp.Add(time.Hour), 1},
		{"clock behind creation capped at duration", l.CreatedAt.Add(-time.Hour), 7200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := TimerSeconds(l, tt.now); got != tt.want {
				t.Errorf("TimerSeconds = %d, want %d", got, tt.want)
			}
		})
	}
}

func TestBuildJobShape(t *testing.T) {
	l := signed(t, fixture())
	now := l.CreatedAt.Add(90*time.Minute + 200*time.Millisecond) // 1799.8 s left
	job := BuildJob(l, "", now)

	if *job.ID != "train-42" || *job.Name != "train-42" || *job.Namespace != "ml" || *job.Type != api.JobTypeBatch {
		t.Errorf("job id/name/namespace/type = %s/%s/%s/%s", *job.ID, *job.Name, *job.Namespace, *job.Type)
	}
	wantPin := []*api.Constraint{{LTarget: "${node.unique.id}", Operand: "=", RTarget: l.NodeID}}
	if !reflect.DeepEqual(job.Constraints, wantPin) {
		t.Errorf("constraints = %+v", job.Constraints)
	}
	if deref(job.NodePool) != "all" {
		t.Errorf("pinned lease node pool = %q, want all", deref(job.NodePool))
	}
	wantMeta := map[string]string{
		"berth.kind":       "lease",
		"berth.user":       l.User,
		"berth.created_at": "2025-01-02T03:04:05Z",
		"berth.duration":   "2h0m0s",
		"berth.expires_at": "2025-01-02T05:04:05Z",
		"berth.signature":  l.Signature,
	}
	if !maps.Equal(job.Meta, wantMeta) {
		t.Errorf("meta = %v\nwant %v", job.Meta, wantMeta)
	}
	if !IsLeaseJob(job) {
		t.Error("IsLeaseJob = false")
	}

	if len(job.TaskGroups) != 1 {
		t.Fatalf("%d groups", len(job.TaskGroups))
	}
	g := job.TaskGroups[0]
	if *g.Name != "lease" || *g.Count != 1 {
		t.Errorf("group %s count %d", *g.Name, *g.Count)
	}
	if *g.RestartPolicy.Attempts != 0 || *g.RestartPolicy.Mode != "fail" {
		t.Errorf("restart = %+v", g.RestartPolicy)
	}
	if *g.ReschedulePolicy.Attempts != 0 || *g.ReschedulePolicy.Unlimited {
		t.Errorf("reschedule = %+v", g.ReschedulePolicy)
	}
	if *g.EphemeralDisk.SizeMB != 2048 {
		t.Errorf("disk = %d", *g.EphemeralDisk.SizeMB)
	}
	if len(g.Tasks) != 2 {
		t.Fatalf("%d tasks", len(g.Tasks))
	}

	w, timer := findTask(g, "workload"), findTask(g, "lease-timer")
	if w == nil || timer == nil {
		t.Fatalf("tasks = %v", g.Tasks)
	}
	if w.Leader || !timer.Leader {
		t.Errorf("leader: workload %v, timer %v; want only the timer", w.Leader, timer.Leader)
	}
	wantWorkload := map[string]any{"image": "ghcr.io/acme/train:1.2", "command": "python", "args": []string{"train.py", "--epochs", "3"}}
	if w.Driver != "docker" || !reflect.DeepEqual(w.Config, wantWorkload) || !maps.Equal(w.Env, l.Workload.Env) {
		t.Errorf("workload = %s %v %v", w.Driver, w.Config, w.Env)
	}
	if *w.Resources.CPU != 500 || *w.Resources.MemoryMB != 1024 {
		t.Errorf("workload resources = %d/%d", *w.Resources.CPU, *w.Resources.MemoryMB)
	}
	wantScript := fmt.Sprintf(`cat "$NOMAD_SECRETS_DIR/nomad_berth-result.jwt"; echo; left=$((%d - $(date +%%s))); `+
		`[ "$left" -gt 0 ] || exit 0; exec /bin/sleep "$left"`, l.ExpiresAt().Unix())
	wantTimer := map[string]any{"command": "/bin/sh", "args": []string{"-c", wantScript}}
	if timer.Driver != "exec" || !reflect.DeepEqual(timer.Config, wantTimer) {
		t.Errorf("timer = %s %v", timer.Driver, timer.Config)
	}
	if len(timer.Identities) != 1 || timer.Identities[0].Name != ResultIdentity || !timer.Identities[0].File {
		t.Errorf("timer identities = %+v, want the result identity as a file", timer.Identities)
	}
	if *timer.Resources.CPU != 20 || *timer.Resources.MemoryMB != 16 {
		t.Errorf("timer resources = %d/%d", *timer.Resources.CPU, *timer.Resources.MemoryMB)
	}
	// Nomad rejects a task whose log storage is not below the group disk.
	for _, task := range g.Tasks {
		if logs := *task.LogConfig.MaxFiles * *task.LogConfig.MaxFileSizeMB; logs >= MinDiskMB {
			t.Errorf("%s keeps %d MB of logs, not below the %d MB minimum disk", task.Name, logs, MinDiskMB)
		}
	}

	// The job owns its copies: editing the lease afterwards changes nothing.
	l.Workload.Env["FOO"] = "changed"
	l.Workload.Args[0] = "changed"
	if w.Env["FOO"] != "a" || w.Config["args"].([]string)[0] != "train.py" {
		t.Error("job shares env or args with the lease")
	}
}

func TestBuildJobVariants(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(*Lease)
		driver string
		check  func(t *testing.T, job *api.Job)
	}{
		{"custom timer driver", func(*Lease) {}, "raw_exec", func(t *testing.T, job *api.Job) {
			if d := findTask(job.TaskGroups[0], TimerTask).Driver; d != "raw_exec" {
				t.Errorf("timer driver = %s", d)
			}
		}},
		{"unpinned", func(l *Lease) { l.NodeID = "" }, "", func(t *testing.T, job *api.Job) {
			if len(job.Constraints) != 0 || job.NodePool != nil {
				t.Errorf("constraints %v, node pool %v", job.Constraints, job.NodePool)
			}
		}},
		{"defaults made explicit", func(l *Lease) { l.Namespace, l.Workload.Disk = "", 0 }, "", func(t *testing.T, job *api.Job) {
			if *job.Namespace != "default" || *job.TaskGroups[0].EphemeralDisk.SizeMB != 300 {
				t.Errorf("namespace %s disk %d", *job.Namespace, *job.TaskGroups[0].EphemeralDisk.SizeMB)
			}
		}},
		{"empty config, env and args omitted", func(l *Lease) {
			l.Workload = Workload{Driver: "exec", Command: "/bin/true", CPU: 10, Memory: 10}
		}, "", func(t *testing.T, job *api.Job) {
			w := findTask(job.TaskGroups[0], WorkloadTask)
			if !reflect.DeepEqual(w.Config, map[string]any{"command": "/bin/true"}) || w.Env != nil {
				t.Errorf("config %v env %v", w.Config, w.Env)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := fixture()
			tt.mutate(&l)
			tt.check(t, BuildJob(l, tt.driver, l.CreatedAt))
		})
	}
}

func TestIsLeaseJob(t *testing.T) {
	tests := []struct {
		name string
		job  *api.Job
		want bool
	}{
		{"nil", nil, false},
		{"no meta", &api.Job{}, false},
		{"instance", &api.Job{Meta: map[string]string{MetaKind: "instance"}}, false},
		{"lease", &api.Job{Meta: map[string]string{MetaKind: KindLease}}, true},
	}
	for _, tt := range tests {
		if got := IsLeaseJob(tt.job); got != tt.want {
			t.Errorf("%s: IsLeaseJob = %v", tt.name, got)
		}
	}
}

func TestIsJobOf(t *testing.T) {
	l := signed(t, fixture())
	now := l.CreatedAt.Add(time.Second)
	other := l
	other.CreatedAt = l.CreatedAt.Add(time.Second)
	other = signed(t, other)
	unsigned := fixture()
	tests := []struct {
		name string
		job  *api.Job
		l    Lease
		want bool
	}{
		{"its own job", BuildJob(l, "", now), l, true},
		{"unsigned, its own job", BuildJob(unsigned, "", now), unsigned, true},
		{"created a second later", BuildJob(other, "", now), l, false},
		{"unsigned job for a signed lease", BuildJob(unsigned, "", now), l, false},
		{"not a lease", &api.Job{Meta: map[string]string{MetaCreatedAt: stamp(l.CreatedAt), MetaSignature: l.Signature}}, l, false},
		{"nil", nil, l, false},
	}
	for _, tt := range tests {
		if got := IsJobOf(tt.job, tt.l); got != tt.want {
			t.Errorf("%s: IsJobOf = %v, want %v", tt.name, got, tt.want)
		}
	}
}
