package instance

import (
	"maps"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"
)

// withFiles returns s with the app service's templates and artifacts set.
func withFiles(s Spec, tms []Template, arts []Artifact) Spec {
	s.Services = maps.Clone(s.Services)
	app := s.Services["app"]
	app.Templates, app.Artifacts = tms, arts
	s.Services["app"] = app
	return s
}

// everyTemplateField sets every template field, none to Nomad's default.
func everyTemplateField() []Template {
	return []Template{
		{
			Data: `{{ with nomadVar "nomad/jobs/tiny" }}port={{ .port }}{{ end }}`, Destination: "local/app.conf",
			ChangeMode: ptr(ChangeModeSignal), ChangeSignal: ptr("SIGUSR1"), Perms: ptr("0600"), UID: ptr(1000), GID: ptr(0),
			LeftDelimiter: ptr("[["), RightDelimiter: ptr("]]"), Splay: ptr(time.Second), Once: ptr(true),
			Wait: &TemplateWait{Min: ptr(2 * time.Second), Max: ptr(10 * time.Second)}, ErrorOnMissingKey: ptr(true),
		},
		{
			Source: "local/app.env.tpl", Destination: "secrets/app.env", Env: ptr(true),
			ChangeMode: ptr(ChangeModeScript),
			ChangeScript: &ChangeScript{Command: "/local/reload.sh", Args: []string{"-q"}, Timeout: ptr(time.Minute),
				FailOnError: ptr(true)},
		},
		{Data: "static", Destination: "local/noop.txt", ChangeMode: ptr(ChangeModeNoop)},
	}
}

func everyArtifactField() []Artifact {
	return []Artifact{
		{Source: "https://example.com/app.tar.gz", Destination: ptr("local/app"), Mode: ptr("dir"),
			Options: map[string]string{"checksum": "sha256:" + strings.Repeat("ab", 32)},
			Headers: map[string]string{"Authorization": "Bearer t0ken"}, Insecure: ptr(true), Chown: ptr(true)},
		{Source: "https://example.com/tool", Mode: ptr("file")},
	}
}

// TestRoundTripFiles: templates and artifacts read back exactly through
// Nomad's canonicalization, set fields as set and unset ones unset; on
// import (no prior spec) Nomad's defaults read as unset too.
func TestRoundTripFiles(t *testing.T) {
	minimal := []Template{{Data: "x", Destination: "local/x"}}
	minimalArt := []Artifact{{Source: "https://example.com/a.zip"}, {Source: "https://example.com/b.bin", Mode: ptr("file")}}
	defaultsSet := []Template{{Data: "x", Destination: "local/x", ChangeMode: ptr("restart"), Splay: ptr(DefaultTemplateSplay),
		Perms: ptr(DefaultTemplatePerms), Env: ptr(false), LeftDelimiter: ptr("{{"), RightDelimiter: ptr("}}")}}
	defaultArtSet := []Artifact{{Source: "https://example.com/a.zip", Destination: ptr("local/"), Mode: ptr("any"),
		Insecure: ptr(false), Chown: ptr(false)}}
	for name, spec := range map[string]Spec{
		"every field":   withFiles(minimalSpec(), everyTemplateField(), everyArtifactField()),
		"minimal":       withFiles(minimalSpec(), minimal, minimalArt),
		"defaults set":  withFiles(minimalSpec(), defaultsSet, defaultArtSet),
		"signal unset":  withFiles(minimalSpec(), []Template{{Data: "x", Destination: "local/x", ChangeMode: ptr("signal")}}, nil),
		"script unsets": withFiles(minimalSpec(), []Template{{Data: "x", Destination: "local/x", ChangeMode: ptr("script"), ChangeScript: &ChangeScript{Command: "/bin/true"}}}, nil),
	} {
		t.Run(name, func(t *testing.T) {
			if errs := Validate(spec); len(errs) > 0 {
				t.Fatalf("test spec is invalid: %+v", errs)
			}
			job := simulateNomad(t, BuildJob(spec, 1))
			got, unsupported := readBack(job, spec)
			if len(unsupported) > 0 {
				t.Errorf("unsupported = %q", unsupported)
			}
			if want := Normalize(spec); !reflect.DeepEqual(got, want) {
				t.Errorf("read back differs: %q\ngot  %+v\nwant %+v", Diff(want, got), got.Services["app"].Templates, want.Services["app"].Templates)
			}
			// Imported, a field set to Nomad's default reads as unset, any
			// other as set.
			imported, _ := readBack(job, Spec{})
			if name == "defaults set" {
				spec = withFiles(spec, minimal, []Artifact{{Source: "https://example.com/a.zip"}})
			}
			if d := Diff(spec, imported); len(d) > 0 {
				t.Errorf("imported differs: %q", d)
			}
		})
	}
}

