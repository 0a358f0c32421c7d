package instance

import (
	"maps"
	"strings"

	"github.com/hashicorp/nomad/api"
)

const (
	lifecyclePrestart  = "prestart"
	lifecyclePoststart = "poststart"
	lifecyclePoststop  = "poststop"

	providerNomad = "nomad"
)

// PinTarget is the constraint attribute that pins a job to one node.
const PinTarget = "${node.unique.id}"

// BuildJob builds the job to register for s. It does not validate s; call
// Validate first.
//
// currentCount is used as the group count when s.Count is nil, so a count set
// by someone else (an autoscaler, `nomad job scale`) survives re-registration;
// pass 1 when creating.
func BuildJob(s Spec, currentCount int) *api.Job {
	count := currentCount
	if s.Replicas != nil {
		count = *s.Replicas
	}
	if s.JobType() == TypeSystem {
		count = systemCount
	}

	job := &api.Job{
		ID:          ptr(s.Name),
		Name:        ptr(s.Name),
		Type:        ptr(s.JobType()),
		Datacenters: cloneSlice(s.Datacenters),
		Stop:        ptr(!s.Running),
		Meta:        jobMeta(s.Meta),
		Update:      buildJobUpdate(s),
	}
	// Empty values are left unset so Nomad applies its own defaults
	// (namespace from the client, node pool from the namespace).
	if s.Namespace != "" {
		job.Namespace = ptr(s.Namespace)
	}
	if s.NodePool != "" {
		job.NodePool = ptr(s.NodePool)
	}
	if s.PinNode != "" {
		job.Constraints = []*api.Constraint{{LTarget: PinTarget, Operand: "=", RTarget: s.PinNode}}
	}

	group := &api.TaskGroup{
		Name:     ptr(s.TaskGroup()),
		Count:    ptr(count),
		Networks: []*api.NetworkResource{buildNetwork(s)},
		Update:   buildUpdate(s),
		Volumes:  buildVolumes(s.Volumes),
	}
	buildPlacement(s.Placement, group)
	for _, name := range sortedKeys(s.Services) {
		group.Tasks = append(group.Tasks, buildTask(s.Name, name, s.Services[name]))
	}
	buildSecretEnv(s, group)
	if s.JobType() == TypeBatch {
		group.Update = nil // Nomad refuses an update block on batch jobs
	}
	buildPolicies(s, job, group)
	job.TaskGroups = []*api.TaskGroup{group}
	return job
}

// IsBerthJob reports whether job was created by berth_instance.
func IsBerthJob(job *api.Job) bool {
	return job != nil && job.Meta[MetaKind] == KindInstance
}

// ServiceName is the name under which a service's check is registered in
// Nomad's service catalog. Validate checks it is a valid service name.
func ServiceName(instance, task string) string {
	return instance + "-" + task
}

func jobMeta(user map[string]string) map[string]string {
	meta := make(map[string]string, len(user)+1)
	maps.Copy(meta, user)
	meta[MetaKind] = KindInstance
	return meta
}

// buildNetwork declares every port of every service on the one group network,
// because Nomad ports are a group-level resource shared by all tasks.
func buildNetwork(s Spec) *api.NetworkResource {
	mode := s.NetworkMode
	if mode == "" {
		mode = DefaultNetworkMode
	}
	nw := &api.NetworkResource{Mode: mode}
	for _, svcName := range sortedKeys(s.Services) {
		ports := s.Services[svcName].Ports
		for _, label := range sortedKeys(ports) {
			p := ports[label]
			port := api.Port{Label: label, Value: p.Static, To: p.To}
			if p.Static > 0 {
				nw.ReservedPorts = append(nw.ReservedPorts, port)
			} else {
				nw.DynamicPorts = append(nw.DynamicPorts, port)
			}
		}
	}
	return nw
}

// buildUpdate sets the update block on the group rather than the job: Nomad
// only keeps stagger and max_parallel at job level and merges everything into
// the groups, so the group is where the values can be read back.
func buildUpdate(s Spec) *api.UpdateStrategy {
	u := s.Update
	return &api.UpdateStrategy{
		Stagger:          u.Stagger,
		MaxParallel:      ptr(u.MaxParallel),
		HealthCheck:      ptr(HealthCheckOf(s)),
		MinHealthyTime:   ptr(u.MinHealthyTime),
		HealthyDeadline:  ptr(u.HealthyDeadline),
		ProgressDeadline: ptr(u.ProgressDeadline),
		AutoRevert:       ptr(u.AutoRevert),
		// Unset, canaries are promoted without a human; with auto_promote
		// false an apply waits for them to be healthy, not promoted.
		AutoPromote: ptr(AutoPromoteOf(u)),
		Canary:      ptr(u.Canary),
	}
}

func buildTask(instance, name string, svc Service) *api.Task {
	task := &api.Task{
		Name:         name,
		Driver:       svc.Driver,
		Lifecycle:    lifecycleFor(svc.Role),
		Config:       driverConfig(svc),
		Env:          cloneMap(svc.Env),
		KillSignal:   svc.KillSignal,
		VolumeMounts: buildMounts(svc.Mounts),
		Resources: &api.Resources{
			CPU:      ptr(svc.CPU),
			MemoryMB: ptr(svc.Memory),
		},
	}
	if svc.MemoryMax > 0 {
		task.Resources.MemoryMaxMB = ptr(svc.MemoryMax)
	}
	if len(svc.Ports) > 0 {
		task.Meta = map[string]string{MetaPorts: strings.Join(sortedKeys(svc.Ports), ",")}
	}
	if svc.Check != nil {
		task.Services = []*api.Service{buildService(instance, name, svc.Check)}
	}
	task.Services = append(task.Services, buildRegistrations(svc.Registrations)...)
	buildTaskPolicies(svc, task)
	buildFiles(svc, task)
	return task
}

func lifecycleFor(role Role) *api.TaskLifecycle {
	switch role {
	case RoleInit:
		return &api.TaskLifecycle{Hook: lifecyclePrestart, Sidecar: false}
	case RoleSidecar:
		return &api.TaskLifecycle{Hook: lifecyclePoststart, Sidecar: true}
	case RolePrestartSidecar:
		return &api.TaskLifecycle{Hook: lifecyclePrestart, Sidecar: true}
	case RolePoststart:
		return &api.TaskLifecycle{Hook: lifecyclePoststart, Sidecar: false}
	case RolePoststop:
		return &api.TaskLifecycle{Hook: lifecyclePoststop, Sidecar: false}
	default:
		return nil
	}
}

// driverConfig merges the typed image/command/args fields over the free-form
// config; Validate rejects those keys in Config so nothing is overwritten.
func driverConfig(svc Service) map[string]any {
	cfg := make(map[string]any, len(svc.Config)+3)
	maps.Copy(cfg, svc.Config)
	if svc.Image != "" {
		cfg["image"] = svc.Image
	}
	if svc.Command != "" {
		cfg["command"] = svc.Command
	}
	if len(svc.Args) > 0 {
		cfg["args"] = cloneSlice(svc.Args)
	}
	if len(cfg) == 0 {
		return nil
	}
	return cfg
}

func buildService(instance, task string, c *Check) *api.Service {
	check := api.ServiceCheck{
		Type:     c.Type,
		Interval: c.Interval,
		Timeout:  c.Timeout,
	}
	if c.Type == "http" {
		check.Path = c.Path
	}
	return &api.Service{
		Name:      ServiceName(instance, task),
		PortLabel: c.Port,
		Provider:  providerNomad,
		Checks:    []api.ServiceCheck{check},
	}
}

func ptr[T any](v T) *T { return &v }
