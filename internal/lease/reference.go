package lease

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"regexp"
	"strconv"
	"time"

	"github.com/hashicorp/nomad/api"
)

// A lease may refer to another in its namespace (Reference, the other's
// name): it belongs to that lease and ends with it. Nomad enforces it, not
// berth: every lease registers a Nomad service while it runs
// (ServiceName), and a referring lease's timer renders that service into a
// file through a template. When the referenced lease ends, by its timer or
// by a stop or purge, Nomad deregisters the service, the template renders
// empty and restarts the timer, and the timer exits on an empty file,
// which ends the referring lease: nobody needs to run Terraform.

// MetaReference records the referenced lease's name in the job's meta
// (signed).
const MetaReference = "berth.reference"

// referenceFile is where the referring timer's template renders the
// referenced lease's service (in the task's local dir).
const referenceFile = "local/berth-reference"

// ServiceName is the Nomad service a running lease registers: a hash of
// its namespace and name (service names allow neither dots nor 128
// characters).
func ServiceName(namespace, name string) string {
	if namespace == "" {
		namespace = DefaultNamespace
	}
	sum := sha256.Sum256([]byte(namespace + "/" + name))
	return "berth-lease-" + hex.EncodeToString(sum[:6])
}

// leaseService is the service every lease job registers while it runs.
func leaseService(l Lease) *api.Service {
	return &api.Service{Name: ServiceName(l.Namespace, l.Name), Provider: "nomad"}
}

// referenceTemplate renders the referenced lease's service instances;
// empty once it ended.
func referenceTemplate(l Lease) *api.Template {
	data := fmt.Sprintf(`{{ range nomadService %q }}{{ .ID }}{{ "\n" }}{{ end }}`, ServiceName(l.Namespace, l.Reference))
	return &api.Template{EmbeddedTmpl: ptr(data), DestPath: ptr(referenceFile), ChangeMode: ptr("restart")}
}

// timerScript is what a referring lease's timer runs: exit at once when the
// referenced lease's service is gone, or sleep until expires (a Unix time,
// so a restart sleeps only what is left).
func timerScript(expires time.Time) string {
	return fmt.Sprintf(`test -s %s || exit 0; left=$((%d - $(date +%%s))); [ "$left" -gt 0 ] || exit 0; exec %s "$left"`,
		referenceFile, expires.Unix(), TimerCommand)
}

var timerScriptPattern = regexp.MustCompile(`^test -s ` + regexp.QuoteMeta(referenceFile) +
	` \|\| exit 0; left=\$\(\((\d+) - \$\(date \+%s\)\)\); \[ "\$left" -gt 0 \] \|\| exit 0; exec ` +
	regexp.QuoteMeta(TimerCommand) + ` "\$left"$`)

// readReferenceTimer checks a referring lease's timer: the script with an
// end no later than the lease's (plus the clock skew allowed) and the one
// template on the referenced lease's service.
func (r *reader) readReferenceTimer(t *api.Task, l Lease) {
	args, _ := t.Config["args"].([]any)
	script := ""
	if len(args) == 2 && args[0] == "-c" {
		script, _ = args[1].(string)
	}
	m := timerScriptPattern.FindStringSubmatch(script)
	if cmd, _ := t.Config["command"].(string); cmd != "/bin/sh" || m == nil {
		r.add("%s does not run the timer script of a referring lease", TimerTask)
	} else if end, err := strconv.ParseInt(m[1], 10, 64); err != nil ||
		(!l.CreatedAt.IsZero() && time.Unix(end, 0).After(l.ExpiresAt().Add(ClockSkewAllowance))) {
		r.add("%s sleeps until %s, after expires_at %s", TimerTask, m[1], stamp(l.ExpiresAt()))
	}
	want := referenceTemplate(l)
	if len(t.Templates) != 1 || deref(t.Templates[0].EmbeddedTmpl) != *want.EmbeddedTmpl ||
		deref(t.Templates[0].DestPath) != *want.DestPath || deref(t.Templates[0].ChangeMode) != *want.ChangeMode {
		r.add("%s does not watch lease %q as its reference", TimerTask, l.Reference)
	}
}

// readServices accepts the lease's own service, or none (leases from
// before references); anything else is foreign.
func (r *reader) readServices(g *api.TaskGroup, l Lease) {
	for _, s := range g.Services {
		if s == nil || s.Name != ServiceName(l.Namespace, l.Name) || s.Provider != "nomad" || len(s.Checks) > 0 ||
			s.PortLabel != "" || len(s.Tags) > 0 {
			r.add("group has service %q", deref(s).Name)
		}
	}
	if len(g.Services) > 1 {
		r.add("group has %d services", len(g.Services))
	}
}

// RegistersService reports whether a lease job registers its service, so
// that other leases can refer to it (leases from before references do not).
func RegistersService(job *api.Job) bool {
	if job == nil || len(job.TaskGroups) == 0 || job.TaskGroups[0] == nil {
		return false
	}
	want := ServiceName(deref(job.Namespace), deref(job.ID))
	for _, s := range job.TaskGroups[0].Services {
		if s != nil && s.Name == want {
			return true
		}
	}
	return false
}
