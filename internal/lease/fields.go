package lease

import (
	"reflect"
	"slices"
	"strings"

	"github.com/hashicorp/nomad/api"
)

// Allow, don't deny: every field of Nomad's api.Job is listed in
// leaseFields, by path (Go field names joined by dots; lists and maps are
// transparent), as one of:
//
//   - exact: compared with the job BuildJob writes for the lease read from
//     the job (compareJob). For a field or block berth never writes, any
//     value in it makes the lease foreign.
//   - filled: Nomad fills it in when berth leaves it unset; the values it
//     fills are accepted besides what berth writes.
//   - nomads: Nomad's bookkeeping (status, indexes, versions, region),
//     never compared.
//   - metaKeys: the job's meta, whose keys must be in JobMetaKeys (their
//     values are checked by the signature and readTiming).
//
// Each rule covers its subtree. The structs berth writes into (job, group,
// task, template, service, identity, resources, policies, network, port)
// are listed leaf by leaf, so a test that walks the api types fails for a
// field Nomad adds to them until it is listed here; a block berth never
// writes is one exact rule, so a field added inside it is compared too. At
// run time a path missing from the table is compared exactly.
type fieldKind uint8

const (
	fieldExact fieldKind = iota + 1
	fieldFilled
	fieldNomads
	fieldMetaKeys
)

// fieldRule is one entry of leaseFields. For a filled field, accept says
// whether live (as Nomad holds it) is a value Nomad fills where berth
// writes want, or own drops from live what Nomad adds to berth's value.
type fieldRule struct {
	kind   fieldKind
	accept func(live, want reflect.Value) bool
	own    func(live reflect.Value) reflect.Value
}

// JobMetaKeys are the job meta keys berth writes on a lease. Any other key
// makes the lease foreign. Add a key here when BuildJob starts writing it.
var JobMetaKeys = []string{MetaKind, MetaUser, MetaCreatedAt, MetaDuration, MetaExpiresAt, MetaSignature, MetaSignedAt, MetaReference, MetaReferenceAlloc}

// TimerDrivers are the drivers the timer task may run with (the
// provider's lease_driver is one of them): they run its command and args
// on the host as written, so the timer ends the lease when berth says.
var TimerDrivers = []string{"exec", "raw_exec"}

var (
	exact  = fieldRule{kind: fieldExact}
	nomads = fieldRule{kind: fieldNomads}
)

func filled(accept func(live, want reflect.Value) bool) fieldRule {
	return fieldRule{kind: fieldFilled, accept: accept}
}