// TestFilesDrift: a change made in Nomad to any field, a default one
// included, is a difference, and headers are not printed.
func TestFilesDrift(t *testing.T) {
	spec := withFiles(minimalSpec(), []Template{{Data: "x", Destination: "local/x"}}, everyArtifactField())
	for name, change := range map[string]func(*api.Task){
		"data":  func(t *api.Task) { t.Templates[0].EmbeddedTmpl = ptr("y") },
		"splay": func(t *api.Task) { t.Templates[0].Splay = ptr(time.Minute) },
		"perms": func(t *api.Task) { t.Templates[0].Perms = ptr("0600") },
		"added": func(t *api.Task) {
			t.Templates = append(t.Templates, &api.Template{EmbeddedTmpl: ptr("z"), DestPath: ptr("local/z")})
		},
		"headers":    func(t *api.Task) { t.Artifacts[0].GetterHeaders["Authorization"] = "Bearer other" },
		"art mode":   func(t *api.Task) { t.Artifacts[1].GetterMode = ptr("any") },
		"art chown":  func(t *api.Task) { t.Artifacts[1].Chown = true },
		"art source": func(t *api.Task) { t.Artifacts[1].GetterSource = ptr("https://example.com/other") },
	} {
		t.Run(name, func(t *testing.T) {
			job := simulateNomad(t, BuildJob(spec, 1))
			change(findTask(t, job, "app"))
			got, _ := readBack(simulateNomad(t, job), spec)
			d := Diff(spec, got)
			if len(d) == 0 {
				t.Fatalf("change not seen")
			}
			if joined := strings.Join(d, "\n"); strings.Contains(joined, "t0ken") || strings.Contains(joined, "Bearer") {
				t.Errorf("Diff prints headers: %q", d)
			}
		})
	}
}

// TestReadFilesSkipsBerthsSecretTemplate: the secret template berth adds
// itself is not one of the user's.
func TestReadFilesSkipsBerthsSecretTemplate(t *testing.T) {
	spec := withFiles(minimalSpec(), []Template{{Data: "x", Destination: "local/x"}}, nil)
	svc := spec.Services["app"]
	svc.SecretEnvVersion = ptr(1) // BuildJob adds berth's secret template
	spec.Services["app"] = svc
	job := BuildJob(spec, 1)
	if n := len(findTask(t, job, "app").Templates); n != 2 {
		t.Fatalf("the task has %d templates, want the user's and berth's", n)
	}
	got, unsupported := readBack(simulateNomad(t, job), spec)
	if len(unsupported) > 0 || len(Diff(spec, got)) > 0 {
		t.Errorf("unsupported %q, diff %q", unsupported, Diff(spec, got))
	}
}

func TestReadFilesUnsupported(t *testing.T) {
	spec := withFiles(minimalSpec(), []Template{{Data: "x", Destination: "local/x"}}, nil)
	for name, c := range map[string]struct {
		change func(*api.Template)
		want   string
	}{
		"vault_grace":     {func(tm *api.Template) { tm.VaultGrace = ptr(time.Second) }, "vault_grace"},
		"stray signal":    {func(tm *api.Template) { tm.ChangeSignal = ptr("SIGUSR1") }, "change_signal"},
		"stray script":    {func(tm *api.Template) { tm.ChangeScript = &api.ChangeScript{Command: ptr("/x")} }, "change_script"},
		"data and source": {func(tm *api.Template) { tm.SourcePath = ptr("local/y") }, "both"},
	} {
		t.Run(name, func(t *testing.T) {
			job := BuildJob(spec, 1)
			c.change(findTask(t, job, "app").Templates[0])
			_, unsupported := SpecFromJob(simulateNomad(t, job))
			if len(unsupported) != 1 || !strings.Contains(unsupported[0], c.want) {
				t.Errorf("unsupported = %q, want one about %s", unsupported, c.want)
			}
		})
	}
}

