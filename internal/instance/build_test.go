package instance

import (
	"reflect"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"
)

func TestBuildJobLifecycle(t *testing.T) {
	job := BuildJob(fullSpec(), 1)
	tests := []struct {
		task string
		want *api.TaskLifecycle
	}{
		{"web", nil},
		{"migrate", &api.TaskLifecycle{Hook: "prestart", Sidecar: false}},
		{"proxy", &api.TaskLifecycle{Hook: "poststart", Sidecar: true}},
	}
	for _, tt := range tests {
		t.Run(tt.task, func(t *testing.T) {
			if got := findTask(t, job, tt.task).Lifecycle; !reflect.DeepEqual(got, tt.want) {
				t.Errorf("lifecycle = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestBuildJobJobLevel(t *testing.T) {
	s := fullSpec()
	stopped := fullSpec()
	stopped.Running = false
	unmanaged := fullSpec()
	unmanaged.Replicas = nil
	defaults := fullSpec()
	defaults.Namespace, defaults.NodePool = "", ""

	tests := []struct {
		name  string
		job   *api.Job
		check func(t *testing.T, job *api.Job)
	}{
		{"identity and type", BuildJob(s, 1), func(t *testing.T, job *api.Job) {
			if *job.ID != "shop" || *job.Name != "shop" || *job.Type != "service" {
				t.Errorf("id/name/type = %s/%s/%s", *job.ID, *job.Name, *job.Type)
			}
			if *job.Namespace != "team-a" || *job.NodePool != "edge" {
				t.Errorf("namespace/node pool = %s/%s", *job.Namespace, *job.NodePool)
			}
			if !reflect.DeepEqual(job.Datacenters, []string{"dc1", "dc2"}) {
				t.Errorf("datacenters = %v", job.Datacenters)
			}
			if len(job.TaskGroups) != 1 || *job.TaskGroups[0].Name != GroupName {
				t.Errorf("want one group named %q", GroupName)
			}
		}},
		{"meta carries the kind marker", BuildJob(s, 1), func(t *testing.T, job *api.Job) {
			want := map[string]string{"owner": "payments", MetaKind: KindInstance}
			if !reflect.DeepEqual(job.Meta, want) {
				t.Errorf("meta = %v, want %v", job.Meta, want)
			}
			if !IsBerthJob(job) {
				t.Error("IsBerthJob = false")
			}
		}},
		{"running job is not stopped", BuildJob(s, 1), func(t *testing.T, job *api.Job) {
			if *job.Stop {
				t.Error("Stop = true")
			}
		}},
		{"stopped job", BuildJob(stopped, 1), func(t *testing.T, job *api.Job) {
			if !*job.Stop {
				t.Error("Stop = false")
			}
		}},
		{"managed count wins over current", BuildJob(s, 7), func(t *testing.T, job *api.Job) {
			if got := *job.TaskGroups[0].Count; got != 3 {
				t.Errorf("count = %d, want 3", got)
			}
		}},
		{"unmanaged count keeps current", BuildJob(unmanaged, 7), func(t *testing.T, job *api.Job) {
			if got := *job.TaskGroups[0].Count; got != 7 {
				t.Errorf("count = %d, want 7", got)
			}
		}},
		{"empty namespace and node pool left to Nomad", BuildJob(defaults, 1), func(t *testing.T, job *api.Job) {
			if job.Namespace != nil || job.NodePool != nil {
				t.Errorf("namespace/node pool = %v/%v, want unset", job.Namespace, job.NodePool)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { tt.check(t, tt.job) })
	}
}

func TestBuildJobNetworkAndPorts(t *testing.T) {
	job := BuildJob(fullSpec(), 1)
	g := job.TaskGroups[0]
	if len(g.Networks) != 1 {
		t.Fatalf("networks = %d, want 1", len(g.Networks))
	}
	nw := g.Networks[0]
	if nw.Mode != "bridge" {
		t.Errorf("mode = %q", nw.Mode)
	}
	wantDynamic := []api.Port{{Label: "admin"}, {Label: "http", To: 8080}}
	wantReserved := []api.Port{{Label: "metrics", Value: 29090, To: 9090}}
	if !reflect.DeepEqual(nw.DynamicPorts, wantDynamic) {
		t.Errorf("dynamic = %+v, want %+v", nw.DynamicPorts, wantDynamic)
	}
	if !reflect.DeepEqual(nw.ReservedPorts, wantReserved) {
		t.Errorf("reserved = %+v, want %+v", nw.ReservedPorts, wantReserved)
	}

	tests := []struct {
		task string
		meta map[string]string
	}{
		{"web", map[string]string{MetaPorts: "http,metrics"}},
		{"proxy", map[string]string{MetaPorts: "admin"}},
		{"migrate", nil},
	}
	for _, tt := range tests {
		t.Run(tt.task, func(t *testing.T) {
			if got := findTask(t, job, tt.task).Meta; !reflect.DeepEqual(got, tt.meta) {
				t.Errorf("task meta = %v, want %v", got, tt.meta)
			}
		})
	}
}

func TestBuildJobTask(t *testing.T) {
	job := BuildJob(fullSpec(), 1)
	web := findTask(t, job, "web")

	wantConfig := map[string]any{
		"image":      "nginx:1.27",
		"command":    "/bin/server",
		"args":       []string{"--port", "8080"},
		"ports":      []any{"http"},
		"ulimit":     map[string]any{"nofile": "1024"},
		"shm_size":   float64(64),
		"privileged": false,
	}
	if !reflect.DeepEqual(web.Config, wantConfig) {
		t.Errorf("config = %#v, want %#v", web.Config, wantConfig)
	}
	if web.Driver != "docker" || web.Env["LOG_LEVEL"] != "info" || web.KillSignal != "SIGTERM" {
		t.Errorf("driver/env/kill_signal = %s/%v/%q", web.Driver, web.Env, web.KillSignal)
	}
	res := web.Resources
	if *res.CPU != 250 || *res.MemoryMB != 256 || *res.MemoryMaxMB != 512 {
		t.Errorf("resources = %d/%d/%d", *res.CPU, *res.MemoryMB, *res.MemoryMaxMB)
	}
	if migrate := findTask(t, job, "migrate"); migrate.Resources.MemoryMaxMB != nil {
		t.Errorf("memory_max sent while unset: %d", *migrate.Resources.MemoryMaxMB)
	}
	if proxy := findTask(t, job, "proxy"); !reflect.DeepEqual(proxy.Config, map[string]any{"pid_mode": "host"}) {
		t.Errorf("proxy config = %#v (no image/command/args expected)", proxy.Config)
	}
}

func TestBuildJobChecks(t *testing.T) {
	job := BuildJob(fullSpec(), 1)
	tests := []struct {
		task string
		want []*api.Service
	}{
		{"web", []*api.Service{{
			Name: "shop-web", PortLabel: "http", Provider: "nomad",
			Checks: []api.ServiceCheck{{Type: "http", Path: "/health", Interval: 10 * time.Second, Timeout: 2 * time.Second}},
		}}},
		{"proxy", []*api.Service{{
			Name: "shop-proxy", PortLabel: "admin", Provider: "nomad",
			Checks: []api.ServiceCheck{{Type: "tcp", Interval: 5 * time.Second, Timeout: time.Second}},
		}}},
		{"migrate", nil},
	}
	for _, tt := range tests {
		t.Run(tt.task, func(t *testing.T) {
			if got := findTask(t, job, tt.task).Services; !reflect.DeepEqual(got, tt.want) {
				t.Errorf("services = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestBuildJobUpdate(t *testing.T) {
	noChecks := minimalSpec()
	tests := []struct {
		name   string
		spec   Spec
		health string
	}{
		{"checks gate deployments", fullSpec(), "checks"},
		{"task states without checks", noChecks, "task_states"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			job := BuildJob(tt.spec, 1)
			if job.Update != nil {
				t.Errorf("job-level update set; Nomad would drop most of it")
			}
			u := job.TaskGroups[0].Update
			su := tt.spec.Update
			got := Update{MaxParallel: *u.MaxParallel, MinHealthyTime: *u.MinHealthyTime, HealthyDeadline: *u.HealthyDeadline,
				ProgressDeadline: *u.ProgressDeadline, AutoRevert: *u.AutoRevert, Canary: *u.Canary}
			if got != su {
				t.Errorf("update = %+v, want %+v", got, su)
			}
			if *u.HealthCheck != tt.health {
				t.Errorf("health_check = %q, want %q", *u.HealthCheck, tt.health)
			}
		})
	}
}

func TestIsBerthJob(t *testing.T) {
	tests := []struct {
		name string
		job  *api.Job
		want bool
	}{
		{"nil", nil, false},
		{"no meta", &api.Job{}, false},
		{"other kind", &api.Job{Meta: map[string]string{MetaKind: "volume"}}, false},
		{"instance", &api.Job{Meta: map[string]string{MetaKind: KindInstance}}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := IsBerthJob(tt.job); got != tt.want {
				t.Errorf("IsBerthJob = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestPinNodeRoundTrip(t *testing.T) {
	s := Spec{
		Name: "pinned", Running: true, Replicas: ptr(1), PinNode: "77e393ef-0000-4000-8000-000000000000",
		Services: map[string]Service{"app": {Driver: "raw_exec", Command: "/bin/sleep", CPU: 100, Memory: 64}},
		Update:   DefaultUpdate(),
	}
	job := BuildJob(s, 1)
	if len(job.Constraints) != 1 || job.Constraints[0].LTarget != PinTarget || job.Constraints[0].RTarget != s.PinNode {
		t.Fatalf("constraints = %+v", job.Constraints)
	}
	got, unsupported := SpecFromJob(job)
	if len(unsupported) > 0 {
		t.Fatalf("pin reported unsupported: %v", unsupported)
	}
	if got.PinNode != s.PinNode {
		t.Fatalf("PinNode read back as %q", got.PinNode)
	}
	other := s
	other.PinNode = "other"
	if d := Diff(s, other); len(d) != 1 {
		t.Fatalf("Diff = %v, want one line", d)
	}
}
