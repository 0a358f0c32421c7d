package instance

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"
)

// FieldError is a plan-time problem with one attribute. Path uses the
// Terraform attribute names, with map keys as strings, e.g.
// []any{"services", "web", "memory_max"}.
type FieldError struct {
	Path    []any
	Summary string
	Detail  string
}

// Nomad's own limits (nomad/structs/services.go and structs.go), checked at
// plan time so the user hears about them before anything is registered.
const (
	minCheckInterval = time.Second
	minCheckTimeout  = time.Second
)

var (
	// portLabelRE keeps labels usable in NOMAD_PORT_<label> variables and
	// free of the comma MetaPorts uses as separator.
	portLabelRE = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)
	// serviceNameRE is Nomad's RFC 1123 rule for service names.
	serviceNameRE = regexp.MustCompile(`^(?i:[a-z0-9]|[a-z0-9][a-z0-9\-]{0,61}[a-z0-9])$`)
	// reservedConfigKeys have their own typed attributes.
	reservedConfigKeys = []string{"image", "command", "args"}
)

// Validate returns the problems with s that can be found without Nomad and
// that no single attribute's schema validator reports, in a deterministic
// order: rules spanning attributes (ports shared across services, mounts of
// declared volumes, deadlines ordered), rules about map keys, and Nomad's
// rules the schema cannot express. Ranges and enumerations of one attribute
// (count >= 0, cpu >= 1, ports in 1..65535, roles, modes, check types) are
// the schema's (internal/provider/instance_schema.go), which reports them at
// validate time even while other values are still unknown; checking them
// here as well would report each mistake twice.
//
// Decisions worth knowing:
//   - an http check must set a path (Nomad requires one; there is no silent
//     "/" default) and a tcp check must not (it would be dropped and show as a
//     perpetual diff);
//   - max_parallel 0 is allowed: it is Nomad's way to turn deployments off;
//   - progress_deadline 0 is allowed: it means "no deadline" in Nomad;
//   - an empty role is treated as "main";
//   - init, poststart and poststop services may not have a check (it could
//     never keep passing: they run to completion);
//   - lifecycle policies follow policies_validate.go;
//   - mounts and volumes follow volumes_validate.go: a declared volume that
//     no service mounts is allowed.
func Validate(s Spec) []FieldError {
	v := &validator{}
	for _, k := range sortedKeys(s.Meta) {
		if strings.HasPrefix(k, MetaPrefix) {
			v.add(path("meta", k), "Reserved meta key",
				fmt.Sprintf("meta keys starting with %q are reserved for berth's own bookkeeping; rename %q.", MetaPrefix, k))
		}
	}
	v.services(s)
	v.secretEnv(s)
	v.volumes(s)
	v.update(s.Update)
	v.policies(s)
	v.validateUpdateExtras(s.Update)
	v.jobType(s)
	v.placement(s)
	return v.errs
}

type validator struct {
	errs []FieldError
}

func (v *validator) add(p []any, summary, detail string) {
	v.errs = append(v.errs, FieldError{Path: p, Summary: summary, Detail: detail})
}

func path(elems ...any) []any { return elems }

func (v *validator) services(s Spec) {
	// An unknown role is reported on the service itself (by the schema);
	// "no main service" on top of it would only repeat the same mistake, and
	// so would it on top of the schema's "at least 1 service".
	hasMain, hasUnknown := false, len(s.Services) == 0
	for _, svc := range s.Services {
		switch {
		case svc.Role == "" || svc.Role == RoleMain:
			hasMain = true
		case !slices.Contains(Roles(), svc.Role):
			hasUnknown = true
		}
	}
	if !hasMain && !hasUnknown {
		v.add(path("services"), "No main service",
			`An instance needs at least one service with role "main"; the other roles only run around a main one.`)
	}

	portOwner := map[string]string{}
	staticOwner := map[int]string{}
	for _, name := range sortedKeys(s.Services) {
		svc := s.Services[name]
		v.service(s.Name, name, svc)
		v.mounts(s.Volumes, name, svc)
		v.files(name, svc)
		for _, label := range sortedKeys(svc.Ports) {
			p := path("services", name, "ports", label)
			if owner, dup := portOwner[label]; dup {
				v.add(p, "Duplicate port label",
					fmt.Sprintf("Port %q is already declared by service %q; port labels are shared by all services of an instance, so use a different label.", label, owner))
				continue
			}
			portOwner[label] = name
			if static := svc.Ports[label].Static; static > 0 {
				if owner, dup := staticOwner[static]; dup {
					v.add(append(p, "static"), "Duplicate static port",
						fmt.Sprintf("Static port %d is already reserved by port %q; each static port can be reserved once.", static, owner))
				} else {
					staticOwner[static] = label
				}
			}
		}
	}

	v.registrations(s, portOwner)
	for _, name := range sortedKeys(s.Services) {
		c := s.Services[name].Check
		if c == nil {
			continue
		}
		if _, ok := portOwner[c.Port]; !ok {
			v.add(path("services", name, "check", "port"), "Unknown check port",
				fmt.Sprintf("The check uses port %q, which no service of this instance declares; add it to some service's ports or use a declared label.", c.Port))
		}
	}
}

