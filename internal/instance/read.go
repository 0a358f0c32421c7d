package instance

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/nomad/api"

	"github.com/berthhq/terraform-provider-berth/internal/taskconfig"
)

// SpecFromJob reads back, field by field, exactly what berth manages from a
// job as Nomad returns it, so an out-of-band change to any managed field shows
// up as a difference against the spec berth last applied.
//
// The result is in Normalize's canonical form: the round trip
// SpecFromJob(<Nomad's copy of BuildJob(s, n)>) == Normalize(s) holds, with
// Replicas always set to the job's actual count. On top of Normalize it absorbs
// what Nomad fills in or rewrites on its own: a port "to" of -1 (Nomad's
// "same as the allocated port") reads as 0, a missing memory_max as 0, and
// berth's own meta keys (MetaPrefix) are stripped from job meta. Job- and
// group-level constraints, affinities and spreads are read into one list
// (see placement.go).
//
// The second result lists, in human-readable form, what berth cannot
// represent (extra groups, templates, sticky volumes, Consul services,
// task-level placement, …).
// Lifecycle policies (restart, reschedule, migrate, ephemeral disk, priority,
// kill timeouts, logs, …) are read in full, defaults included; pass the
// result through AbsorbDefaults to leave the ones the previous spec did not
// set unset when Nomad holds its default.
func SpecFromJob(job *api.Job) (Spec, []string) {
	r := &reader{}
	if job == nil {
		r.add("job is missing")
		return Normalize(Spec{Replicas: ptr(0)}), r.unsupported
	}

	s := Spec{
		Name:        deref(job.ID),
		Namespace:   deref(job.Namespace),
		Datacenters: cloneSlice(job.Datacenters),
		NodePool:    deref(job.NodePool),
		Running:     !deref(job.Stop),
		Meta:        userMeta(job.Meta),
		Replicas:    ptr(0),
	}
	// berth's own pin to a reservation's node sits on the job, and berth
	// puts nothing else there: in a job berth made, that constraint is the
	// pin. In a job written by hand it is the author's own constraint.
	var others []*api.Constraint
	for _, c := range job.Constraints {
		if IsBerthJob(job) && c != nil && c.LTarget == PinTarget && c.Operand == "=" && s.PinNode == "" {
			s.PinNode = c.RTarget
			continue
		}
		others = append(others, c)
	}
	readPlacement(&s.Placement, others, job.Affinities, job.Spreads)
	r.checkJob(job)
	r.unsupported = append(r.unsupported, refusedFields(job)...)
	s.Type = r.checkJobType(job)

	switch len(job.TaskGroups) {
	case 0:
		r.add("job has no task groups (berth instances have exactly one)")
	case 1:
	default:
		r.add("job has %d task groups (berth instances have exactly one)", len(job.TaskGroups))
	}
	if len(job.TaskGroups) > 0 && job.TaskGroups[0] != nil {
		// With several groups the first is still read, so the caller can show
		// something sensible next to the unsupported list.
		r.readGroup(&s, job.TaskGroups[0])
		r.readPolicies(&s, job, job.TaskGroups[0])
	}
	if s.Type == TypeSystem {
		s.Replicas = nil // one per node: Nomad's count is not the user's
	}
	return Normalize(s), r.unsupported
}

// reader accumulates unsupported findings while a job is read.
type reader struct {
	unsupported []string
}

func (r *reader) add(format string, args ...any) {
	r.unsupported = append(r.unsupported, fmt.Sprintf(format, args...))
}

func (r *reader) readGroup(s *Spec, g *api.TaskGroup) {
	s.Group = deref(g.Name)
	readPlacement(&s.Placement, g.Constraints, g.Affinities, g.Spreads)
	if g.Count != nil {
		s.Replicas = ptr(*g.Count)
	}

	ports := map[string]Port{}
	switch len(g.Networks) {
	case 0:
		s.NetworkMode = DefaultNetworkMode
	case 1:
		s.NetworkMode, ports = r.readNetwork(g.Networks[0])
	default:
		r.add("group has %d networks (berth instances have one)", len(g.Networks))
		s.NetworkMode, ports = r.readNetwork(g.Networks[0])
	}
	s.Update = r.readUpdate(g.Update)
	s.Volumes = r.readVolumes(g)

	owners := r.portOwners(g.Tasks, ports)
	s.Services = make(map[string]Service, len(g.Tasks))
	for _, t := range g.Tasks {
		if t == nil {
			continue
		}
		svc := r.readTask(s.Name, t)
		r.readTaskPolicies(&svc, t, g)
		r.readSecretEnv(s, t, &svc)
		for label, owner := range owners {
			if owner == t.Name {
				if svc.Ports == nil {
					svc.Ports = map[string]Port{}
				}
				svc.Ports[label] = ports[label]
			}
		}
		s.Services[t.Name] = svc
	}
}

