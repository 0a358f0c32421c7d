package instance

import (
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/hashicorp/nomad/api"

	"github.com/berthhq/terraform-provider-berth/internal/apifields"
)

// Every field of Nomad's api.Job is modeled, Nomad's own, or refused:
// nothing a job holds may be dropped without a word when berth rewrites it
// (BuildJob knows only the Spec). jobFields says which, by path (Go field
// names joined by dots; slices and maps are transparent). A test walks the
// api types and fails for any field the table does not cover, so a Nomad
// upgrade that adds a field fails there instead of opening a hole; at run
// time a field missing from the table is treated as refused.
type fieldHandling uint8

const (
	// fieldModeled: the reader reads this leaf into the Spec (so it round
	// trips and shows as drift), or refuses values it cannot represent with
	// its own message. Only leaves (scalars, maps and lists of scalars).
	fieldModeled fieldHandling = iota + 1
	// fieldNomads: Nomad's bookkeeping (status, indexes, versions), never
	// written by a job's author; covers its whole subtree.
	fieldNomads
	// fieldRefused: any value but the one Nomad holds when the field is not
	// set is refused on import and reported on refresh; covers its whole
	// subtree.
	fieldRefused
)

// fieldRule is one entry of jobFields. unset, for a refused field, says
// whether the value is what Nomad holds when nobody sets it; nil means
// "empty" (nil, zero, or only empty values inside). owner is the struct
// the field belongs to.
type fieldRule struct {
	handling fieldHandling
	unset    func(v, owner reflect.Value) bool
}

var (
	modeled = fieldRule{handling: fieldModeled}
	nomads  = fieldRule{handling: fieldNomads}
	refused = fieldRule{handling: fieldRefused}
)

func refusedUnless(unset func(v, owner reflect.Value) bool) fieldRule {
	return fieldRule{handling: fieldRefused, unset: unset}
}

// byName lists fields under one prefix.
func byName(prefix string, rule fieldRule, names ...string) map[string]fieldRule {
	out := make(map[string]fieldRule, len(names))
	for _, n := range names {
		out[prefix+n] = rule
	}
	return out
}

// jobFields is built once from its parts, each one api struct.
var jobFields = mergeRules(
	// Job.
	byName("", modeled, "ID", "Name", "Namespace", "Type", "Priority", "Datacenters", "NodePool", "Meta", "Stop"),
	byName("", nomads, "Region", "NomadTokenID", "Status", "StatusDescription", "Stable", "Version", "SubmitTime",
		"CreateIndex", "ModifyIndex", "JobModifyIndex", "VersionTag"),
	byName("", refused, "AllAtOnce", "Multiregion", "Periodic", "ParameterizedJob", "UI", "ParentID", "Dispatched",
		"DispatchIdempotencyToken", "Payload", "ConsulNamespace", "VaultNamespace"),
	// Job-level placement is read into the instance's placement; the
	// job's update, reschedule and migrate blocks are copied by Nomad into
	// each group, where berth reads them.
	placementRules(""),
	updateRules("Update."),
	reschedulePolicyRules("Reschedule."),
	migrateRules("Migrate."),
	groupRules("TaskGroups."),
)

func placementRules(p string) map[string]fieldRule {
	return mergeRules(
		byName(p+"Constraints.", modeled, "LTarget", "RTarget", "Operand"),
		byName(p+"Affinities.", modeled, "LTarget", "RTarget", "Operand", "Weight"),
		byName(p+"Spreads.", modeled, "Attribute", "Weight", "SpreadTarget.Value", "SpreadTarget.Percent"),
	)
}

func updateRules(p string) map[string]fieldRule {
	return byName(p, modeled, "Stagger", "MaxParallel", "HealthCheck", "MinHealthyTime", "HealthyDeadline",
		"ProgressDeadline", "Canary", "AutoRevert", "AutoPromote")
}

func restartPolicyRules(p string) map[string]fieldRule {
	return byName(p, modeled, "Interval", "Attempts", "Delay", "Mode", "RenderTemplates")
}

