package instance

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/hashicorp/nomad/api"
)

// Service registrations: a service's `registrations` are its task's Nomad
// `service` blocks, each with its checks, for Nomad's own service discovery
// (provider "nomad") or Consul's (provider "consul").
//
// `check` stays the shorthand for the common case, one Nomad-native
// registration named "<instance>-<service>" with one check; the two are
// mutually exclusive. A job read from Nomad takes one representation per
// task, deterministically: a task whose services are exactly what BuildJob
// makes of a `check` reads as `check`, anything else as `registrations`.
//
// What Nomad fills in on its own is read back as the attribute's default:
// the provider ("nomad" in berth, where Nomad's own default is "consul"),
// the address mode ("auto"), the service's on_update ("require_healthy"),
// a check's name (`service: "<name>" check`, read as unset), a check's
// on_update (the service's, read as unset) and check_restart's grace (1s).

// Service registration providers.
const (
	ProviderNomad  = providerNomad
	ProviderConsul = "consul"
)

// Defaults Nomad fills in for a service registration and its checks.
const (
	DefaultAddressMode       = "auto"
	DefaultOnUpdate          = "require_healthy"
	DefaultCheckRestartGrace = time.Second
	onUpdateIgnoreWarnings   = "ignore_warnings"
	onUpdateIgnore           = "ignore"
	addressModeDriver        = "driver"
	checkTypeHTTP            = "http"
	checkTypeScript          = "script"
	checkTypeGRPC            = "grpc"
	defaultNomadCluster      = "default"
)

// RegistrationProviders lists the service providers.
func RegistrationProviders() []string { return []string{ProviderNomad, ProviderConsul} }

// RegistrationCheckTypes lists every check type; Nomad's provider takes only
// CheckTypes().
func RegistrationCheckTypes() []string {
	return []string{"http", "tcp", checkTypeGRPC, checkTypeScript}
}

// RegistrationAddressModes lists the address modes of a task's service
// (alloc and alloc_ipv6 are for group services, which berth does not make).
func RegistrationAddressModes() []string {
	return []string{DefaultAddressMode, "host", addressModeDriver}
}

// CheckAddressModes lists the address modes of a task service's check.
func CheckAddressModes() []string { return []string{"host", addressModeDriver} }

// OnUpdateModes lists the on_update values of services and checks.
func OnUpdateModes() []string {
	return []string{DefaultOnUpdate, onUpdateIgnoreWarnings, onUpdateIgnore}
}

// Registration is one service registration of a task.
type Registration struct {
	Provider    string              `tf:"provider"` // "" = nomad
	Name        string              `tf:"name"`
	Port        string              `tf:"port"` // a port label; numeric with address_mode driver
	Tags        []string            `tf:"tags"`
	CanaryTags  []string            `tf:"canary_tags"`
	Meta        map[string]string   `tf:"meta"`
	CanaryMeta  map[string]string   `tf:"canary_meta"`
	AddressMode string              `tf:"address_mode"` // "" = auto
	Address     string              `tf:"address"`
	OnUpdate    string              `tf:"on_update"` // "" = require_healthy
	Checks      []RegistrationCheck `tf:"checks" diff:"elements"`
}

// RegistrationCheck is one check of a registration.
type RegistrationCheck struct {
	Name          string              `tf:"name"` // "" = Nomad's `service: "<name>" check`
	Type          string              `tf:"type"`
	Port          string              `tf:"port"` // "" = the registration's
	Path          string              `tf:"path"`
	Method        string              `tf:"method"`
	Protocol      string              `tf:"protocol"`
	Header        map[string][]string `tf:"header"`
	Body          string              `tf:"body"`
	Interval      time.Duration       `tf:"interval"`
	Timeout       time.Duration       `tf:"timeout"`
	AddressMode   string              `tf:"address_mode"`
	OnUpdate      string              `tf:"on_update"` // "" = the registration's
	TLSSkipVerify bool                `tf:"tls_skip_verify"`
	CheckRestart  *CheckRestart       `tf:"check_restart"`
}

// CheckRestart restarts the task when its check keeps failing.
type CheckRestart struct {
	Limit          int           `tf:"limit"`
	Grace          time.Duration `tf:"grace"`
	IgnoreWarnings bool          `tf:"ignore_warnings"`
}

// DefaultCheckName is the name Nomad gives a check that has none.
func DefaultCheckName(service string) string { return fmt.Sprintf("service: %q check", service) }

// provider is r's provider, "" meaning nomad.
func (r Registration) provider() string {
	if r.Provider == "" {
		return ProviderNomad
	}
	return r.Provider
}

func (r Registration) onUpdate() string {
	if r.OnUpdate == "" {
		return DefaultOnUpdate
	}
	return r.OnUpdate
}

// effectivePort is the port c checks: its own or its registration's.
func (c RegistrationCheck) effectivePort(r Registration) string {
	if c.Port != "" {
		return c.Port
	}
	return r.Port
}