func (r *reader) readNetwork(nw *api.NetworkResource) (string, map[string]Port) {
	if nw == nil {
		return DefaultNetworkMode, map[string]Port{}
	}
	mode := nw.Mode
	if mode == "" {
		mode = DefaultNetworkMode
	}
	if !slices.Contains(NetworkModes(), mode) {
		r.add("group network mode is %q (berth supports %s)", mode, strings.Join(NetworkModes(), ", "))
	}
	ports := map[string]Port{}
	for _, p := range append(append([]api.Port{}, nw.ReservedPorts...), nw.DynamicPorts...) {
		if p.HostNetwork != "" && p.HostNetwork != "default" {
			r.add("port %q uses host network %q", p.Label, p.HostNetwork)
		}
		if p.IgnoreCollision {
			r.add("port %q ignores collisions", p.Label)
		}
		to := p.To
		if to < 0 {
			// -1 means "same as the allocated port", which is what unset means.
			to = 0
		}
		ports[p.Label] = Port{To: to, Static: p.Value}
	}
	return mode, ports
}

// portOwners decides which task declared each group port, from the MetaPorts
// task meta BuildJob writes. A job with a single task (e.g. one being
// imported) owns all ports without the meta.
func (r *reader) portOwners(tasks []*api.Task, ports map[string]Port) map[string]string {
	owners := map[string]string{}
	var named []*api.Task
	for _, t := range tasks {
		if t != nil {
			named = append(named, t)
		}
	}
	// Sorted by name so a label claimed by two tasks goes to the same one
	// every time.
	sortTasks(named)
	for _, t := range named {
		for _, label := range strings.Split(t.Meta[MetaPorts], ",") {
			if _, declared := ports[label]; !declared {
				continue // the port was removed out of band; drop the claim
			}
			if _, taken := owners[label]; !taken {
				owners[label] = t.Name
			}
		}
	}
	for _, label := range sortedKeys(ports) {
		if _, ok := owners[label]; ok {
			continue
		}
		if len(named) == 1 {
			owners[label] = named[0].Name
			continue
		}
		r.add("port %q is not assigned to any service (task meta %q)", label, MetaPorts)
	}
	return owners
}

// readUpdate reads the group's update block. Nomad gives every service
// group one, but keeps none for a batch job or a system job registered
// without one. A system job's group block is inert in Nomad 1.10 (no
// deployments; its scheduler reads only the job-level stagger and
// max_parallel), so a missing one behaves as the defaults do and reads as
// them: such a job imports with update unset, not with zero deadlines that
// validation refuses.
func (r *reader) readUpdate(u *api.UpdateStrategy) Update {
	if u == nil {
		return DefaultUpdate()
	}
	out := Update{
		MaxParallel:      deref(u.MaxParallel),
		MinHealthyTime:   deref(u.MinHealthyTime),
		HealthyDeadline:  deref(u.HealthyDeadline),
		ProgressDeadline: deref(u.ProgressDeadline),
		AutoRevert:       deref(u.AutoRevert),
		Canary:           deref(u.Canary),
	}
	readUpdateExtras(u, &out)
	return out
}

func (r *reader) readTask(instance string, t *api.Task) Service {
	svc := Service{
		Role:       r.readRole(t),
		Driver:     t.Driver,
		Env:        cloneMap(t.Env),
		KillSignal: t.KillSignal,
		Mounts:     r.readMounts(t),
	}
	r.readConfig(t, &svc)
	if res := t.Resources; res != nil {
		svc.CPU = deref(res.CPU)
		svc.Memory = deref(res.MemoryMB)
		svc.MemoryMax = deref(res.MemoryMaxMB)
	}
	svc.Check, svc.Registrations = r.readServices(instance, t)
	r.readFiles(&svc, t)
	return svc
}

func (r *reader) readRole(t *api.Task) Role {
	lc := t.Lifecycle
	switch {
	case lc == nil || lc.Hook == "":
		return RoleMain
	case lc.Hook == lifecyclePrestart && !lc.Sidecar:
		return RoleInit
	case lc.Hook == lifecyclePoststart && lc.Sidecar:
		return RoleSidecar
	case lc.Hook == lifecyclePrestart && lc.Sidecar:
		return RolePrestartSidecar
	case lc.Hook == lifecyclePoststart && !lc.Sidecar:
		return RolePoststart
	case lc.Hook == lifecyclePoststop && !lc.Sidecar:
		return RolePoststop
	default:
		r.add("task %q has lifecycle hook %q with sidecar = %t", t.Name, lc.Hook, lc.Sidecar)
		return RoleMain
	}
}

// readConfig splits the driver config into the typed image/command/args
// fields and the rest, normalized as Nomad's JSON API returns it.
func (r *reader) readConfig(t *api.Task, svc *Service) {
	rest := NormalizeConfig(t.Config)
	if v, ok := rest["image"]; ok {
		if s, isStr := v.(string); isStr {
			svc.Image = s
		} else {
			r.add("task %q config.image is not a string", t.Name)
		}
		delete(rest, "image")
	}
	if v, ok := rest["command"]; ok {
		if s, isStr := v.(string); isStr {
			svc.Command = s
		} else {
			r.add("task %q config.command is not a string", t.Name)
		}
		delete(rest, "command")
	}
	if v, ok := rest["args"]; ok {
		if args, isList := taskconfig.StringList(v); isList {
			svc.Args = cloneSlice(args)
		} else {
			r.add("task %q config.args is not a list of strings", t.Name)
		}
		delete(rest, "args")
	}
	svc.Config = cloneMap(rest)
}

// userMeta drops berth's own keys, which are not part of the user's meta.
func userMeta(meta map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range meta {
		if !strings.HasPrefix(k, MetaPrefix) {
			out[k] = v
		}
	}
	return cloneMap(out)
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}