func reschedulePolicyRules(p string) map[string]fieldRule {
	return byName(p, modeled, "Attempts", "Interval", "Delay", "DelayFunction", "MaxDelay", "Unlimited")
}

func migrateRules(p string) map[string]fieldRule {
	return byName(p, modeled, "MaxParallel", "HealthCheck", "MinHealthyTime", "HealthyDeadline")
}

func groupRules(p string) map[string]fieldRule {
	return mergeRules(
		byName(p, modeled, "Name", "Count", "ShutdownDelay"),
		placementRules(p),
		updateRules(p+"Update."),
		restartPolicyRules(p+"RestartPolicy."),
		reschedulePolicyRules(p+"ReschedulePolicy."),
		migrateRules(p+"Migrate."),
		byName(p+"EphemeralDisk.", modeled, "Sticky", "Migrate", "SizeMB"),
		byName(p+"Volumes.", modeled, "Name", "Type", "Source", "ReadOnly", "Sticky", "AccessMode", "AttachmentMode", "PerAlloc"),
		byName(p+"Volumes.", refused, "MountOptions"),
		byName(p+"Networks.", modeled, "Mode"),
		byName(p+"Networks.", refused, "Device", "CIDR", "IP", "DNS", "Hostname", "MBits", "CNI"),
		byName(p+"Networks.ReservedPorts.", modeled, "Label", "Value", "To", "HostNetwork", "IgnoreCollision"),
		byName(p+"Networks.DynamicPorts.", modeled, "Label", "Value", "To", "HostNetwork", "IgnoreCollision"),
		byName(p, refused, "Meta", "Disconnect", "StopAfterClientDisconnect", "MaxClientDisconnect",
			"PreventRescheduleOnLost", "Scaling", "Consul", "Services", "MaxRunDuration"),
		taskRules(p+"Tasks."),
	)
}

func taskRules(p string) map[string]fieldRule {
	return mergeRules(
		byName(p, modeled, "Name", "Driver", "User", "Config", "Env", "Meta", "KillTimeout", "ShutdownDelay", "KillSignal",
			"Lifecycle.Hook", "Lifecycle.Sidecar"),
		byName(p+"Resources.", modeled, "CPU", "MemoryMB", "MemoryMaxMB"),
		byName(p+"Resources.", refused, "Cores", "DiskMB", "Networks", "Devices", "SecretsMB", "IOPS"),
		map[string]fieldRule{
			p + "Constraints":    refusedUnless(onlyImplicitConstraints),
			p + "Resources.NUMA": refusedUnless(noNUMAAffinity),
			p + "Identity":       refusedUnless(defaultIdentity),
		},
		byName(p, refused, "Affinities", "Vault", "Consul", "DispatchPayload", "CSIPluginConfig", "Leader", "Kind",
			"ScalingPolicies", "Identities", "Actions", "Schedule", "Secrets"),
		restartPolicyRules(p+"RestartPolicy."),
		byName(p+"LogConfig.", modeled, "MaxFiles", "MaxFileSizeMB", "Disabled"),
		byName(p+"LogConfig.", refused, "Enabled"),
		byName(p+"Artifacts.", modeled, "GetterSource", "GetterOptions", "GetterHeaders", "GetterMode", "GetterInsecure",
			"RelativeDest", "Chown"),
		byName(p+"Templates.", modeled, "SourcePath", "DestPath", "EmbeddedTmpl", "ChangeMode", "ChangeScript.Command",
			"ChangeScript.Args", "ChangeScript.Timeout", "ChangeScript.FailOnError", "ChangeSignal", "Once", "Splay",
			"Perms", "Uid", "Gid", "LeftDelim", "RightDelim", "Envvars", "VaultGrace", "Wait.Min", "Wait.Max", "ErrMissingKey"),
		byName(p+"Templates.", refused, "ChangeScript.RunOnFirstRender"),
		byName(p+"VolumeMounts.", modeled, "Volume", "Destination", "ReadOnly", "PropagationMode", "SELinuxLabel"),
		registrationRules(p+"Services."),
	)
}

