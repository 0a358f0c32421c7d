package instance

import (
	posixpath "path"
	"slices"
	"time"

	"github.com/hashicorp/nomad/api"
)

// Templates and artifacts: the files a service's task gets before it
// starts. Templates are rendered by Nomad (consul-template), which reads
// Nomad Variables and service discovery for them; berth passes their text
// through untouched. Artifacts are downloaded by Nomad's client (go-getter).
//
// Both are lists, kept in the order given, as Nomad keeps them. Every field
// Nomad fills in when it is left out (change_mode, splay, perms, the
// delimiters, an artifact's mode and destination, ...) is a pointer: nil is
// "not set, Nomad's default", and absorbFileDefaults turns what Nomad filled
// in back into nil when the previous spec did not set it, so an unset field
// stays null in state and any other value shows as a difference.

// Template is one of a service's templates (Nomad's `template` block).
type Template struct {
	// Data is the template's text; Source a path to it on the client (or
	// in the task directory, e.g. from an artifact). Exactly one is set.
	Data        string `tf:"data"`
	Source      string `tf:"source"`
	Destination string `tf:"destination"`
	// ChangeMode is one of TemplateChangeModes; nil is Nomad's "restart".
	ChangeMode *string `tf:"change_mode"`
	// ChangeSignal is only for change_mode "signal"; nil is Nomad's SIGHUP.
	ChangeSignal *string `tf:"change_signal"`
	// ChangeScript is required by change_mode "script" and only for it.
	ChangeScript *ChangeScript `tf:"change_script"`
	// Env makes the rendered file an env file read into the task's
	// environment; nil is false.
	Env *bool `tf:"env"`
	// Perms is the file mode in octal; nil is "0644".
	Perms *string `tf:"perms"`
	// UID and GID own the rendered file; nil is the Nomad client's choice.
	UID *int `tf:"uid"`
	GID *int `tf:"gid"`
	// LeftDelimiter and RightDelimiter; nil are "{{" and "}}".
	LeftDelimiter  *string `tf:"left_delimiter"`
	RightDelimiter *string `tf:"right_delimiter"`
	// Splay is the random wait before a change is acted on; nil is 5s.
	Splay *time.Duration `tf:"splay"`
	// Once renders the template once only; nil is false.
	Once *bool `tf:"once"`
	// Wait bounds how long a change may settle before rendering; nil is
	// the Nomad client's template configuration.
	Wait *TemplateWait `tf:"wait"`
	// ErrorOnMissingKey fails rendering on a missing map key; nil is false.
	ErrorOnMissingKey *bool `tf:"error_on_missing_key"`
}

// ChangeScript is the script change_mode "script" runs in the task.
type ChangeScript struct {
	Command string   `tf:"command"`
	Args    []string `tf:"args"`
	// Timeout is nil for Nomad's 5s; FailOnError nil for false.
	Timeout     *time.Duration `tf:"timeout"`
	FailOnError *bool          `tf:"fail_on_error"`
}

// TemplateWait is a template's wait block; each bound nil is unset.
type TemplateWait struct {
	Min *time.Duration `tf:"min"`
	Max *time.Duration `tf:"max"`
}

// Artifact is one of a service's artifacts (Nomad's `artifact` block).
type Artifact struct {
	Source string `tf:"source"`
	// Destination is relative to the task directory; nil is Nomad's
	// "local/" ("local/<file name>" in mode "file").
	Destination *string `tf:"destination"`
	// Mode is one of ArtifactModes; nil is "any".
	Mode *string `tf:"mode"`
	// Options (a git SSH key, cloud credentials) and Headers may carry
	// credentials: Diff does not print their values.
	Options map[string]string `tf:"options" diff:"sensitive"`
	Headers map[string]string `tf:"headers" diff:"sensitive"`
	// Insecure and Chown are nil for false.
	Insecure *bool `tf:"insecure"`
	Chown    *bool `tf:"chown"`
}

// Template change modes (nomad/structs TemplateChangeMode*).
const (
	ChangeModeRestart = "restart"
	ChangeModeSignal  = "signal"
	ChangeModeNoop    = "noop"
	ChangeModeScript  = "script"
)

// TemplateChangeModes lists what a template's change_mode may be.
func TemplateChangeModes() []string {
	return []string{ChangeModeRestart, ChangeModeSignal, ChangeModeNoop, ChangeModeScript}
}

// ArtifactModes lists what an artifact's mode may be.
func ArtifactModes() []string { return []string{"any", "file", "dir"} }

