package instance

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/hashicorp/nomad/api"
)

// A service's secrets (secret_env_wo) never reach Terraform's plan or
// state, nor the job: berth writes them to a Nomad Variable at
// SecretEnvPath, which the task's workload identity may read without any
// ACL policy, and the task gets them as environment variables from an
// env = true template at SecretEnvDestination. The job carries the
// version (task meta MetaSecretEnvVersion), so bumping it is a change of
// the task: Nomad replaces the allocations, and the new ones render the
// Variable berth has just rewritten.

// MetaSecretEnvVersion is the task meta key holding secret_env_wo_version.
const MetaSecretEnvVersion = "berth.secret_env_version"

// MaxSecretEnvBytes is what a Nomad Variable may hold: the sum of its
// items' key and value lengths (nomad/structs/variables.go).
const MaxSecretEnvBytes = 64 * 1024

var (
	// variablePathRE is Nomad's rule for Variable paths.
	variablePathRE = regexp.MustCompile(`^[a-zA-Z0-9\-_~/]{1,128}$`)
	// envNameRE is a portable environment variable name; it is also a
	// valid key for the env file Nomad parses (go-envparse).
	envNameRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
)

// SecretEnvPath is the Nomad Variable holding a task's secrets: the path
// Nomad lets that task (and only that task of the job) read through its
// workload identity.
func SecretEnvPath(job, group, task string) string {
	return "nomad/jobs/" + job + "/" + group + "/" + task
}

// SecretEnvPaths lists the Variable paths of the services of s that have
// secrets, by service name, with their versions.
func SecretEnvPaths(s Spec) map[string]SecretEnvRef {
	out := map[string]SecretEnvRef{}
	for name, svc := range s.Services {
		if svc.SecretEnvVersion != nil {
			out[name] = SecretEnvRef{Path: SecretEnvPath(s.Name, s.TaskGroup(), name), Version: *svc.SecretEnvVersion}
		}
	}
	return out
}

// SecretEnvRef is where a service's secrets live and their version.
type SecretEnvRef struct {
	Path    string
	Version int
}

// secretEnvTemplate renders every item of the Variable at path as one
// line of an env file. Values are written as JSON strings, which the env
// file parser reads back exactly (quotes, backslashes, newlines, unicode).
func secretEnvTemplate(path string) *api.Template {
	data := `{{ with nomadVar "` + path + `" }}{{ range .Tuples }}{{ .K }}={{ .V | toJSON }}` + "\n" + `{{ end }}{{ end }}`
	return &api.Template{
		DestPath:     ptr(SecretEnvDestination),
		EmbeddedTmpl: ptr(data),
		Envvars:      ptr(true),
		ChangeMode:   ptr("restart"),
	}
}

// buildSecretEnv adds the secret template and the version meta to the
// tasks of group whose services have secrets.
func buildSecretEnv(s Spec, group *api.TaskGroup) {
	for _, t := range group.Tasks {
		svc, ok := s.Services[t.Name]
		if !ok || svc.SecretEnvVersion == nil {
			continue
		}
		t.Templates = append(t.Templates, secretEnvTemplate(SecretEnvPath(s.Name, s.TaskGroup(), t.Name)))
		if t.Meta == nil {
			t.Meta = map[string]string{}
		}
		t.Meta[MetaSecretEnvVersion] = strconv.Itoa(*svc.SecretEnvVersion)
	}
}

// IsSecretEnvTemplate reports whether tmpl is at berth's secret
// destination (isBerthTemplate); the reader of the user's templates skips it.
func IsSecretEnvTemplate(tmpl *api.Template) bool {
	return tmpl != nil && isBerthTemplate(tmpl)
}

