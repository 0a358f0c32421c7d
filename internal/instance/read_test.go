package instance

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"
)

func TestRoundTrip(t *testing.T) {
	unmanaged := fullSpec()
	unmanaged.Replicas = nil
	stopped := minimalSpec()
	stopped.Running = false
	emptyValues := minimalSpec()
	emptyValues.Namespace, emptyValues.NodePool, emptyValues.NetworkMode = "", "", ""
	emptyValues.Meta = map[string]string{}
	svc := emptyValues.Services["app"]
	svc.Role = ""
	svc.Args = []string{}
	svc.Env = map[string]string{}
	svc.Config = map[string]any{"nested": map[string]any{"n": 3, "l": []string{"a"}}}
	svc.Ports = map[string]Port{}
	svc.Mounts = []Mount{}
	emptyValues.Services["app"] = svc
	emptyValues.Volumes = map[string]VolumeClaim{}
	noDeploys := minimalSpec()
	noDeploys.Update = Update{HealthyDeadline: DefaultUpdate().HealthyDeadline}

	tests := []struct {
		name         string
		spec         Spec
		currentCount int
	}{
		{"full", fullSpec(), 1},
		{"minimal", minimalSpec(), 1},
		{"unmanaged count", unmanaged, 4},
		{"stopped", stopped, 1},
		{"empty values and Go-typed config", emptyValues, 1},
		{"deployments disabled", noDeploys, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if errs := Validate(tt.spec); len(errs) > 0 {
				t.Fatalf("test spec is invalid: %+v", errs)
			}
			got, unsupported := readBack(simulateNomad(t, BuildJob(tt.spec, tt.currentCount)), tt.spec)
			if len(unsupported) > 0 {
				t.Errorf("unsupported = %q", unsupported)
			}

			want := Normalize(tt.spec)
			if want.Replicas == nil {
				want.Replicas = ptr(tt.currentCount)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("round trip differs:\n%s\ngot  %#v\nwant %#v", strings.Join(Diff(want, got), "\n"), got, want)
			}
			if d := Diff(tt.spec, got); len(d) > 0 {
				t.Errorf("Diff(input, read back) = %q, want none", d)
			}
		})
	}
}