func (v *validator) service(instance, name string, svc Service) {
	at := func(elems ...any) []any { return append(path("services", name), elems...) }
	if err := checkTaskName(name); err != nil {
		v.add(path("services", name), "Invalid service name", err.Error())
		// The check's service name derives from it: saying that one is
		// invalid too would repeat the same mistake.
		instance = ""
	}
	if svc.Driver == "" {
		v.add(at("driver"), "Missing driver", `Set the Nomad task driver, for example "docker".`)
	}
	for _, k := range reservedConfigKeys {
		if _, ok := svc.Config[k]; ok {
			v.add(at("config"), "Reserved config key",
				fmt.Sprintf("config must not contain %q; set the %s attribute instead.", k, k))
		}
	}
	if svc.MemoryMax > 0 && svc.MemoryMax < svc.Memory {
		v.add(at("memory_max"), "Invalid memory_max",
			fmt.Sprintf("memory_max (%d MiB) must be at least memory (%d MiB), or unset to disable memory oversubscription.", svc.MemoryMax, svc.Memory))
	}
	for _, label := range sortedKeys(svc.Ports) {
		if !portLabelRE.MatchString(label) {
			v.add(at("ports", label), "Invalid port label",
				fmt.Sprintf("Port label %q may only contain letters, digits, '_' and '-'.", label))
		}
	}
	if svc.Check != nil {
		if svc.Role.OneShot() {
			// With health_check = "checks" a deployment would wait for a
			// check of a task that has exited or not started yet.
			v.add(at("check"), "Check on "+string(svc.Role)+" service",
				string(svc.Role)+" services run to completion outside the main services' lifetime, so their check could never keep passing; "+
					"move the check to a main, sidecar or prestart_sidecar service.")
		}
		v.check(at("check"), instance, name, svc.Check)
	}
}

func (v *validator) check(at []any, instance, task string, c *Check) {
	sub := func(elem string) []any { return append(slices.Clone(at), elem) }
	if sn := ServiceName(instance, task); instance != "" && !serviceNameRE.MatchString(sn) {
		v.add(at, "Invalid service name",
			fmt.Sprintf("The check registers service %q, which is not a valid service name (letters, digits and '-', at most 63 characters); shorten or rename the instance or the service.", sn))
	}
	switch c.Type {
	case "http":
		if c.Path == "" {
			v.add(sub("path"), "Missing check path", `http checks need a path, for example "/" or "/health".`)
		} else if !strings.HasPrefix(c.Path, "/") {
			v.add(sub("path"), "Invalid check path",
				fmt.Sprintf("path %q must start with \"/\"; it is requested on the check's port.", c.Path))
		}
	case "tcp":
		if c.Path != "" {
			v.add(sub("path"), "Path on tcp check", "tcp checks only open a connection; remove path or use type \"http\".")
		}
	}
	if c.Interval < minCheckInterval {
		v.add(sub("interval"), "Invalid check interval",
			fmt.Sprintf("interval is %s; Nomad requires at least %s.", c.Interval, minCheckInterval))
	}
	if c.Timeout < minCheckTimeout {
		v.add(sub("timeout"), "Invalid check timeout",
			fmt.Sprintf("timeout is %s; Nomad requires at least %s.", c.Timeout, minCheckTimeout))
	}
}

// update mirrors Nomad's UpdateStrategy.Validate.
func (v *validator) update(u Update) {
	at := func(elem string) []any { return path("update", elem) }
	if u.MinHealthyTime < 0 {
		v.add(at("min_healthy_time"), "Invalid min_healthy_time",
			fmt.Sprintf("min_healthy_time is %s; it must be 0 or more.", u.MinHealthyTime))
	}
	if u.HealthyDeadline <= 0 {
		v.add(at("healthy_deadline"), "Invalid healthy_deadline",
			fmt.Sprintf("healthy_deadline is %s; it must be greater than 0.", u.HealthyDeadline))
	} else if u.MinHealthyTime >= u.HealthyDeadline {
		v.add(at("min_healthy_time"), "Invalid min_healthy_time",
			fmt.Sprintf("min_healthy_time (%s) must be less than healthy_deadline (%s).", u.MinHealthyTime, u.HealthyDeadline))
	}
	if u.ProgressDeadline < 0 {
		v.add(at("progress_deadline"), "Invalid progress_deadline",
			fmt.Sprintf("progress_deadline is %s; use 0 for no deadline or a positive duration.", u.ProgressDeadline))
	} else if u.ProgressDeadline > 0 && u.HealthyDeadline >= u.ProgressDeadline {
		v.add(at("progress_deadline"), "Invalid progress_deadline",
			fmt.Sprintf("progress_deadline (%s) must be greater than healthy_deadline (%s), or 0 for no deadline.", u.ProgressDeadline, u.HealthyDeadline))
	}
}

// checkTaskName applies Nomad's task name rule (nomad/structs Task.Validate:
// not empty, no slashes, no NUL) plus no other control characters, which
// would be unreadable in every message and in the Nomad UI.
func checkTaskName(name string) error {
	if name == "" {
		return fmt.Errorf("service names are Nomad task names and must not be empty")
	}
	for _, r := range name {
		if r == '/' || r == '\\' || r < 0x20 || r == 0x7f {
			return fmt.Errorf("service name %q contains %q; service names are Nomad task names, which may not contain slashes or control characters", name, r)
		}
	}
	return nil
}
