// Package instance maps a berth "instance" (one application) onto exactly one
// Nomad service job with one task group, and back.
//
// The package is plain Go on purpose: the Terraform layer converts its models
// to and from Spec, and everything that decides what the Nomad job looks like,
// how a job read back from Nomad is interpreted, and what counts as a
// difference lives here, where it can be tested without Terraform or Nomad.
package instance

import (
	"encoding/json"
	"maps"
	"slices"
	"time"
)

// Role says how a service's task is started relative to the others in the
// group. It is mapped onto the Nomad task lifecycle block.
type Role string

const (
	// RoleMain tasks have no lifecycle block: they are the application.
	RoleMain Role = "main"
	// RoleInit tasks run to completion before the main tasks start
	// (lifecycle hook "prestart", sidecar false).
	RoleInit Role = "init"
	// RoleSidecar tasks start after the main tasks and run alongside them
	// (lifecycle hook "poststart", sidecar true).
	RoleSidecar Role = "sidecar"
	// RolePrestartSidecar tasks start before the main tasks and run
	// alongside them (lifecycle hook "prestart", sidecar true).
	RolePrestartSidecar Role = "prestart_sidecar"
	// RolePoststart tasks run to completion once the main tasks have
	// started (lifecycle hook "poststart", sidecar false).
	RolePoststart Role = "poststart"
	// RolePoststop tasks run to completion after the main tasks have
	// stopped (lifecycle hook "poststop").
	RolePoststop Role = "poststop"
)

// Roles lists every valid role; schema docs and validators use it so the list
// exists in one place.
func Roles() []Role {
	return []Role{RoleMain, RoleInit, RolePrestartSidecar, RoleSidecar, RolePoststart, RolePoststop}
}

// OneShot reports whether tasks of role r run to completion rather than for
// the allocation's lifetime.
func (r Role) OneShot() bool { return r == RoleInit || r == RolePoststart || r == RolePoststop }

// NetworkModes lists the group network modes berth supports.
func NetworkModes() []string { return []string{"host", "bridge"} }

// CheckTypes lists the check types of Nomad-native services.
func CheckTypes() []string { return []string{"http", "tcp"} }

// KillSignals returns the signal names a task's kill_signal may use: the
// POSIX signals Nomad's clients know by name (Nomad looks the name up when it
// stops the task, so an unknown one would only fail then).
func KillSignals() []string {
	return []string{
		"SIGABRT", "SIGALRM", "SIGBUS", "SIGCHLD", "SIGCONT", "SIGFPE", "SIGHUP", "SIGILL", "SIGINT", "SIGIO",
		"SIGKILL", "SIGPIPE", "SIGPROF", "SIGQUIT", "SIGSEGV", "SIGSTOP", "SIGSYS", "SIGTERM", "SIGTRAP", "SIGTSTP",
		"SIGTTIN", "SIGTTOU", "SIGURG", "SIGUSR1", "SIGUSR2", "SIGWINCH", "SIGXCPU", "SIGXFSZ",
	}
}

const (
	// GroupName is the name of the single task group of every instance job.
	// It is fixed so that renaming nothing ever makes Nomad replace the group.
	GroupName = "app"

	// MetaPrefix marks the meta keys berth owns; users may not set them.
	MetaPrefix = "berth."
	// MetaKind is the job meta key that marks jobs managed by berth.
	MetaKind = "berth.kind"
	// KindInstance is the MetaKind value of berth_instance jobs.
	KindInstance = "instance"
	// MetaPorts is the task meta key recording which port labels the task's
	// service declared, because Nomad only knows group-level ports.
	MetaPorts = "berth.ports"

	// DefaultNamespace, DefaultNodePool, DefaultDatacenter and
	// DefaultNetworkMode are what Nomad fills in when the value is empty;
	// Normalize and SpecFromJob use them so "" and the default compare equal.
	DefaultNamespace   = "default"
	DefaultNodePool    = "default"
	DefaultDatacenter  = "*"
	DefaultNetworkMode = "host"
)

// Spec is everything berth manages about an instance.
type Spec struct {
	Name      string `tf:"name"`
	Namespace string `tf:"namespace"`
	// Type is the Nomad job type; "" means "service".
	Type        string   `tf:"type"`
	Datacenters []string `tf:"datacenters"`
	NodePool    string   `tf:"node_pool"` // "" = Nomad default ("default")
	// PinNode, when set, is the only node the job may run on (the node of
	// the reservation it is charged to).
	PinNode string `tf:"node_reservation node"`
	// Group is the task group's name; "" means GroupName.
	Group string `tf:"group"`
	// Replicas is nil when berth does not manage the count (e.g. an autoscaler
	// does); BuildJob then keeps the count currently in Nomad. Diff compares
	// a pointer to a plain value only when both sides set it.
	Replicas    *int               `tf:"replicas"`
	Running     bool               `tf:"running"` // false => job is registered stopped
	NetworkMode string             `tf:"network_mode"`
	Meta        map[string]string  `tf:"meta"` // user meta; keys starting with MetaPrefix are reserved
	Services    map[string]Service `tf:"services"`
	// Volumes are the group-level host and CSI volume requests, keyed by the request
	// name that mounts refer to (see volumes.go).
	Volumes map[string]VolumeClaim `tf:"volumes"`
	Update  Update                 `tf:"update"`
	// Placement holds constraints, affinities and spreads (placement.go).
	Placement Placement `tf:"placement"`

	// Policies are the job's and group's lifecycle policies (policies.go);
	// nil, like each policy inside, means Nomad's defaults for the job type.
	Policies *Policies `tf:"policies"`
}