func registrationRules(p string) map[string]fieldRule {
	return mergeRules(
		byName(p, modeled, "Name", "Tags", "CanaryTags", "EnableTagOverride", "PortLabel", "AddressMode", "Address",
			"Meta", "CanaryMeta", "TaggedAddresses", "TaskName", "OnUpdate", "Provider", "Cluster", "Kind"),
		map[string]fieldRule{p + "Identity": refusedUnless(consulIdentity)},
		// Nomad merges a service's check_restart into each of its checks,
		// where berth reads it.
		byName(p, refused, "CheckRestart", "Connect", "Weights"),
		byName(p+"Checks.", modeled, "Name", "Type", "Command", "Args", "Path", "Protocol", "PortLabel", "Expose",
			"AddressMode", "Interval", "Timeout", "InitialStatus", "Notes", "TLSServerName", "TLSSkipVerify", "Header",
			"Method", "CheckRestart.Limit", "CheckRestart.Grace", "CheckRestart.IgnoreWarnings", "GRPCService",
			"GRPCUseTLS", "TaskName", "SuccessBeforePassing", "FailuresBeforeCritical", "FailuresBeforeWarning", "Body", "OnUpdate"),
		byName(p+"Checks.", refused, "Advertise"),
	)
}

func mergeRules(parts ...map[string]fieldRule) map[string]fieldRule {
	out := map[string]fieldRule{}
	for _, part := range parts {
		for k, v := range part {
			out[k] = v
		}
	}
	return out
}

// onlyImplicitConstraints: a task's constraints are unset when Nomad added
// all of them itself.
func onlyImplicitConstraints(v, _ reflect.Value) bool {
	cs, _ := v.Interface().([]*api.Constraint)
	return userConstraints(cs) == 0
}

// noNUMAAffinity: Nomad's default NUMA block asks for nothing.
func noNUMAAffinity(v, _ reflect.Value) bool {
	n, _ := v.Interface().(*api.NUMAResource)
	return n == nil || ((n.Affinity == "" || n.Affinity == "none") && len(n.Devices) == 0)
}

// defaultIdentity: Nomad gives every task the default workload identity
// (name "default", audience nomadproject.io) unless the job sets one.
func defaultIdentity(v, _ reflect.Value) bool {
	id, _ := v.Interface().(*api.WorkloadIdentity)
	if id == nil {
		return true
	}
	want := api.WorkloadIdentity{Name: "default", Audience: []string{"nomadproject.io"}}
	return reflect.DeepEqual(*id, want)
}

// consulIdentity: Nomad adds a workload identity to Consul services itself
// when the agent is configured for it; one on a Nomad service is the
// author's.
func consulIdentity(v, owner reflect.Value) bool {
	id, _ := v.Interface().(*api.WorkloadIdentity)
	if id == nil {
		return true
	}
	s, ok := owner.Interface().(api.Service)
	return ok && s.Provider != ProviderNomad
}

// refusedFields walks job and names every refused field that holds a
// value, e.g. `group "web" sets meta`, `group "web" task "app" sets leader`.
func refusedFields(job *api.Job) []string {
	w := &fieldWalker{rules: jobFields}
	w.walkStruct(reflect.ValueOf(job).Elem(), "", "job")
	return w.found
}

type fieldWalker struct {
	rules map[string]fieldRule
	found []string
}

func (w *fieldWalker) walkStruct(v reflect.Value, path, where string) {
	t := v.Type()
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() || f.Tag.Get("json") == "-" {
			continue // never part of Nomad's API
		}
		p := apifields.JoinPath(path, f.Name)
		fv := v.Field(i)
		rule, ok := w.rules[p]
		switch {
		case ok && rule.handling != fieldRefused:
			continue
		case ok || !apifields.Composite(f.Type):
			// A leaf missing from the table (a field added to Nomad) counts
			// as refused: better refused than silently dropped.
			if !isUnset(fv, v, rule) {
				w.found = append(w.found, w.refusal(where, hclName(f), fv)...)
			}
		default:
			w.walkValue(fv, p, where, hclName(f))
		}
	}
}

