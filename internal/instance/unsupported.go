package instance

import (
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

// checkJob reports what the field table cannot: a job whose name is not
// its ID (berth's instance name is both).
func (r *reader) checkJob(job *api.Job) {
	if name := deref(job.Name); name != "" && name != deref(job.ID) {
		r.add("job name %q differs from its ID %q (berth uses one name for both)", name, deref(job.ID))
	}
}

func sortTasks(tasks []*api.Task) {
	slices.SortFunc(tasks, func(a, b *api.Task) int { return strings.Compare(a.Name, b.Name) })
}