// Service is one task of the instance's group; the map key in Spec.Services is
// the task name.
//
// The `tf` tags name the Terraform attributes: the provider converts models
// to and from these structs by them, and Diff names differences by them, so
// a new field needs only its tag here, the schema, BuildJob and SpecFromJob.
type Service struct {
	Role       Role              `tf:"role"`
	Driver     string            `tf:"driver"`
	Image      string            `tf:"image"`   // config.image when non-empty
	Command    string            `tf:"command"` // config.command when non-empty
	Args       []string          `tf:"args"`    // config.args when non-empty
	Config     map[string]any    `tf:"config"`  // extra driver config; must not hold image/command/args
	Env        map[string]string `tf:"env"`
	CPU        int               `tf:"cpu"`         // MHz
	Memory     int               `tf:"memory"`      // MiB
	MemoryMax  int               `tf:"memory_max"`  // MiB, 0 = unset
	KillSignal string            `tf:"kill_signal"` // "" = Nomad's default (SIGINT)
	Ports      map[string]Port   `tf:"ports"`
	// Mounts are kept in the order given: Nomad keeps the task's volume_mount
	// list in order, and reordering it would show up as a difference.
	Mounts []Mount `tf:"mounts"`
	Check  *Check  `tf:"check"`
	// Registrations are the task's service registrations (registrations.go);
	// Check is their shorthand, and the two are never both set.
	Registrations []Registration `tf:"registrations" diff:"elements"`

	// Policies are the task's lifecycle settings (policies.go); nil, like
	// each setting inside, means Nomad's defaults.
	Policies *TaskPolicies `tf:"policies"`

	// Templates and Artifacts are the task's files, in order (templates.go).
	Templates []Template `tf:"templates"`
	Artifacts []Artifact `tf:"artifacts"`

	// SecretEnvVersion and SecretEnv are the task's secrets (secrets.go).
	// SecretEnv holds the write-only values: only a spec converted from
	// the configuration has them (never plan, state or Nomad), and Diff
	// skips them so no message can show them.
	SecretEnvVersion *int              `tf:"secret_env_wo_version" diff:"presence"`
	SecretEnv        map[string]string `tf:"secret_env_wo" diff:"-"`
}

// Port is one group port owned by a service. 0 means unset for both fields.
type Port struct {
	To     int `tf:"to"`     // port inside the task's network namespace
	Static int `tf:"static"` // reserved host port; 0 = dynamic
}

// Check is the single health check of a service's Nomad-native service
// registration.
type Check struct {
	Type     string        `tf:"type"` // one of CheckTypes()
	Port     string        `tf:"port"` // a port label declared by some service of the instance
	Path     string        `tf:"path"` // http only; required for http
	Interval time.Duration `tf:"interval"`
	Timeout  time.Duration `tf:"timeout"`
}

// Update is the group's update (deployment) strategy.
type Update struct {
	MaxParallel      int           `tf:"max_parallel"`
	MinHealthyTime   time.Duration `tf:"min_healthy_time"`
	HealthyDeadline  time.Duration `tf:"healthy_deadline"`
	ProgressDeadline time.Duration `tf:"progress_deadline"`
	AutoRevert       bool          `tf:"auto_revert"`
	Canary           int           `tf:"canary"`
	// HealthCheck, Stagger and AutoPromote are nil when unset: the health
	// check is then derived (DerivedHealthCheck), the stagger Nomad's
	// (DefaultStagger), and canaries are promoted automatically. Normalize
	// fills those values in (see update.go).
	HealthCheck *string        `tf:"health_check"`
	Stagger     *time.Duration `tf:"stagger"`
	AutoPromote *bool          `tf:"auto_promote"`
}

// DefaultUpdate returns Nomad's own defaults for the update block. The
// Terraform schema should use these as attribute defaults: BuildJob sends
// Spec.Update verbatim, so a zero Update would disable deployments
// (max_parallel 0) and fail Nomad's validation (healthy_deadline 0).
func DefaultUpdate() Update {
	return Update{
		MaxParallel:      1,
		MinHealthyTime:   10 * time.Second,
		HealthyDeadline:  5 * time.Minute,
		ProgressDeadline: 10 * time.Minute,
	}
}

