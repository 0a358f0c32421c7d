package instance

import (
	"encoding/hex"
	"fmt"
	posixpath "path"
	"strconv"
	"strings"
)

// files checks a service's templates and artifacts against Nomad's rules
// (nomad/structs Template.Validate, TaskArtifact.Validate, Task.Validate)
// that the schema cannot express, and keeps berth's own secret template's
// destination free.
func (v *validator) files(name string, svc Service) {
	seen := map[string]int{}
	for i, tm := range svc.Templates {
		at := func(elems ...any) []any { return append(path("services", name, "templates", i), elems...) }
		switch {
		case tm.Data == "" && tm.Source == "":
			v.add(at(), "Template without content",
				"Set data (the template's text) or source (a path to it on the client or in the task directory).")
		case tm.Data != "" && tm.Source != "":
			v.add(at("source"), "Template with data and source",
				"Set either data or source, not both: Nomad's template engine refuses a template with both.")
		}
		dest := posixpath.Clean(tm.Destination)
		switch {
		case tm.Destination == "":
			// The schema requires it; an empty string is still possible.
			v.add(at("destination"), "Missing template destination", `Set destination to a path in the task directory, for example "local/app.conf".`)
		case escapesTaskDir(tm.Destination):
			v.add(at("destination"), "Template destination escapes the allocation",
				fmt.Sprintf("destination %q leads out of the allocation directory; use a path under the task directory, for example \"local/app.conf\".", tm.Destination))
		case dest == SecretEnvDestination:
			v.add(at("destination"), "Reserved template destination",
				fmt.Sprintf("%q is where berth renders the service's write-only secrets; choose another destination.", SecretEnvDestination))
		default:
			if first, dup := seen[dest]; dup {
				v.add(at("destination"), "Duplicate template destination",
					fmt.Sprintf("Template %d already renders to %q; Nomad refuses two templates with one destination.", first, dest))
			} else {
				seen[dest] = i
			}
		}
		v.changeMode(at, tm)
		if tm.Splay != nil && *tm.Splay < 0 {
			v.add(at("splay"), "Invalid template splay", fmt.Sprintf("splay is %s; it must be 0 or more.", *tm.Splay))
		}
		if tm.Perms != nil {
			if _, err := strconv.ParseUint(*tm.Perms, 8, 12); err != nil {
				v.add(at("perms"), "Invalid template perms",
					fmt.Sprintf("perms %q is not a file mode in octal, for example \"0640\".", *tm.Perms))
			}
		}
		if w := tm.Wait; w != nil && w.Min != nil && w.Max != nil && *w.Min > *w.Max {
			v.add(at("wait", "min"), "Invalid template wait",
				fmt.Sprintf("wait.min (%s) must not be longer than wait.max (%s).", *w.Min, *w.Max))
		}
	}
	for i, a := range svc.Artifacts {
		at := func(elems ...any) []any { return append(path("services", name, "artifacts", i), elems...) }
		if a.Source == "" {
			v.add(at("source"), "Missing artifact source", `Set source to the URL to download, for example "https://example.com/app.tar.gz".`)
		}
		if a.Destination != nil && escapesTaskDir(*a.Destination) {
			v.add(at("destination"), "Artifact destination escapes the allocation",
				fmt.Sprintf("destination %q leads out of the allocation directory; use a path under the task directory, for example \"local/\".", *a.Destination))
		}
		if sum, ok := a.Options["checksum"]; ok {
			if err := checkChecksum(sum); err != nil {
				v.add(at("options", "checksum"), "Invalid artifact checksum", err.Error())
			}
		}
	}
}

func (v *validator) changeMode(at func(...any) []any, tm Template) {
	mode := deref(tm.ChangeMode)
	if mode == "" {
		mode = ChangeModeRestart
	}
	if tm.ChangeSignal != nil && mode != ChangeModeSignal {
		v.add(at("change_signal"), "change_signal without change_mode \"signal\"",
			fmt.Sprintf("change_signal is only sent with change_mode = \"signal\" (this template's is %q); remove it or set change_mode = \"signal\".", mode))
	}
	if mode == ChangeModeSignal && deref(tm.Env) {
		v.add(at("change_mode"), "Signal on an env template",
			"A template with env = true feeds the task's environment, which a signal cannot change; use change_mode = \"restart\".")
	}
	switch {
	case mode == ChangeModeScript && tm.ChangeScript == nil:
		v.add(at("change_script"), "Missing change_script",
			`change_mode = "script" runs change_script in the task; set change_script = { command = "/local/reload.sh" }.`)
	case mode != ChangeModeScript && tm.ChangeScript != nil:
		v.add(at("change_script"), "change_script without change_mode \"script\"",
			fmt.Sprintf("change_script only runs with change_mode = \"script\" (this template's is %q); remove it or set change_mode = \"script\".", mode))
	case tm.ChangeScript != nil && tm.ChangeScript.Command == "":
		v.add(at("change_script", "command"), "Missing change_script command", "Set command to the script to run in the task.")
	case tm.ChangeScript != nil && tm.ChangeScript.Timeout != nil && *tm.ChangeScript.Timeout < 0:
		v.add(at("change_script", "timeout"), "Invalid change_script timeout",
			fmt.Sprintf("timeout is %s; it must be 0 or more.", *tm.ChangeScript.Timeout))
	}
}

// escapesTaskDir mirrors Nomad's escapingfs.PathEscapesAllocViaRelative:
// a relative path is joined to the task directory, one level below the
// allocation directory, and may lead anywhere inside the allocation but
// not out of it. An absolute path is inside the task directory too.
func escapesTaskDir(p string) bool {
	joined := posixpath.Join("/alloc/task", p)
	return joined != "/alloc" && !strings.HasPrefix(joined, "/alloc/")
}

// checkChecksum mirrors Nomad's TaskArtifact.validateChecksum: "type:hex"
// with a known type and the digest's length. A value interpolating a
// variable is checked by Nomad when the artifact is downloaded.
func checkChecksum(sum string) error {
	if strings.Contains(sum, "${") {
		return nil
	}
	sum = strings.TrimSpace(sum)
	kind, digest, ok := strings.Cut(sum, ":")
	if sum == "" || !ok || strings.Contains(digest, ":") {
		// Options are sensitive: messages never repeat what was given.
		return fmt.Errorf(`checksum must be "type:value", for example "sha256:%s"`, strings.Repeat("0", 64))
	}
	sizes := map[string]int{"md5": 16, "sha1": 20, "sha256": 32, "sha512": 64}
	size, known := sizes[kind]
	if !known {
		return fmt.Errorf("the checksum's type (before the colon) is not one of md5, sha1, sha256, sha512")
	}
	raw, err := hex.DecodeString(digest)
	if err != nil || len(raw) != size {
		return fmt.Errorf("a %s checksum is %d hexadecimal digits; this one has %d characters after the colon", kind, 2*size, len(digest))
	}
	return nil
}