// Nomad's defaults for the template and artifact fields (api/tasks.go
// Template.Canonicalize, ChangeScript.Canonicalize, TaskArtifact.Canonicalize).
const (
	DefaultTemplateSplay   = 5 * time.Second
	DefaultTemplatePerms   = "0644"
	DefaultTemplateSignal  = "SIGHUP"
	DefaultLeftDelimiter   = "{{"
	DefaultRightDelimiter  = "}}"
	DefaultScriptTimeout   = 5 * time.Second
	DefaultArtifactMode    = "any"
	defaultArtifactDirDest = "local/"
)

// DefaultArtifactDestination is where Nomad puts an artifact of the given
// source and mode when its destination is unset.
func DefaultArtifactDestination(source, mode string) string {
	if mode == "file" {
		return posixpath.Join("local", posixpath.Base(source))
	}
	return defaultArtifactDirDest
}

// buildFiles appends the service's templates and artifacts to the task,
// after anything berth put there itself (its secret template).
func buildFiles(svc Service, t *api.Task) {
	for _, tm := range svc.Templates {
		at := &api.Template{
			DestPath: ptr(tm.Destination), ChangeMode: clonePtr(tm.ChangeMode), ChangeSignal: clonePtr(tm.ChangeSignal),
			Envvars: clonePtr(tm.Env), Perms: clonePtr(tm.Perms), Uid: clonePtr(tm.UID), Gid: clonePtr(tm.GID),
			LeftDelim: clonePtr(tm.LeftDelimiter), RightDelim: clonePtr(tm.RightDelimiter), Splay: clonePtr(tm.Splay),
			Once: clonePtr(tm.Once), ErrMissingKey: clonePtr(tm.ErrorOnMissingKey),
		}
		if tm.Data != "" {
			at.EmbeddedTmpl = ptr(tm.Data)
		}
		if tm.Source != "" {
			at.SourcePath = ptr(tm.Source)
		}
		if cs := tm.ChangeScript; cs != nil {
			at.ChangeScript = &api.ChangeScript{Command: ptr(cs.Command), Args: cloneSlice(cs.Args),
				Timeout: clonePtr(cs.Timeout), FailOnError: clonePtr(cs.FailOnError)}
		}
		if w := tm.Wait; w != nil {
			at.Wait = &api.WaitConfig{Min: clonePtr(w.Min), Max: clonePtr(w.Max)}
		}
		t.Templates = append(t.Templates, at)
	}
	for _, a := range svc.Artifacts {
		t.Artifacts = append(t.Artifacts, &api.TaskArtifact{
			GetterSource: ptr(a.Source), RelativeDest: clonePtr(a.Destination), GetterMode: clonePtr(a.Mode),
			GetterOptions: cloneMap(a.Options), GetterHeaders: cloneMap(a.Headers),
			GetterInsecure: clonePtr(a.Insecure), Chown: deref(a.Chown),
		})
	}
}

// isBerthTemplate reports whether tm is berth's own secret template, which
// is not one of the user's.
func isBerthTemplate(tm *api.Template) bool {
	return posixpath.Clean(deref(tm.DestPath)) == SecretEnvDestination
}

// readFiles reads the task's templates (but berth's own) and artifacts in
// full, Nomad's defaults included, and reports what berth cannot express.
func (r *reader) readFiles(svc *Service, t *api.Task) {
	svc.Templates, svc.Artifacts = nil, nil
	for i, tm := range t.Templates {
		if tm == nil || isBerthTemplate(tm) {
			continue
		}
		out := Template{
			Data: deref(tm.EmbeddedTmpl), Source: deref(tm.SourcePath), Destination: deref(tm.DestPath),
			ChangeMode: clonePtr(tm.ChangeMode), ChangeSignal: clonePtr(tm.ChangeSignal), Env: clonePtr(tm.Envvars),
			Perms: clonePtr(tm.Perms), UID: clonePtr(tm.Uid), GID: clonePtr(tm.Gid),
			LeftDelimiter: clonePtr(tm.LeftDelim), RightDelimiter: clonePtr(tm.RightDelim), Splay: clonePtr(tm.Splay),
			Once: clonePtr(tm.Once), ErrorOnMissingKey: clonePtr(tm.ErrMissingKey),
		}
		if cs := tm.ChangeScript; cs != nil {
			out.ChangeScript = &ChangeScript{Command: deref(cs.Command), Args: cloneSlice(cs.Args),
				Timeout: clonePtr(cs.Timeout), FailOnError: clonePtr(cs.FailOnError)}
		}
		if w := tm.Wait; w != nil {
			out.Wait = &TemplateWait{Min: clonePtr(w.Min), Max: clonePtr(w.Max)}
		}
		who := func(what string) { r.add("task %q template %d (%s) %s", t.Name, i+1, out.Destination, what) }
		if deref(tm.VaultGrace) != 0 {
			who("sets vault_grace, which Nomad ignores")
		}
		mode := deref(out.ChangeMode)
		if deref(out.ChangeSignal) != "" && mode != ChangeModeSignal {
			who("sets a change_signal without change_mode \"signal\"")
		}
		if out.ChangeScript != nil && mode != ChangeModeScript {
			who("sets a change_script without change_mode \"script\"")
		}
		if out.Data != "" && out.Source != "" {
			who("sets both data and source")
		}
		svc.Templates = append(svc.Templates, out)
	}
	for _, a := range t.Artifacts {
		if a == nil {
			continue
		}
		out := Artifact{
			Source: deref(a.GetterSource), Destination: clonePtr(a.RelativeDest), Mode: clonePtr(a.GetterMode),
			Options: cloneMap(a.GetterOptions), Headers: cloneMap(a.GetterHeaders),
			Insecure: clonePtr(a.GetterInsecure), Chown: ptr(a.Chown),
		}
		svc.Artifacts = append(svc.Artifacts, out)
	}
	svc.Templates, svc.Artifacts = normalizeTemplates(svc.Templates), normalizeArtifacts(svc.Artifacts)
}