func rules(prefix string, rule fieldRule, names ...string) map[string]fieldRule {
	out := make(map[string]fieldRule, len(names))
	for _, n := range names {
		out[prefix+n] = rule
	}
	return out
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

var leaseFields = mergeRules(
	rules("", exact, "ID", "Name", "Namespace", "Type", "Constraints", "AllAtOnce", "Affinities", "Spreads",
		"Multiregion", "Periodic", "ParameterizedJob", "Reschedule", "Migrate", "UI", "ParentID", "Dispatched",
		"DispatchIdempotencyToken", "Payload", "ConsulNamespace", "VaultNamespace"),
	rules("", nomads, "Region", "Stop", "Status", "StatusDescription", "Stable", "Version", "SubmitTime",
		"CreateIndex", "ModifyIndex", "JobModifyIndex", "NomadTokenID", "VersionTag"),
	map[string]fieldRule{
		"Meta": {kind: fieldMetaKeys},
		// The server's job_default_priority: it orders scheduling only.
		"Priority": filled(func(_, _ reflect.Value) bool { return true }),
		// The namespace's default pool when berth pins no node.
		"NodePool":    filled(func(_, want reflect.Value) bool { return want.IsNil() || want.Elem().String() == "" }),
		"Datacenters": filled(func(live, _ reflect.Value) bool { return slices.Equal(strs(live), []string{"*"}) }),
		// An update block of zeros, which a batch job ignores.
		"Update": filled(func(live, _ reflect.Value) bool { return same(live, reflect.ValueOf(&api.UpdateStrategy{})) }),
	},
	groupFields("TaskGroups."),
)

func groupFields(p string) map[string]fieldRule {
	return mergeRules(
		rules(p, exact, "Name", "Count", "Affinities", "Spreads", "Volumes", "Disconnect", "Update", "Migrate", "Meta",
			"ShutdownDelay", "StopAfterClientDisconnect", "MaxClientDisconnect", "Scaling", "Consul",
			"PreventRescheduleOnLost", "MaxRunDuration"),
		map[string]fieldRule{p + "Constraints": {kind: fieldFilled, own: withoutImplicitConstraints}},
		restartFields(p+"RestartPolicy."),
		rules(p+"ReschedulePolicy.", exact, "Attempts", "Interval", "Delay", "DelayFunction", "MaxDelay", "Unlimited"),
		rules(p+"EphemeralDisk.", exact, "Sticky", "Migrate", "SizeMB"),
		rules(p+"Networks.", exact, "Device", "CIDR", "IP", "DNS", "ReservedPorts", "Hostname", "MBits", "CNI"),
		map[string]fieldRule{p + "Networks.Mode": filled(oneOf("", "host"))},
		rules(p+"Networks.DynamicPorts.", exact, "Label", "Value", "To", "IgnoreCollision"),
		map[string]fieldRule{p + "Networks.DynamicPorts.HostNetwork": filled(oneOf("", "default"))},
		rules(p+"Services.", exact, "Name", "Tags", "CanaryTags", "EnableTagOverride", "PortLabel", "AddressMode",
			"Address", "Checks", "CheckRestart", "Connect", "Meta", "CanaryMeta", "TaggedAddresses", "TaskName",
			"OnUpdate", "Identity", "Weights", "Provider", "Cluster", "Kind"),
		taskFields(p+"Tasks."),
	)
}

func taskFields(p string) map[string]fieldRule {
	return mergeRules(
		rules(p, exact, "Name", "Driver", "User", "Lifecycle", "Config", "Constraints", "Affinities", "Env", "Services",
			"Meta", "KillTimeout", "Artifacts", "Vault", "Consul", "DispatchPayload", "VolumeMounts", "CSIPluginConfig",
			"Leader", "ShutdownDelay", "KillSignal", "Kind", "ScalingPolicies", "Actions", "Schedule", "Secrets"),
		rules(p+"Resources.", exact, "CPU", "Cores", "MemoryMB", "MemoryMaxMB", "DiskMB", "Networks", "Devices", "NUMA",
			"SecretsMB", "IOPS"),
		restartFields(p+"RestartPolicy."),
		rules(p+"LogConfig.", exact, "MaxFiles", "MaxFileSizeMB", "Enabled", "Disabled"),
		rules(p+"Templates.", exact, "SourcePath", "DestPath", "EmbeddedTmpl", "ChangeMode", "ChangeScript",
			"ChangeSignal", "Once", "Splay", "Perms", "Uid", "Gid", "LeftDelim", "RightDelim", "Envvars", "VaultGrace",
			"Wait", "ErrMissingKey"),
		rules(p+"Identities.", exact, "Name", "Audience", "ChangeMode", "ChangeSignal", "Env", "File", "Filepath",
			"ServiceName", "TTL", "ExtraClaims"),
		// Nomad gives every task its default workload identity.
		map[string]fieldRule{p + "Identity": filled(defaultIdentity)},
	)
}

func restartFields(p string) map[string]fieldRule {
	return rules(p, exact, "Interval", "Attempts", "Delay", "Mode", "RenderTemplates")
}

func oneOf(values ...string) func(live, _ reflect.Value) bool {
	return func(live, _ reflect.Value) bool { return slices.Contains(values, live.String()) }
}

func strs(v reflect.Value) []string {
	s, _ := v.Interface().([]string)
	return s
}

// implicitConstraint reports whether Nomad adds c to a group itself: the
// service discovery a Nomad service or template needs, and the minimum
// Nomad version for workload identities.
func implicitConstraint(c *api.Constraint) bool {
	switch c.LTarget {
	case "${attr.nomad.service_discovery}":
		return c.Operand == "=" && c.RTarget == "true"
	case "${attr.nomad.version}":
		return c.Operand == "semver" && strings.HasPrefix(c.RTarget, ">= ")
	}
	return false
}

// withoutImplicitConstraints is a group's constraints without the ones
// Nomad adds.
func withoutImplicitConstraints(live reflect.Value) reflect.Value {
	cs, _ := live.Interface().([]*api.Constraint)
	var own []*api.Constraint
	for _, c := range cs {
		if c != nil && !implicitConstraint(c) {
			own = append(own, c)
		}
	}
	return reflect.ValueOf(own)
}

// defaultIdentity: the identity Nomad gives a task that sets none.
func defaultIdentity(live, _ reflect.Value) bool {
	id, _ := live.Interface().(*api.WorkloadIdentity)
	return id == nil || reflect.DeepEqual(*id, api.WorkloadIdentity{Name: "default", Audience: []string{"nomadproject.io"}})
}