func (c RegistrationCheck) effectiveName(r Registration) string {
	if c.Name != "" {
		return c.Name
	}
	return DefaultCheckName(r.Name)
}

func (c RegistrationCheck) onUpdate(r Registration) string {
	if c.OnUpdate != "" {
		return c.OnUpdate
	}
	return r.onUpdate()
}

// hasRegistrationChecks reports whether svc registers any check.
func hasRegistrationChecks(svc Service) bool {
	for _, r := range svc.Registrations {
		if len(r.Checks) > 0 {
			return true
		}
	}
	return false
}

// normalizeRegistrations returns regs in canonical form: Nomad's defaults
// spelled out where a field has one (provider, address mode, on_update),
// unset where it names the default (a check's name and on_update), empty
// collections nil.
func normalizeRegistrations(regs []Registration) []Registration {
	if len(regs) == 0 {
		return nil
	}
	out := make([]Registration, len(regs))
	for i, r := range regs {
		r.Provider = r.provider()
		if r.AddressMode == "" {
			r.AddressMode = DefaultAddressMode
		}
		r.OnUpdate = r.onUpdate()
		r.Tags = cloneSlice(r.Tags)
		r.CanaryTags = cloneSlice(r.CanaryTags)
		r.Meta = cloneMap(r.Meta)
		r.CanaryMeta = cloneMap(r.CanaryMeta)
		var checks []RegistrationCheck
		for _, c := range r.Checks {
			if c.Name == DefaultCheckName(r.Name) {
				c.Name = ""
			}
			if c.OnUpdate == r.OnUpdate {
				c.OnUpdate = ""
			}
			c.Header = normalizeHeader(c.Header)
			if c.CheckRestart != nil {
				cr := *c.CheckRestart
				c.CheckRestart = &cr
			}
			checks = append(checks, c)
		}
		r.Checks = checks
		out[i] = r
	}
	return out
}

func normalizeHeader(h map[string][]string) map[string][]string {
	if len(h) == 0 {
		return nil
	}
	out := make(map[string][]string, len(h))
	for k, v := range h {
		out[k] = cloneSlice(v)
	}
	return out
}

// buildRegistrations is the task's services for regs.
func buildRegistrations(regs []Registration) []*api.Service {
	if len(regs) == 0 {
		return nil
	}
	out := make([]*api.Service, 0, len(regs))
	for _, r := range regs {
		s := &api.Service{
			Provider:    r.provider(),
			Name:        r.Name,
			PortLabel:   r.Port,
			Tags:        cloneSlice(r.Tags),
			CanaryTags:  cloneSlice(r.CanaryTags),
			Meta:        cloneMap(r.Meta),
			CanaryMeta:  cloneMap(r.CanaryMeta),
			AddressMode: r.AddressMode,
			Address:     r.Address,
			OnUpdate:    r.OnUpdate,
		}
		for _, c := range r.Checks {
			s.Checks = append(s.Checks, buildRegistrationCheck(c))
		}
		out = append(out, s)
	}
	return out
}

func buildRegistrationCheck(c RegistrationCheck) api.ServiceCheck {
	sc := api.ServiceCheck{
		Name:          c.Name,
		Type:          c.Type,
		PortLabel:     c.Port,
		Path:          c.Path,
		Method:        c.Method,
		Protocol:      c.Protocol,
		Header:        normalizeHeader(c.Header),
		Body:          c.Body,
		Interval:      c.Interval,
		Timeout:       c.Timeout,
		AddressMode:   c.AddressMode,
		OnUpdate:      c.OnUpdate,
		TLSSkipVerify: c.TLSSkipVerify,
	}
	if cr := c.CheckRestart; cr != nil {
		sc.CheckRestart = &api.CheckRestart{Limit: cr.Limit, Grace: ptr(cr.Grace), IgnoreWarnings: cr.IgnoreWarnings}
	}
	return sc
}

// checkRegistration is the registration the `check` shorthand c of task
// stands for, as BuildJob sends it (buildService).
func checkRegistration(instance, task string, c Check) Registration {
	rc := RegistrationCheck{Type: c.Type, Interval: c.Interval, Timeout: c.Timeout}
	if c.Type == checkTypeHTTP {
		rc.Path = c.Path
	}
	return Registration{Provider: ProviderNomad, Name: ServiceName(instance, task), Port: c.Port, Checks: []RegistrationCheck{rc}}
}

// readServices reads a task's services: as the `check` shorthand when they
// are exactly what BuildJob makes of one, otherwise as registrations.
func (r *reader) readServices(instance string, t *api.Task) (*Check, []Registration) {
	var regs []Registration
	for _, s := range t.Services {
		if s != nil {
			regs = append(regs, r.readRegistration(t.Name, s))
		}
	}
	if len(regs) == 0 {
		return nil, nil
	}
	regs = normalizeRegistrations(regs)
	if len(regs) == 1 && len(regs[0].Checks) == 1 {
		rc := regs[0].Checks[0]
		c := Check{Type: rc.Type, Port: regs[0].Port, Path: rc.Path, Interval: rc.Interval, Timeout: rc.Timeout}
		if slices.Contains(CheckTypes(), c.Type) &&
			reflect.DeepEqual(regs[0], normalizeRegistrations([]Registration{checkRegistration(instance, t.Name, c)})[0]) {
			if c.Type != checkTypeHTTP {
				c.Path = ""
			}
			return &c, nil
		}
	}
	return nil, regs
}