func TestBuildFilesSendsOnlySetFields(t *testing.T) {
	spec := withFiles(minimalSpec(), []Template{{Data: "x", Destination: "local/x"}}, []Artifact{{Source: "https://e/x"}})
	task := BuildJob(spec, 1).TaskGroups[0].Tasks[0]
	if want := []*api.Template{{EmbeddedTmpl: ptr("x"), DestPath: ptr("local/x")}}; !reflect.DeepEqual(task.Templates, want) {
		t.Errorf("templates = %+v", task.Templates[0])
	}
	if want := []*api.TaskArtifact{{GetterSource: ptr("https://e/x")}}; !reflect.DeepEqual(task.Artifacts, want) {
		t.Errorf("artifacts = %+v", task.Artifacts[0])
	}
	if task := BuildJob(minimalSpec(), 1).TaskGroups[0].Tasks[0]; task.Templates != nil || task.Artifacts != nil {
		t.Errorf("no files sent as %v %v", task.Templates, task.Artifacts)
	}
}

func TestValidateFiles(t *testing.T) {
	tm := func(f func(*Template)) Spec {
		x := Template{Data: "x", Destination: "local/x"}
		f(&x)
		return withFiles(minimalSpec(), []Template{{Data: "a", Destination: "local/a"}, x}, nil)
	}
	art := func(f func(*Artifact)) Spec {
		a := Artifact{Source: "https://e/x"}
		f(&a)
		return withFiles(minimalSpec(), nil, []Artifact{a})
	}
	at := func(elems ...any) []any { return append([]any{"services", "app", "templates", 1}, elems...) }
	atArt := func(elems ...any) []any { return append([]any{"services", "app", "artifacts", 0}, elems...) }
	cases := map[string]struct {
		spec Spec
		path []any
		want string
	}{
		"no content":         {tm(func(t *Template) { t.Data = "" }), at(), "without content"},
		"data and source":    {tm(func(t *Template) { t.Source = "local/t" }), at("source"), "data and source"},
		"escapes":            {tm(func(t *Template) { t.Destination = "../../etc/passwd" }), at("destination"), "escapes"},
		"reserved":           {tm(func(t *Template) { t.Destination = "./secrets/berth-secret.env" }), at("destination"), "Reserved"},
		"duplicate":          {tm(func(t *Template) { t.Destination = "local/./a" }), at("destination"), "Duplicate"},
		"stray signal":       {tm(func(t *Template) { t.ChangeSignal = ptr("SIGHUP") }), at("change_signal"), "change_signal without"},
		"signal env":         {tm(func(t *Template) { t.ChangeMode, t.Env = ptr("signal"), ptr(true) }), at("change_mode"), "env template"},
		"script missing":     {tm(func(t *Template) { t.ChangeMode = ptr("script") }), at("change_script"), "Missing change_script"},
		"stray script":       {tm(func(t *Template) { t.ChangeScript = &ChangeScript{Command: "/x"} }), at("change_script"), "without change_mode"},
		"script no command":  {tm(func(t *Template) { t.ChangeMode, t.ChangeScript = ptr("script"), &ChangeScript{} }), at("change_script", "command"), "command"},
		"negative splay":     {tm(func(t *Template) { t.Splay = ptr(-time.Second) }), at("splay"), "splay"},
		"perms not octal":    {tm(func(t *Template) { t.Perms = ptr("0999") }), at("perms"), "octal"},
		"wait inverted":      {tm(func(t *Template) { t.Wait = &TemplateWait{Min: ptr(time.Minute), Max: ptr(time.Second)} }), at("wait", "min"), "wait"},
		"artifact escapes":   {art(func(a *Artifact) { a.Destination = ptr("/../../x") }), atArt("destination"), "escapes"},
		"checksum no type":   {art(func(a *Artifact) { a.Options = map[string]string{"checksum": "abc"} }), atArt("options", "checksum"), "type:value"},
		"checksum bad type":  {art(func(a *Artifact) { a.Options = map[string]string{"checksum": "crc:ab"} }), atArt("options", "checksum"), "not one of md5"},
		"checksum short":     {art(func(a *Artifact) { a.Options = map[string]string{"checksum": "sha256:abcd"} }), atArt("options", "checksum"), "64 hexadecimal"},
		"artifact no source": {art(func(a *Artifact) { a.Source = "" }), atArt("source"), "source"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			errs := Validate(c.spec)
			if len(errs) != 1 {
				t.Fatalf("errors = %+v, want exactly one", errs)
			}
			if !reflect.DeepEqual(errs[0].Path, c.path) || !strings.Contains(errs[0].Summary+" "+errs[0].Detail, c.want) {
				t.Errorf("error = %+v, want one at %v about %q", errs[0], c.path, c.want)
			}
		})
	}
	for name, s := range map[string]Spec{
		"every field":        withFiles(minimalSpec(), everyTemplateField(), everyArtifactField()),
		"inside allocation":  tm(func(t *Template) { t.Destination = "../alloc/shared.conf" }),
		"checksum from var":  art(func(a *Artifact) { a.Options = map[string]string{"checksum": "${NOMAD_META_sum}"} }),
		"signal default sig": tm(func(t *Template) { t.ChangeMode = ptr("signal") }),
	} {
		if errs := Validate(s); len(errs) > 0 {
			t.Errorf("%s: errors %+v, want none", name, errs)
		}
	}
}