// normalizeTemplates copies templates into Normalize's form: empty lists
// nil, and nothing shared with the input.
func normalizeTemplates(in []Template) []Template {
	if len(in) == 0 {
		return nil
	}
	out := slices.Clone(in)
	for i := range out {
		if cs := out[i].ChangeScript; cs != nil {
			c := *cs
			c.Args = cloneSlice(c.Args)
			out[i].ChangeScript = &c
		}
		if w := out[i].Wait; w != nil {
			c := *w
			out[i].Wait = &c
		}
	}
	return out
}

// normalizeArtifacts copies artifacts into Normalize's form.
func normalizeArtifacts(in []Artifact) []Artifact {
	if len(in) == 0 {
		return nil
	}
	out := slices.Clone(in)
	for i := range out {
		out[i].Options, out[i].Headers = cloneMap(out[i].Options), cloneMap(out[i].Headers)
	}
	return out
}

// absorbFileDefaults sets each template and artifact field of read that
// the same element of prior (by position; none for a new one) leaves unset
// back to nil when Nomad holds its default there.
func absorbFileDefaults(read, prior Service) Service {
	if len(read.Templates) > 0 {
		read.Templates = slices.Clone(read.Templates)
	}
	for i := range read.Templates {
		var was Template
		if i < len(prior.Templates) {
			was = prior.Templates[i]
		}
		read.Templates[i] = absorbTemplate(read.Templates[i], was)
	}
	if len(read.Artifacts) > 0 {
		read.Artifacts = slices.Clone(read.Artifacts)
	}
	for i := range read.Artifacts {
		var was Artifact
		if i < len(prior.Artifacts) {
			was = prior.Artifacts[i]
		}
		a := read.Artifacts[i]
		a.Destination = absorb(a.Destination, was.Destination, DefaultArtifactDestination(a.Source, deref(a.Mode)))
		a.Mode = absorb(a.Mode, was.Mode, DefaultArtifactMode)
		a.Insecure = absorb(a.Insecure, was.Insecure, false)
		a.Chown = absorb(a.Chown, was.Chown, false)
		read.Artifacts[i] = a
	}
	return read
}

func absorbTemplate(tm, was Template) Template {
	signal := ""
	if deref(tm.ChangeMode) == ChangeModeSignal {
		signal = DefaultTemplateSignal
	}
	tm.ChangeSignal = absorb(tm.ChangeSignal, was.ChangeSignal, signal)
	tm.ChangeMode = absorb(tm.ChangeMode, was.ChangeMode, ChangeModeRestart)
	tm.Env = absorb(tm.Env, was.Env, false)
	tm.Perms = absorb(tm.Perms, was.Perms, DefaultTemplatePerms)
	tm.LeftDelimiter = absorb(tm.LeftDelimiter, was.LeftDelimiter, DefaultLeftDelimiter)
	tm.RightDelimiter = absorb(tm.RightDelimiter, was.RightDelimiter, DefaultRightDelimiter)
	tm.Splay = absorb(tm.Splay, was.Splay, DefaultTemplateSplay)
	tm.Once = absorb(tm.Once, was.Once, false)
	tm.ErrorOnMissingKey = absorb(tm.ErrorOnMissingKey, was.ErrorOnMissingKey, false)
	if cs := tm.ChangeScript; cs != nil {
		var prev ChangeScript
		if was.ChangeScript != nil {
			prev = *was.ChangeScript
		}
		c := *cs
		c.Timeout = absorb(c.Timeout, prev.Timeout, DefaultScriptTimeout)
		c.FailOnError = absorb(c.FailOnError, prev.FailOnError, false)
		tm.ChangeScript = &c
	}
	return tm
}