// refusal names a refused field; a list of named blocks by each name
// (`sets identity "vault_default"`).
func (w *fieldWalker) refusal(where, name string, v reflect.Value) []string {
	if v.Kind() != reflect.Slice {
		return []string{where + " sets " + name}
	}
	var out []string
	for i := 0; i < v.Len(); i++ {
		label := ""
		if e := reflect.Indirect(v.Index(i)); e.IsValid() && e.Kind() == reflect.Struct {
			if n := reflect.Indirect(e.FieldByName("Name")); n.IsValid() && n.Kind() == reflect.String && n.String() != "" {
				label = " " + strconv.Quote(n.String())
			}
		}
		out = append(out, where+" sets "+name+label)
	}
	return slices.Compact(out)
}

// walkValue descends into a struct, pointer, list or map of structs,
// naming elements by their Name (or map key) in where.
func (w *fieldWalker) walkValue(v reflect.Value, path, where, name string) {
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() {
			w.walkValue(v.Elem(), path, where, name)
		}
	case reflect.Struct:
		w.walkStruct(v, path, where)
	case reflect.Slice:
		for i := 0; i < v.Len(); i++ {
			e := reflect.Indirect(v.Index(i))
			if e.IsValid() && e.Kind() == reflect.Struct {
				w.walkStruct(e, path, elementWhere(where, name, e, strconv.Itoa(i+1)))
			}
		}
	case reflect.Map:
		for _, k := range v.MapKeys() {
			e := reflect.Indirect(v.MapIndex(k))
			if e.IsValid() && e.Kind() == reflect.Struct {
				w.walkStruct(e, path, elementWhere(where, name, e, k.String()))
			}
		}
	}
}

// elementWhere names a list or map element: `group "web"`, `task "app"`.
func elementWhere(where, name string, e reflect.Value, fallback string) string {
	label := fallback
	if n := e.FieldByName("Name"); n.IsValid() {
		if s := reflect.Indirect(n); s.IsValid() && s.Kind() == reflect.String && s.String() != "" {
			label = s.String()
		}
	}
	if where == "job" {
		where = ""
	} else {
		where += " "
	}
	return where + name + " " + strconv.Quote(label)
}

// isUnset applies rule's unset test, or the default: nil, zero, empty,
// or a struct of unset fields.
func isUnset(v, owner reflect.Value, rule fieldRule) bool {
	if rule.unset != nil {
		return rule.unset(v, owner)
	}
	return empty(v)
}

func empty(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Pointer:
		// A block that is there is set, even when empty (periodic {}).
		return v.IsNil() || (v.Elem().Kind() != reflect.Struct && empty(v.Elem()))
	case reflect.Interface:
		return v.IsNil() || empty(v.Elem())
	case reflect.Slice, reflect.Map:
		return v.Len() == 0
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() && !empty(v.Field(i)) {
				return false
			}
		}
		return true
	default:
		return v.IsZero()
	}
}

// hclName names a field as a jobspec does (its hcl tag), or in snake case.
func hclName(f reflect.StructField) string {
	if tag, _, _ := strings.Cut(f.Tag.Get("hcl"), ","); tag != "" {
		return tag
	}
	if tag, _, _ := strings.Cut(f.Tag.Get("mapstructure"), ","); tag != "" {
		return tag
	}
	return snakeCase(f.Name)
}

func snakeCase(s string) string {
	var b strings.Builder
	for i, r := range s {
		upper := r >= 'A' && r <= 'Z'
		if upper && i > 0 {
			prevLower := s[i-1] >= 'a' && s[i-1] <= 'z'
			nextLower := i+1 < len(s) && s[i+1] >= 'a' && s[i+1] <= 'z'
			if prevLower || nextLower {
				b.WriteByte('_')
			}
		}
		if upper {
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return b.String()
}
