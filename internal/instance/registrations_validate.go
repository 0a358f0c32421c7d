package instance

import (
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// Nomad's rules for task services and their checks (nomad/structs
// services.go Service.Validate, ServiceCheck.validateNomad/validateConsul,
// structs.go validateServices and TaskGroup.validateServices), one error per
// mistake at the attribute that holds it. Enumerations (provider, types,
// address modes, on_update, initial status) are the schema's.

// httpMethods are the methods Nomad's own http checks accept.
var httpMethods = []string{"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "CONNECT", "OPTIONS", "TRACE"}

// registrations validates every service's registrations; portOwner holds
// the instance's declared port labels. All services of a group must use one
// provider: nomad when some service has a `check` (always Nomad's),
// otherwise the first registration's in service name order; registrations
// using another one are reported.
func (v *validator) registrations(s Spec, portOwner map[string]string) {
	groupProvider, firstAt := "", ""
	for _, name := range sortedKeys(s.Services) {
		if s.Services[name].Check != nil {
			groupProvider, firstAt = ProviderNomad, fmt.Sprintf("service %q's check", name)
			break
		}
	}
	for _, name := range sortedKeys(s.Services) {
		svc := s.Services[name]
		if svc.Role.OneShot() {
			for i, r := range svc.Registrations {
				if len(r.Checks) > 0 {
					v.add(path("services", name, "registrations", i, "checks"), "Check on "+string(svc.Role)+" service",
						string(svc.Role)+" services run to completion outside the main services' lifetime, so their checks could never keep passing; "+
							"move the registration to a main, sidecar or prestart_sidecar service.")
					break
				}
			}
		}
		seen := map[string]int{}
		for i, r := range svc.Registrations {
			at := path("services", name, "registrations", i)
			sub := func(elems ...any) []any { return append(slices.Clone(at), elems...) }
			if groupProvider == "" {
				groupProvider, firstAt = r.provider(), fmt.Sprintf("service %q's registration %q", name, r.Name)
			} else if r.provider() != groupProvider {
				v.add(sub("provider"), "Mixed service providers",
					fmt.Sprintf("This registration uses %q but %s uses %q; Nomad requires every service of a group to use the same provider.",
						r.provider(), firstAt, groupProvider))
			}
			key := r.Name + "\x00" + r.Port
			if j, dup := seen[key]; dup {
				v.add(sub("name"), "Duplicate registration",
					fmt.Sprintf("Registration %d already registers %q on port %q; Nomad requires name and port to differ between a task's services.", j, r.Name, r.Port))
			} else {
				seen[key] = i
			}
			v.registration(at, r, portOwner)
		}
	}
}

func (v *validator) registration(at []any, r Registration, portOwner map[string]string) {
	sub := func(elems ...any) []any { return append(slices.Clone(at), elems...) }
	nomad := r.provider() == ProviderNomad
	if msg := registrationNameProblem(r.Name); msg != "" {
		v.add(sub("name"), "Invalid service name", msg)
	}
	if r.Port != "" {
		v.declaredPort(sub("port"), r.Port, r.AddressMode == addressModeDriver, portOwner)
	}
	switch {
	case nomad && r.AddressMode == addressModeDriver:
		v.add(sub("address_mode"), "address_mode not supported by Nomad",
			`Nomad's own service discovery does not support address_mode "driver"; use provider "consul" or another address mode.`)
	case r.Address != "" && r.AddressMode != "" && r.AddressMode != DefaultAddressMode:
		v.add(sub("address"), "Address with address_mode",
			fmt.Sprintf("address can only be set with address_mode %q (this registration uses %q).", DefaultAddressMode, r.AddressMode))
	}
	if nomad && r.OnUpdate == onUpdateIgnoreWarnings {
		v.add(sub("on_update"), "on_update not supported by Nomad",
			`Nomad's own checks have no warning state; on_update "ignore_warnings" needs provider "consul".`)
	}
	names := map[string]int{}
	for j, c := range r.Checks {
		cat := sub("checks", j)
		name := c.effectiveName(r)
		if k, dup := names[name]; dup {
			detail := fmt.Sprintf("Check %d of this registration is already named %q; Nomad requires check names to be unique within a service.", k, name)
			if c.Name == "" {
				detail += " Checks without a name are all named " + strconv.Quote(name) + " by Nomad: set name."
			}
			v.add(append(slices.Clone(cat), "name"), "Duplicate check name", detail)
		} else {
			names[name] = j
		}
		v.registrationCheck(cat, r, c, portOwner)
	}
}

// registrationNameProblem applies Nomad's service name rule, with variables
// as Nomad's validation sees them, and refuses the variables Nomad replaces
// at registration.
func registrationNameProblem(name string) string {
	for _, vr := range registrationNameVars {
		if strings.Contains(name, vr) {
			return fmt.Sprintf("Nomad replaces %s in a service name when the job is registered, so the name read back would differ from %q; write the name out.", vr, name)
		}
	}
	if !serviceNameRE.MatchString(placeholderName(name)) {
		return fmt.Sprintf("%q is not a valid service name: letters, digits and '-', not starting or ending with '-', at most 63 characters (RFC 1123).", name)
	}
	return ""
}

// declaredPort reports a port label no service of the instance declares;
// numeric ports are allowed with address mode driver.
func (v *validator) declaredPort(at []any, port string, driver bool, portOwner map[string]string) {
	if n, err := strconv.Atoi(port); err == nil {
		if !driver {
			v.add(at, "Numeric port", fmt.Sprintf(`port %q is a number; numbers are only allowed with address_mode "driver". Use a declared port label.`, port))
		} else if n <= 0 {
			v.add(at, "Invalid port", fmt.Sprintf("port %d must be positive.", n))
		}
		return
	}
	if _, ok := portOwner[port]; !ok {
		v.add(at, "Unknown port",
			fmt.Sprintf("Port %q is not declared by any service of this instance; add it to some service's ports or use a declared label.", port))
	}
}

func (v *validator) registrationCheck(at []any, r Registration, c RegistrationCheck, portOwner map[string]string) {
	sub := func(elem string) []any { return append(slices.Clone(at), elem) }
	nomad := r.provider() == ProviderNomad
	switch {
	case nomad && !slices.Contains(CheckTypes(), c.Type):
		v.add(sub("type"), "Check type not supported by Nomad",
			fmt.Sprintf(`Nomad's own service discovery runs only %s checks; a %q check needs provider "consul".`, backtickText(CheckTypes()), c.Type))
		return
	case c.Type == checkTypeHTTP && c.Path == "":
		v.add(sub("path"), "Missing check path", `http checks need a path, for example "/" or "/health".`)
		return
	case c.Type == checkTypeHTTP && !relativePath(c.Path):
		v.add(sub("path"), "Invalid check path", fmt.Sprintf("path %q must be a path on the checked port, not an absolute URL.", c.Path))
		return
	}
	if c.Interval < minCheckInterval {
		v.add(sub("interval"), "Invalid check interval", fmt.Sprintf("interval is %s; Nomad requires at least %s.", c.Interval, minCheckInterval))
		return
	}
	if c.Timeout < minCheckTimeout {
		v.add(sub("timeout"), "Invalid check timeout", fmt.Sprintf("timeout is %s; Nomad requires at least %s.", c.Timeout, minCheckTimeout))
		return
	}
	{
		port := c.effectivePort(r)
		switch {
		case port == "":
			v.add(sub("port"), "Missing check port", "This check needs a port: set port here or on the registration.")
			return
		case c.Port != "":
			before := len(v.errs)
			v.declaredPort(sub("port"), c.Port, c.AddressMode == addressModeDriver, portOwner)
			if len(v.errs) > before {
				return
			}
		}
	}
	if nomad && c.AddressMode == addressModeDriver {
		v.add(sub("address_mode"), "address_mode not supported by Nomad",
			`Nomad's own checks do not support address_mode "driver"; use provider "consul" or another address mode.`)
		return
	}
	if nomad && c.Type == checkTypeHTTP && c.Method != "" && !slices.Contains(httpMethods, c.Method) {
		v.add(sub("method"), "Invalid check method", fmt.Sprintf("Nomad's http checks accept %s; not %q.", backtickText(httpMethods), c.Method))
		return
	}
	if nomad && c.OnUpdate == onUpdateIgnoreWarnings {
		v.add(sub("on_update"), "on_update not supported by Nomad",
			`Nomad's own checks have no warning state; on_update "ignore_warnings" needs provider "consul".`)
		return
	}
	if cr := c.CheckRestart; cr != nil {
		crAt := func(elem string) []any { return append(sub("check_restart"), elem) }
		switch onUpdate := c.onUpdate(r); {
		case nomad && cr.IgnoreWarnings:
			v.add(crAt("ignore_warnings"), "ignore_warnings not supported by Nomad",
				`Nomad's own checks have no warning state; check_restart.ignore_warnings needs provider "consul".`)
		case cr.Grace < 0:
			v.add(crAt("grace"), "Invalid check_restart grace", fmt.Sprintf("grace is %s; it must be 0 or more.", cr.Grace))
		case nomad && onUpdate == onUpdateIgnoreWarnings:
			// reported on on_update
		case onUpdate == onUpdateIgnore:
			v.add(sub("check_restart"), "check_restart with on_update ignore",
				`Nomad does not allow check_restart on a check whose on_update is "ignore".`)
		case onUpdate == onUpdateIgnoreWarnings && !cr.IgnoreWarnings:
			v.add(crAt("ignore_warnings"), "check_restart must ignore warnings",
				`With on_update "ignore_warnings", Nomad requires check_restart.ignore_warnings = true.`)
		}
	}
}

func relativePath(p string) bool {
	u, err := url.Parse(p)
	return err == nil && !u.IsAbs()
}

// backtickText formats values as `a`, `b` for messages.
func backtickText(values []string) string {
	q := make([]string, len(values))
	for i, s := range values {
		q[i] = "`" + s + "`"
	}
	return strings.Join(q, ", ")
}