func TestSpecFromJobReadsOutOfBandChanges(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(job *api.Job)
		want   []string
	}{
		{"image", func(j *api.Job) { task(j, "web").Config["image"] = "nginx:1.28" },
			[]string{`services.web.image: "nginx:1.27" -> "nginx:1.28"`}},
		{"env", func(j *api.Job) { task(j, "web").Env["LOG_LEVEL"] = "debug" },
			[]string{`services.web.env.LOG_LEVEL: "info" -> "debug"`}},
		{"cpu", func(j *api.Job) { task(j, "web").Resources.CPU = ptr(300) },
			[]string{`services.web.cpu: 250 -> 300`}},
		{"args", func(j *api.Job) { task(j, "web").Config["args"] = []any{"--debug"} },
			[]string{`services.web.args: ["--port","8080"] -> ["--debug"]`}},
		{"config", func(j *api.Job) { task(j, "web").Config["shm_size"] = 128 },
			[]string{`services.web.config.shm_size: 64 -> 128`}},
		{"port to -1 means unset", func(j *api.Job) { j.TaskGroups[0].Networks[0].DynamicPorts[0].To = -1 }, nil},
		{"port removed", func(j *api.Job) {
			j.TaskGroups[0].Networks[0].DynamicPorts = j.TaskGroups[0].Networks[0].DynamicPorts[1:]
		},
			[]string{`services.proxy.ports.admin: removed`}},
		{"check path", func(j *api.Job) { task(j, "web").Services[0].Checks[0].Path = "/" },
			[]string{`services.web.check.path: "/health" -> "/"`}},
		{"check removed", func(j *api.Job) { task(j, "proxy").Services = nil },
			[]string{`services.proxy.check: removed`}},
		{"update", func(j *api.Job) { j.TaskGroups[0].Update.Canary = ptr(0) },
			[]string{`update.canary: 1 -> 0`}},
		{"user meta; berth keys hidden", func(j *api.Job) { j.Meta["owner"] = "ops"; j.Meta["berth.other"] = "x" },
			[]string{`meta.owner: "payments" -> "ops"`}},
		{"count", func(j *api.Job) { j.TaskGroups[0].Count = ptr(5) }, []string{`replicas: 3 -> 5`}},
		{"stop", func(j *api.Job) { j.Stop = ptr(true) }, []string{`running: true -> false`}},
		{"datacenters", func(j *api.Job) { j.Datacenters = []string{"dc1"} },
			[]string{`datacenters: ["dc1","dc2"] -> ["dc1"]`}},
		{"node pool", func(j *api.Job) { j.NodePool = ptr("default") }, []string{`node_pool: "edge" -> "default"`}},
		{"network mode", func(j *api.Job) { j.TaskGroups[0].Networks[0].Mode = "host" },
			[]string{`network_mode: "bridge" -> "host"`}},
		{"role", func(j *api.Job) { task(j, "migrate").Lifecycle = nil },
			[]string{`services.migrate.role: "init" -> "main"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			job := simulateNomad(t, BuildJob(fullSpec(), 1))
			tt.mutate(job)
			got, unsupported := readBack(job, fullSpec())
			if len(unsupported) > 0 {
				t.Errorf("unsupported = %q", unsupported)
			}
			if d := Diff(fullSpec(), got); !reflect.DeepEqual(d, tt.want) {
				t.Errorf("Diff = %q, want %q", d, tt.want)
			}
		})
	}
}

func TestSpecFromJobUnsupported(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(job *api.Job)
		want   string
	}{
		{"sysbatch job", func(j *api.Job) { j.Type = ptr("sysbatch") }, `job type is "sysbatch"`},
		{"periodic", func(j *api.Job) { j.Periodic = &api.PeriodicConfig{} }, "job sets periodic"},
		{"name differs from id", func(j *api.Job) { j.Name = ptr("other") }, `job name "other" differs from its ID`},
		{"group meta", func(j *api.Job) { j.TaskGroups[0].Meta = map[string]string{"a": "b"} }, `group "app" sets meta`},
		{"leader", func(j *api.Job) { task(j, "web").Leader = true }, `task "web" sets leader`},
		{"named identity", func(j *api.Job) {
			task(j, "web").Identities = []*api.WorkloadIdentity{{Name: "vault_default", Audience: []string{"vault.io"}}}
		}, `task "web" sets identity "vault_default"`},
		{"two groups", func(j *api.Job) {
			j.TaskGroups = append(j.TaskGroups, &api.TaskGroup{Name: ptr("other")})
		}, "job has 2 task groups (berth instances have exactly one)"},
		{"task constraint", func(j *api.Job) {
			task(j, "web").Constraints = []*api.Constraint{{LTarget: "${attr.kernel.name}", RTarget: "linux", Operand: "="}}
		}, `task "web" sets constraint`},
		{"task affinities", func(j *api.Job) { task(j, "web").Affinities = []*api.Affinity{{}, {}} }, `task "web" sets affinity`},
		{"template vault_grace", func(j *api.Job) {
			task(j, "web").Templates = []*api.Template{{EmbeddedTmpl: ptr("x"), DestPath: ptr("local/x"), VaultGrace: ptr(time.Second)}}
		}, `task "web" template 1 (local/x) sets vault_grace`},
		{"vault", func(j *api.Job) { task(j, "web").Vault = &api.Vault{} }, `task "web" sets vault`},
		{"poststop sidecar", func(j *api.Job) { task(j, "migrate").Lifecycle = &api.TaskLifecycle{Hook: "poststop", Sidecar: true} },
			`task "migrate" has lifecycle hook "poststop" with sidecar = true`},
		{"unknown hook", func(j *api.Job) { task(j, "migrate").Lifecycle.Hook = "prestop" },
			`task "migrate" has lifecycle hook "prestop" with sidecar = false`},
		{"own restart policy", func(j *api.Job) { task(j, "web").RestartPolicy.Attempts = ptr(9) },
			`task "web" has a restart policy of its own`},
		{"logs disabled", func(j *api.Job) { task(j, "web").LogConfig.Disabled = ptr(true) },
			`task "web" disables log collection`},
		{"group shutdown delay", func(j *api.Job) { j.TaskGroups[0].ShutdownDelay = ptr(time.Second) },
			`group sets a shutdown_delay`},
		{"connect service", func(j *api.Job) { task(j, "web").Services[0].Connect = &api.ConsulConnect{Native: true} },
			`task "web" service "shop-web" sets connect`},
		{"service of another task", func(j *api.Job) { task(j, "web").Services[0].TaskName = "db" },
			`task "web" service "shop-web" names task "db"`},
		{"task network", func(j *api.Job) {
			task(j, "web").Resources.Networks = []*api.NetworkResource{{}}
		}, `task "web" sets network`},
		{"two networks", func(j *api.Job) {
			j.TaskGroups[0].Networks = append(j.TaskGroups[0].Networks, &api.NetworkResource{})
		}, "group has 2 networks"},
		{"cni network mode", func(j *api.Job) { j.TaskGroups[0].Networks[0].Mode = "cni/mynet" },
			`group network mode is "cni/mynet"`},
		{"unowned port", func(j *api.Job) { task(j, "proxy").Meta = nil }, `port "admin" is not assigned to any service`},
		{"config image not a string", func(j *api.Job) { task(j, "web").Config["image"] = 1 },
			`task "web" config.image is not a string`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			job := simulateNomad(t, BuildJob(fullSpec(), 1))
			tt.mutate(job)
			_, unsupported := SpecFromJob(job)
			found := false
			for _, u := range unsupported {
				found = found || strings.Contains(u, tt.want)
			}
			if !found {
				t.Errorf("unsupported = %q, want an entry containing %q", unsupported, tt.want)
			}
		})
	}
}

func TestSpecFromJobSingleTaskOwnsPorts(t *testing.T) {
	// A hand-written job being imported has no berth.ports meta.
	job := simulateNomad(t, BuildJob(minimalSpec(), 1))
	job.TaskGroups[0].Networks[0].DynamicPorts = []api.Port{{Label: "http", To: 80}}
	got, unsupported := SpecFromJob(job)
	if len(unsupported) > 0 {
		t.Errorf("unsupported = %q", unsupported)
	}
	want := map[string]Port{"http": {To: 80}}
	if ports := got.Services["app"].Ports; !reflect.DeepEqual(ports, want) {
		t.Errorf("ports = %v, want %v", ports, want)
	}
}

func task(job *api.Job, name string) *api.Task {
	for _, t := range job.TaskGroups[0].Tasks {
		if t.Name == name {
			return t
		}
	}
	panic("no task " + name)
}