// readSecretEnv reads a task's secret version: set only when the task has
// both the version meta and berth's template exactly as BuildJob writes
// it. A template that is missing (or a version meta that is) reads as no
// secrets, so the plan shows secret_env_wo_version as changed and the
// next apply rewrites the Variable and the template. A template at berth's
// destination that berth did not write is reported.
func (r *reader) readSecretEnv(s *Spec, t *api.Task, svc *Service) {
	var found *api.Template
	for _, tmpl := range t.Templates {
		if IsSecretEnvTemplate(tmpl) {
			found = tmpl
			break
		}
	}
	raw, hasMeta := t.Meta[MetaSecretEnvVersion]
	version, err := strconv.Atoi(raw)
	switch {
	case found == nil:
		return // drift (or no secrets): the version reads unset
	case !hasMeta || err != nil:
		r.add("task %q has a template at %q, where berth renders its secrets, without berth's %q meta", t.Name, SecretEnvDestination, MetaSecretEnvVersion)
	case !sameSecretTemplate(found, secretEnvTemplate(SecretEnvPath(s.Name, s.TaskGroup(), t.Name))):
		r.add("task %q: the template at %q, where berth renders its secrets, is not the one berth wrote", t.Name, SecretEnvDestination)
	default:
		svc.SecretEnvVersion = &version
	}
}

// sameSecretTemplate compares what decides what a template renders and
// when; cosmetic fields Nomad fills in (splay, perms, owner, wait) are not
// berth's concern.
func sameSecretTemplate(got, want *api.Template) bool {
	g, w := *got, *want
	g.Canonicalize()
	w.Canonicalize()
	return deref(g.SourcePath) == deref(w.SourcePath) && deref(g.EmbeddedTmpl) == deref(w.EmbeddedTmpl) &&
		deref(g.Envvars) == deref(w.Envvars) && deref(g.ChangeMode) == deref(w.ChangeMode) &&
		deref(g.LeftDelim) == deref(w.LeftDelim) && deref(g.RightDelim) == deref(w.RightDelim) &&
		deref(g.Once) == deref(w.Once) && deref(g.ErrMissingKey) == deref(w.ErrMissingKey)
}

// secretEnv checks what Nomad would refuse only when it is too late: a
// Variable path it does not accept, env names the env file cannot carry,
// a Variable over 64 KiB. Messages name variables and sizes, never values.
func (v *validator) secretEnv(s Spec) {
	for _, name := range sortedKeys(s.Services) {
		svc := s.Services[name]
		if svc.SecretEnvVersion != nil {
			if p := SecretEnvPath(s.Name, s.TaskGroup(), name); !variablePathRE.MatchString(p) {
				v.add(path("services", name, "secret_env_wo_version"), "Secrets cannot be stored for this service",
					fmt.Sprintf("berth keeps the service's secrets in the Nomad Variable %q, and Nomad accepts only Variable paths of "+
						"at most 128 letters, digits, '-', '_', '~' and '/' (this one has %d characters). Rename the instance, its "+
						"group or the service so that nomad/jobs/<name>/<group>/<service> fits.", p, len(p)))
			}
		}
		size := 0
		for _, key := range sortedKeys(svc.SecretEnv) {
			size += len(key) + len(svc.SecretEnv[key])
			at := path("services", name, "secret_env_wo", key)
			switch {
			case !envNameRE.MatchString(key):
				v.add(at, "Invalid secret variable name",
					fmt.Sprintf("%q is not an environment variable name: use letters, digits and '_', not starting with a digit.", key))
			case hasKey(svc.Env, key):
				v.add(at, "Secret variable also in env",
					fmt.Sprintf("%q is set in both env and secret_env_wo; keep it in one of them.", key))
			case strings.ContainsRune(svc.SecretEnv[key], 0):
				v.add(at, "Invalid secret value", fmt.Sprintf("The value of %q contains a NUL character, which no environment variable can hold.", key))
			}
		}
		if size > MaxSecretEnvBytes {
			v.add(path("services", name, "secret_env_wo"), "Secrets too large",
				fmt.Sprintf("The service's secrets take %d bytes (names plus values), and a Nomad Variable holds at most %d (64 KiB).", size, MaxSecretEnvBytes))
		}
	}
}

func hasKey(m map[string]string, k string) bool {
	_, ok := m[k]
	return ok
}
