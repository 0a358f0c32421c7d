package instance

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"
)

// fullSpec exercises every field BuildJob writes.
func fullSpec() Spec {
	return Spec{
		Name:        "shop",
		Namespace:   "team-a",
		Datacenters: []string{"dc1", "dc2"},
		NodePool:    "edge",
		Replicas:    ptr(3),
		Running:     true,
		NetworkMode: "bridge",
		Meta:        map[string]string{"owner": "payments"},
		Services: map[string]Service{
			"web": {
				Role:    RoleMain,
				Driver:  "docker",
				Image:   "nginx:1.27",
				Command: "/bin/server",
				Args:    []string{"--port", "8080"},
				Config: map[string]any{
					"ports":      []any{"http"},
					"ulimit":     map[string]any{"nofile": "1024"},
					"shm_size":   float64(64),
					"privileged": false,
				},
				Env:        map[string]string{"LOG_LEVEL": "info"},
				CPU:        250,
				Memory:     256,
				MemoryMax:  512,
				KillSignal: "SIGTERM",
				Ports: map[string]Port{
					"http":    {To: 8080},
					"metrics": {To: 9090, Static: 29090},
				},
				Mounts: []Mount{
					{Volume: "data", Destination: "/var/lib/shop"},
					{Volume: "assets", Destination: "/srv/assets", ReadOnly: true},
				},
				Check: &Check{Type: "http", Port: "http", Path: "/health", Interval: 10 * time.Second, Timeout: 2 * time.Second},
			},
			"migrate": {
				Role:   RoleInit,
				Driver: "docker",
				Image:  "shop-migrate:1",
				CPU:    100,
				Memory: 128,
			},
			"proxy": {
				Role:   RoleSidecar,
				Driver: "exec",
				Config: map[string]any{"pid_mode": "host"},
				CPU:    50,
				Memory: 64,
				Ports:  map[string]Port{"admin": {}},
				// Writable mount of a read-only claim: Nomad mounts it
				// read-only anyway, and it is valid.
				Mounts: []Mount{{Volume: "assets", Destination: "/assets"}},
				Check:  &Check{Type: "tcp", Port: "admin", Interval: 5 * time.Second, Timeout: time.Second},
			},
		},
		Volumes: map[string]VolumeClaim{
			"data":   {Source: "shop-data"},
			"assets": {Source: "shop-assets", ReadOnly: true, AccessMode: "single-node-reader-only", AttachmentMode: "file-system"},
		},
		Update: Update{
			MaxParallel:      2,
			MinHealthyTime:   15 * time.Second,
			HealthyDeadline:  3 * time.Minute,
			ProgressDeadline: 8 * time.Minute,
			AutoRevert:       true,
			Canary:           1,
		},
	}
}

// minimalSpec is the smallest valid instance, with the defaults the
// Terraform schema is expected to fill in.
func minimalSpec() Spec {
	return Spec{
		Name:        "tiny",
		Datacenters: []string{"*"},
		Replicas:    ptr(1),
		Running:     true,
		NetworkMode: "host",
		Services: map[string]Service{
			"app": {Role: RoleMain, Driver: "docker", Image: "busybox", CPU: 100, Memory: 64},
		},
		Update: DefaultUpdate(),
	}
}

// simulateNomad approximates what registering a job and reading it back does
// to it, without a Nomad server: the client-side api canonicalization, the
// JSON trip through the HTTP API, and the server-side canonicalization and
// admission hooks (nomad/structs Canonicalize, job_endpoint_hooks.go) that
// matter to berth.
func simulateNomad(t *testing.T, job *api.Job) *api.Job {
	t.Helper()
	job.Canonicalize()
	out := jsonTrip(t, job)

	if *out.NodePool == "" {
		out.NodePool = ptr("default")
	}
	if len(out.Datacenters) == 0 {
		out.Datacenters = []string{"*"}
	}
	// Only stagger and max_parallel survive at job level.
	if out.Update != nil {
		out.Update = &api.UpdateStrategy{Stagger: out.Update.Stagger, MaxParallel: out.Update.MaxParallel,
			HealthCheck: ptr(""), MinHealthyTime: ptr(time.Duration(0)), HealthyDeadline: ptr(time.Duration(0)),
			ProgressDeadline: ptr(time.Duration(0)), AutoRevert: ptr(false), AutoPromote: ptr(false), Canary: ptr(0)}
	}
	for _, tg := range out.TaskGroups {
		tg.Constraints = append(tg.Constraints,
			&api.Constraint{LTarget: "${attr.nomad.service_discovery}", RTarget: "true", Operand: "="},
			&api.Constraint{LTarget: "${attr.nomad.version}", RTarget: ">= 1.4.0", Operand: "semver"})
		for _, nw := range tg.Networks {
			if nw.Mode == "bridge" {
				tg.Constraints = append(tg.Constraints,
					&api.Constraint{LTarget: "${attr.plugins.cni.version.bridge}", RTarget: ">= 0.4.0", Operand: "semver"})
			}
			for i := range nw.DynamicPorts {
				nw.DynamicPorts[i].HostNetwork = "default"
			}
			for i := range nw.ReservedPorts {
				nw.ReservedPorts[i].HostNetwork = "default"
			}
		}
		for _, task := range tg.Tasks {
			if len(task.Env) == 0 {
				task.Env = nil
			}
			if len(task.Meta) == 0 {
				task.Meta = nil
			}
			if task.Resources.MemoryMaxMB == nil {
				task.Resources.MemoryMaxMB = ptr(0)
			}
			for _, s := range task.Services {
				s.TaskName = task.Name
				for i := range s.Checks {
					if s.Checks[i].Name == "" {
						s.Checks[i].Name = `service: "` + s.Name + `" check`
					}
					s.Checks[i].TaskName = task.Name
				}
			}
		}
	}
	return jsonTrip(t, out)
}

// readBack reads job the way berth_instance's refresh does: in full, then
// with the policies prior leaves unset absorbed when Nomad holds its
// defaults.
func readBack(job *api.Job, prior Spec) (Spec, []string) {
	got, unsupported := SpecFromJob(job)
	return AbsorbDefaults(got, prior), unsupported
}

func jsonTrip(t *testing.T, job *api.Job) *api.Job {
	t.Helper()
	raw, err := json.Marshal(job)
	if err != nil {
		t.Fatalf("encode job: %v", err)
	}
	var out api.Job
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("decode job: %v", err)
	}
	return &out
}

func findTask(t *testing.T, job *api.Job, name string) *api.Task {
	t.Helper()
	for _, task := range job.TaskGroups[0].Tasks {
		if task.Name == name {
			return task
		}
	}
	t.Fatalf("task %q not found", name)
	return nil
}