// Normalize returns a copy of s in the canonical form SpecFromJob produces, so
// that two specs describing the same job compare equal with reflect.DeepEqual:
//   - empty maps and slices become nil;
//   - "" namespace / node pool / network mode / role become Nomad's defaults,
//     empty datacenters become ["*"];
//   - Config goes through a JSON round trip (numbers become float64, lists
//     []any), which is what happens to it inside Nomad;
//   - a tcp check's Path is dropped, since BuildJob never sends it;
//   - a volume's empty access and attachment modes become the defaults
//     (DefaultVolumeAccessModeFor, DefaultVolumeAttachmentMode), which
//     BuildJob always sends;
//   - an empty group name becomes GroupName, and placement takes
//     normalizePlacement's form (sorted, defaults filled in, Nomad's
//     implicit constraints dropped).
//
// Replicas is left alone: nil means "unmanaged" and must stay distinguishable
// (except for system jobs, which have none). An empty Type becomes
// "service"; a batch job's Update is dropped (see normalizeJobType).
func Normalize(s Spec) Spec {
	out := s
	if out.Namespace == "" {
		out.Namespace = DefaultNamespace
	}
	if out.NodePool == "" {
		out.NodePool = DefaultNodePool
	}
	if len(out.Datacenters) == 0 {
		out.Datacenters = []string{DefaultDatacenter}
	} else {
		out.Datacenters = slices.Clone(out.Datacenters)
	}
	if out.NetworkMode == "" {
		out.NetworkMode = DefaultNetworkMode
	}
	out.Group = s.TaskGroup()
	out.Placement = normalizePlacement(s.Placement)
	if out.Replicas != nil {
		c := *out.Replicas
		out.Replicas = &c
	}
	out.Meta = cloneMap(out.Meta)
	out.Services = nil
	if len(s.Services) > 0 {
		out.Services = make(map[string]Service, len(s.Services))
		for name, svc := range s.Services {
			out.Services[name] = normalizeService(svc)
		}
	}
	out.Volumes = normalizeVolumes(s.Volumes)
	if s.Policies != nil {
		p := *s.Policies
		out.Policies = &p
	}
	out.Update = normalizeUpdate(s)
	normalizeJobType(&out)
	return out
}

func normalizeService(svc Service) Service {
	if svc.Role == "" {
		svc.Role = RoleMain
	}
	svc.Args = cloneSlice(svc.Args)
	svc.Config = NormalizeConfig(svc.Config)
	svc.Env = cloneMap(svc.Env)
	svc.Ports = cloneMap(svc.Ports)
	svc.Mounts = cloneSlice(svc.Mounts)
	svc.Registrations = normalizeRegistrations(svc.Registrations)
	svc.Templates, svc.Artifacts = normalizeTemplates(svc.Templates), normalizeArtifacts(svc.Artifacts)
	if svc.Policies != nil {
		tp := *svc.Policies
		tp.Meta = cloneMap(tp.Meta)
		svc.Policies = &tp
	}
	if svc.Check != nil {
		c := *svc.Check
		if c.Type != "http" {
			c.Path = ""
		}
		svc.Check = &c
	}
	return svc
}

// NormalizeConfig returns driver config the way it comes back from Nomad's
// JSON API: numbers as float64, lists as []any, nested objects as
// map[string]any; empty becomes nil. Values that cannot be encoded as JSON are
// returned unchanged (Nomad would reject them anyway).
func NormalizeConfig(cfg map[string]any) map[string]any {
	if len(cfg) == 0 {
		return nil
	}
	raw, err := json.Marshal(cfg)
	if err != nil {
		return maps.Clone(cfg)
	}
	var out map[string]any
	if err := json.Unmarshal(raw, &out); err != nil {
		return maps.Clone(cfg)
	}
	return out
}

// cloneMap copies m, returning nil for an empty map so nil and empty compare
// equal after normalization.
func cloneMap[K comparable, V any](m map[K]V) map[K]V {
	if len(m) == 0 {
		return nil
	}
	return maps.Clone(m)
}

// cloneSlice copies s, returning nil for an empty slice.
func cloneSlice[T any](s []T) []T {
	if len(s) == 0 {
		return nil
	}
	return slices.Clone(s)
}

// sortedKeys returns the keys of m in order, for deterministic output.
func sortedKeys[V any](m map[string]V) []string {
	return slices.Sorted(maps.Keys(m))
}

// SecretEnvDestination is where berth renders a service's write-only
// secrets (an env = true template reading the service's Nomad Variable).
// The template is berth's own: the reader keeps it out of the user's
// templates, as it keeps node reservation pins out of the user's constraints.
const SecretEnvDestination = "secrets/berth-secret.env"