// TestDiffNamesTemplateFields: a template's difference is one line for the
// list, with fields by their attribute names, durations as Go writes them
// and headers by their keys alone.
func TestDiffNamesTemplateFields(t *testing.T) {
	a := withFiles(minimalSpec(), []Template{{Data: "x", Destination: "local/x", Splay: ptr(time.Second),
		ChangeMode: ptr("script"), ChangeScript: &ChangeScript{Command: "/r"}}}, []Artifact{{Source: "s", Headers: map[string]string{"A": "secret"}}})
	b := withFiles(minimalSpec(), []Template{{Data: "y", Destination: "local/x", Splay: ptr(time.Second),
		ChangeMode: ptr("script"), ChangeScript: &ChangeScript{Command: "/r"}}}, []Artifact{{Source: "s", Headers: map[string]string{"A": "other"}}})
	d := Diff(a, b)
	if len(d) != 2 || !strings.HasPrefix(d[0], "services.app.templates: ") || !strings.HasPrefix(d[1], "services.app.artifacts: ") {
		t.Fatalf("Diff = %q", d)
	}
	for _, want := range []string{`"data":"x"`, `"data":"y"`, `"splay":"1s"`, `"change_script":{"command":"/r","args":null,"timeout":null`} {
		if !strings.Contains(d[0], want) {
			t.Errorf("Diff %q lacks %s", d[0], want)
		}
	}
	if strings.Contains(d[1], "secret") || strings.Contains(d[1], "other") || !strings.Contains(d[1], `"headers":{"A":"(sensitive value)"}`) ||
		!strings.HasSuffix(d[1], "(a sensitive value differs)") {
		t.Errorf("Diff %q shows headers, or not that they differ", d[1])
	}
}

// Artifact options are sensitive: a validation message never repeats them.
func TestValidateChecksumHidesValue(t *testing.T) {
	for _, sum := range []string{"s3cr3t-no-type", "s3cr3t:ab", "sha256:s3cr3t"} {
		errs := Validate(withFiles(minimalSpec(), nil, []Artifact{{Source: "s", Options: map[string]string{"checksum": sum}}}))
		if len(errs) != 1 {
			t.Fatalf("%s: errors %+v, want one", sum, errs)
		}
		if text := errs[0].Summary + " " + errs[0].Detail; strings.Contains(text, "s3cr3t") {
			t.Errorf("%s: the message repeats the value: %s", sum, text)
		}
	}
}
