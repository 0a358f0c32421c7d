package lease

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/nomad/api"

	"github.com/berthhq/terraform-provider-berth/internal/taskconfig"
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

// MetaReferenceAlloc records Lease.ReferenceAlloc (signed).
const MetaReferenceAlloc = "berth.reference_alloc"

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

// referenceTemplate renders the instances of the referenced lease's
// service that the allocation berth verified registered; empty once it
// ended. Service names are not tied to a job, and a job name may be reused
// once the lease that had it ended (by a job that is no lease, or a lease
// nobody verified), so neither counts: allocation IDs are never reused.
func referenceTemplate(l Lease) *api.Template {
	data := jobOnlyTemplate(l)
	if l.ReferenceAlloc != "" {
		data = fmt.Sprintf(`{{ range nomadService %q }}{{ if and (eq .JobID %q) (eq .AllocID %q) }}{{ .ID }}{{ "\n" }}{{ end }}{{ end }}`,
			ServiceName(l.Namespace, l.Reference), l.Reference, l.ReferenceAlloc)
	}
	return &api.Template{EmbeddedTmpl: ptr(data), DestPath: ptr(referenceFile), ChangeMode: ptr("restart")}
}

// jobOnlyTemplate is the reference template of the berth before
// allocations, which counted the services of any job of the referenced
// name.
func jobOnlyTemplate(l Lease) string {
	return fmt.Sprintf(`{{ range nomadService %q }}{{ if eq .JobID %q }}{{ .ID }}{{ "\n" }}{{ end }}{{ end }}`,
		ServiceName(l.Namespace, l.Reference), l.Reference)
}

// anyJobTemplate is the reference template of older berths, which counted
// every service of the name.
func anyJobTemplate(l Lease) string {
	return fmt.Sprintf(`{{ range nomadService %q }}{{ .ID }}{{ "\n" }}{{ end }}`, ServiceName(l.Namespace, l.Reference))
}

// The timer of a lease berth creates now runs a script (older leases run
// TimerCommand directly, and still read back): it prints the lease's result
// identity (below) to its log, exits at once when the lease refers to
// another whose service is gone, and otherwise sleeps until the lease's end
// as a Unix time, so a restart sleeps only what is left.
const (
	// ResultIdentity names the workload identity Nomad gives the timer:
	// a JWT Nomad's keyring signs, naming the namespace, job, allocation
	// and task, for the audience ResultAudience only (it opens nothing in
	// Nomad). It is the cluster side's signature over the lease's result.
	ResultIdentity = "berth-result"
	ResultAudience = "berth-lease-result"
	timerShell     = "/bin/sh"
)

var resultTokenFile = `"$NOMAD_SECRETS_DIR/nomad_` + ResultIdentity + `.jwt"`

func timerScript(l Lease) string {
	var b strings.Builder
	fmt.Fprintf(&b, "cat %s; echo; ", resultTokenFile)
	if l.Reference != "" {
		fmt.Fprintf(&b, "test -s %s || exit 0; ", referenceFile)
	}
	fmt.Fprintf(&b, `left=$((%d - $(date +%%s))); [ "$left" -gt 0 ] || exit 0; exec %s "$left"`, l.ExpiresAt().Unix(), TimerCommand)
	return b.String()
}

var timerScriptPattern = regexp.MustCompile(`^cat ` + regexp.QuoteMeta(resultTokenFile) + `; echo; ` +
	`(test -s ` + regexp.QuoteMeta(referenceFile) + ` \|\| exit 0; )?` +
	`left=\$\(\((\d+) - \$\(date \+%s\)\)\); \[ "\$left" -gt 0 \] \|\| exit 0; exec ` +
	regexp.QuoteMeta(TimerCommand) + ` "\$left"$`)

// resultIdentity is the timer's identity whose token is the result's
// signature.
func resultIdentity() *api.WorkloadIdentity {
	return &api.WorkloadIdentity{Name: ResultIdentity, Audience: []string{ResultAudience}, File: true}
}

// readScriptTimer checks a timer that runs the script, with messages
// that say what it means: the script itself, with an end no later than the
// lease's (plus the clock skew allowed), and the reference check exactly
// when the lease refers to another. compareJob compares the rest of the
// task with want, the timer BuildJob writes.
//
// A referring timer of an older berth renders the referenced lease's
// service from any job, so another job's service of that name keeps it
// running: it is foreign, with a message saying to replace it.
func (r *reader) readScriptTimer(t, want *api.Task, l Lease) {
	args, _ := taskconfig.StringList(t.Config["args"])
	script := ""
	if len(args) == 2 && args[0] == "-c" {
		script = args[1]
	}
	m := timerScriptPattern.FindStringSubmatch(script)
	switch {
	case m == nil:
		r.add("%s does not run berth's timer script", TimerTask)
		return
	case (m[1] != "") != (l.Reference != ""):
		r.add("%s's reference check does not match the lease's reference %q", TimerTask, l.Reference)
	}
	if end, err := strconv.ParseInt(m[2], 10, 64); err != nil ||
		(!l.CreatedAt.IsZero() && time.Unix(end, 0).After(l.ExpiresAt().Add(ClockSkewAllowance))) {
		r.add("%s sleeps until %s, after expires_at %s", TimerTask, m[2], stamp(l.ExpiresAt()))
	}
	if l.Reference == "" || len(t.Templates) != 1 || len(want.Templates) != 1 {
		return
	}
	switch got := deref(t.Templates[0].EmbeddedTmpl); {
	case got == anyJobTemplate(l):
		r.add("%s watches service %q of any job, as earlier berth versions wrote it, so another job's service of that "+
			"name keeps it running: replace the lease", TimerTask, ServiceName(l.Namespace, l.Reference))
		want.Templates[0].EmbeddedTmpl = ptr(got) // reported once, here
	case l.ReferenceAlloc == "" && got == jobOnlyTemplate(l):
		r.add("%s watches lease %q's service by job name only, as earlier berth versions wrote it, so a job that reuses "+
			"the name after that lease ended keeps it running: replace the lease", TimerTask, l.Reference)
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