func (r *reader) readRegistration(task string, s *api.Service) Registration {
	who := fmt.Sprintf("task %q service %q", task, s.Name)
	if s.Kind != "" {
		r.add("%s is of kind %q", who, s.Kind)
	}
	if s.Cluster != "" && s.Cluster != defaultNomadCluster {
		r.add("%s uses Consul cluster %q", who, s.Cluster)
	}
	if s.TaskName != "" && s.TaskName != task {
		r.add("%s names task %q", who, s.TaskName)
	}
	if len(s.TaggedAddresses) > 0 {
		r.add("%s sets tagged_addresses (berth does not manage them)", who)
	}
	if s.EnableTagOverride {
		r.add("%s sets enable_tag_override (berth does not manage it)", who)
	}
	if s.Identity != nil && s.Provider == ProviderNomad {
		r.add("%s has a workload identity", who)
	}
	provider := s.Provider
	if provider == "" {
		provider = ProviderConsul // what Nomad means by none
	}
	out := Registration{
		Provider:    provider,
		Name:        s.Name,
		Port:        s.PortLabel,
		Tags:        cloneSlice(s.Tags),
		CanaryTags:  cloneSlice(s.CanaryTags),
		Meta:        cloneMap(s.Meta),
		CanaryMeta:  cloneMap(s.CanaryMeta),
		AddressMode: s.AddressMode,
		Address:     s.Address,
		OnUpdate:    s.OnUpdate,
	}
	for _, c := range s.Checks {
		if unmanaged := unmanagedCheckSettings(c); len(unmanaged) > 0 {
			r.add("%s check %q sets %s (berth does not manage them)", who, c.Name, strings.Join(unmanaged, ", "))
		}
		if c.Expose {
			r.add("%s check %q exposes its path through Consul Connect", who, c.Name)
		}
		if c.TaskName != "" && c.TaskName != task {
			r.add("%s check %q runs in task %q", who, c.Name, c.TaskName)
		}
		rc := RegistrationCheck{
			Name:          c.Name,
			Type:          c.Type,
			Port:          c.PortLabel,
			Path:          c.Path,
			Method:        c.Method,
			Protocol:      c.Protocol,
			Header:        normalizeHeader(c.Header),
			Body:          c.Body,
			Interval:      c.Interval,
			Timeout:       c.Timeout,
			AddressMode:   c.AddressMode,
			OnUpdate:      c.OnUpdate,
			TLSSkipVerify: c.TLSSkipVerify,
		}
		if cr := c.CheckRestart; cr != nil {
			grace := DefaultCheckRestartGrace
			if cr.Grace != nil {
				grace = *cr.Grace
			}
			rc.CheckRestart = &CheckRestart{Limit: cr.Limit, Grace: grace, IgnoreWarnings: cr.IgnoreWarnings}
		}
		out.Checks = append(out.Checks, rc)
	}
	return out
}

// unmanagedCheckSettings lists the Consul check settings of c berth does
// not manage (script checks, gRPC and TLS details, thresholds, notes,
// initial status); a job using them is refused rather than read without
// them.
func unmanagedCheckSettings(c api.ServiceCheck) []string {
	var out []string
	for _, f := range []struct {
		name string
		set  bool
	}{
		{"type \"script\"", c.Type == checkTypeScript},
		{"command", c.Command != ""},
		{"args", len(c.Args) > 0},
		{"grpc_service", c.GRPCService != ""},
		{"grpc_use_tls", c.GRPCUseTLS},
		{"tls_server_name", c.TLSServerName != ""},
		{"success_before_passing", c.SuccessBeforePassing > 0},
		{"failures_before_critical", c.FailuresBeforeCritical > 0},
		{"failures_before_warning", c.FailuresBeforeWarning > 0},
		{"notes", c.Notes != ""},
		{"initial_status", c.InitialStatus != ""},
	} {
		if f.set {
			out = append(out, f.name)
		}
	}
	return out
}

// registrationNameVars are the variables Nomad replaces in a service name
// when the job is registered, so the name read back would differ from the
// configured one.
var registrationNameVars = []string{"${JOB}", "${TASKGROUP}", "${TASK}", "${BASE}"}

// placeholderName is name with every ${...} replaced as Nomad does before
// applying its name rule (runtime variables are interpolated on the client).
func placeholderName(name string) string {
	var b strings.Builder
	for {
		i := strings.Index(name, "${")
		if i < 0 {
			break
		}
		j := strings.Index(name[i:], "}")
		if j < 0 {
			break
		}
		b.WriteString(name[:i])
		b.WriteString("ENV-VAR")
		name = name[i+j+1:]
	}
	b.WriteString(name)
	return b.String()
}
