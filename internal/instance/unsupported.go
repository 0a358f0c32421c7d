package instance

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/nomad/api"
)

// implicitConstraints are the constraints Nomad's job admission hooks add on
// their own (nomad/job_endpoint_hooks.go), keyed by left target with the
// operand they use. They are not the user's doing, so they are not reported;
// the right-hand side is ignored because minimum versions change between
// Nomad releases.
var implicitConstraints = map[string]string{
	"${attr.nomad.service_discovery}":        "=",
	"${attr.nomad.version}":                  "semver",
	"${attr.vault.version}":                  "semver",
	"${attr.consul.version}":                 "semver",
	"${attr.os.signals}":                     "set_contains",
	"${attr.plugins.cni.version.bridge}":     "semver",
	"${attr.plugins.cni.version.firewall}":   "semver",
	"${attr.plugins.cni.version.host-local}": "semver",
	"${attr.plugins.cni.version.loopback}":   "semver",
	"${attr.plugins.cni.version.portmap}":    "semver",
	"${attr.plugins.cni.version.consul-cni}": "semver",
}

// userConstraints counts the constraints that were not added by Nomad itself.
func userConstraints(cs []*api.Constraint) int {
	n := 0
	for _, c := range cs {
		if c == nil {
			continue
		}
		if op, ok := implicitConstraints[c.LTarget]; ok && op == c.Operand {
			continue
		}
		n++
	}
	return n
}

func (r *reader) checkJob(job *api.Job) {
	if job.Periodic != nil {
		r.add("job is periodic")
	}
	if job.ParameterizedJob != nil {
		r.add("job is parameterized")
	}
	if job.Multiregion != nil {
		r.add("job is multiregion")
	}
}

func (r *reader) checkGroup(g *api.TaskGroup) {
	if len(g.Services) > 0 {
		r.add("group has group-level services (berth declares services in tasks)")
	}
	if g.Scaling != nil {
		r.add("group has a scaling policy")
	}
	if g.Consul != nil {
		r.add("group has a consul block")
	}
}

// checkPlacement reports task-level placement, which berth cannot express
// (job and group placement are read into the spec). who is `task "x"`.
func (r *reader) checkPlacement(who string, cs []*api.Constraint, as []*api.Affinity) {
	if n := userConstraints(cs); n > 0 {
		r.add("%s has %s", who, plural(n, "constraint"))
	}
	if len(as) > 0 {
		r.add("%s has %s", who, plural(len(as), "affinity", "affinities"))
	}
}

func (r *reader) checkTask(t *api.Task) {
	who := `task "` + t.Name + `"`
	r.checkPlacement(who, t.Constraints, t.Affinities)
	checks := []struct {
		present bool
		what    string
	}{
		{t.Vault != nil, "uses vault"},
		{t.Consul != nil, "has a consul block"},
		{t.DispatchPayload != nil, "has a dispatch payload"},
		{t.CSIPluginConfig != nil, "is a CSI plugin"},
		{t.Kind != "", "is of kind " + `"` + t.Kind + `"`},
		{len(t.ScalingPolicies) > 0, "has scaling policies"},
		{t.Schedule != nil, "has a schedule"},
		{len(t.Actions) > 0, "has actions"},
	}
	if res := t.Resources; res != nil {
		checks = append(checks, []struct {
			present bool
			what    string
		}{
			{len(res.Networks) > 0, "has task-level networks"},
			{deref(res.Cores) > 0, "reserves cpu cores"},
			{len(res.Devices) > 0, "requests devices"},
			{res.NUMA != nil && res.NUMA.Affinity != "" && res.NUMA.Affinity != "none", "has a NUMA affinity"},
		}...)
	}
	for _, c := range checks {
		if c.present {
			r.add("%s %s", who, c.what)
		}
	}
}

func sortTasks(tasks []*api.Task) {
	slices.SortFunc(tasks, func(a, b *api.Task) int { return strings.Compare(a.Name, b.Name) })
}

// plural formats "1 constraint", "2 constraints"; forms[1] overrides the
// plural form.
func plural(n int, forms ...string) string {
	word := forms[0] + "s"
	if len(forms) > 1 {
		word = forms[1]
	}
	if n == 1 {
		word = forms[0]
	}
	return fmt.Sprintf("%d %s", n, word)
}
