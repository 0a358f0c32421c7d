package instance

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/hashicorp/go-envparse"
	"github.com/hashicorp/nomad/api"
)

func secretSpec() Spec {
	s := minimalSpec()
	svc := s.Services["app"]
	svc.SecretEnvVersion = ptr(3)
	s.Services["app"] = svc
	return s
}

func TestSecretEnvBuildAndReadBack(t *testing.T) {
	s := secretSpec()
	job := BuildJob(s, 1)
	task := findTask(t, job, "app")
	if len(task.Templates) != 1 || !IsSecretEnvTemplate(task.Templates[0]) {
		t.Fatalf("templates = %+v, want berth's secret template", task.Templates)
	}
	tmpl := task.Templates[0]
	if !*tmpl.Envvars || !strings.Contains(*tmpl.EmbeddedTmpl, `nomadVar "nomad/jobs/tiny/app/app"`) {
		t.Errorf("template = %q (env %v), want an env template reading nomad/jobs/tiny/app/app", *tmpl.EmbeddedTmpl, *tmpl.Envvars)
	}
	if task.Meta[MetaSecretEnvVersion] != "3" {
		t.Errorf("meta = %v, want the version", task.Meta)
	}

	got, unsupported := readBack(simulateNomad(t, job), s)
	if len(unsupported) > 0 {
		t.Errorf("unsupported = %q", unsupported)
	}
	if d := Diff(s, got); len(d) > 0 {
		t.Errorf("Diff(input, read back) = %q, want none", d)
	}
	if v := got.Services["app"].SecretEnvVersion; v == nil || *v != 3 {
		t.Errorf("version read back = %v, want 3", v)
	}
	if p := got.Services["app"].Policies; p != nil && len(p.Meta) > 0 {
		t.Errorf("berth's version meta shows in the user's task meta: %v", got.Services["app"].Policies.Meta)
	}
}

func TestSecretEnvDriftAndForeignTemplates(t *testing.T) {
	s := secretSpec()
	tests := []struct {
		name            string
		change          func(*api.Task)
		wantVersion     bool
		wantUnsupported string
	}{
		{"template removed", func(t *api.Task) { t.Templates = nil }, false, ""},
		{"meta removed", func(t *api.Task) { delete(t.Meta, MetaSecretEnvVersion) }, false, "without berth's"},
		{"template data altered", func(t *api.Task) { t.Templates[0].EmbeddedTmpl = ptr("X=1\n") }, false, "is not the one berth wrote"},
		{"template no longer env", func(t *api.Task) { t.Templates[0].Envvars = ptr(false) }, false, "is not the one berth wrote"},
		{"version meta bumped", func(t *api.Task) { t.Meta[MetaSecretEnvVersion] = "4" }, true, ""},
		{"splay changed", func(t *api.Task) { t.Templates[0].Splay = nil }, true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			job := simulateNomad(t, BuildJob(s, 1))
			tt.change(findTask(t, job, "app"))
			got, unsupported := readBack(job, s)
			if tt.wantVersion != (got.Services["app"].SecretEnvVersion != nil) {
				t.Errorf("version = %v, want set %v", got.Services["app"].SecretEnvVersion, tt.wantVersion)
			}
			if !tt.wantVersion || tt.name == "version meta bumped" {
				if len(Diff(s, got)) == 0 {
					t.Error("Diff shows no change")
				}
			}
			switch {
			case tt.wantUnsupported == "" && len(unsupported) > 0:
				t.Errorf("unsupported = %q, want none", unsupported)
			case tt.wantUnsupported != "" && !strings.Contains(strings.Join(unsupported, "\n"), tt.wantUnsupported):
				t.Errorf("unsupported = %q, want %q", unsupported, tt.wantUnsupported)
			}
		})
	}

	// A hand-written job's own template at the destination: reported.
	plain := minimalSpec()
	job := simulateNomad(t, BuildJob(plain, 1))
	findTask(t, job, "app").Templates = []*api.Template{{DestPath: ptr(SecretEnvDestination), EmbeddedTmpl: ptr("A=1\n")}}
	if _, unsupported := readBack(job, plain); len(unsupported) != 1 {
		t.Errorf("unsupported = %q, want the foreign template reported", unsupported)
	}
	// Another template is the user's; berth's own is not.
	job = simulateNomad(t, BuildJob(s, 1))
	task := findTask(t, job, "app")
	task.Templates = append(task.Templates, &api.Template{DestPath: ptr("local/x"), EmbeddedTmpl: ptr("x")})
	got, unsupported := readBack(job, s)
	if len(unsupported) > 0 || len(got.Services["app"].Templates) != 1 || got.Services["app"].SecretEnvVersion == nil {
		t.Errorf("read back templates %+v, version %v, unsupported %q; want the user's template alone and the version",
			got.Services["app"].Templates, got.Services["app"].SecretEnvVersion, unsupported)
	}
}

// TestSecretEnvValuesSurviveTheEnvFile checks the quoting pair berth
// relies on: the template writes each value with toJSON (encoding/json,
// trimmed), and Nomad reads the env file with go-envparse.
func TestSecretEnvValuesSurviveTheEnvFile(t *testing.T) {
	values := map[string]string{
		"SPACE_AND_QUOTES": `pa ss "word" 'x'`,
		"NEWLINES":         "line1\nline2\r\n",
		"BACKSLASH":        `C:\path\n\t`,
		"SHELLISH":         "$HOME ${X} `id` # not a comment = ;",
		"HTML":             "<a href=\"x\">&amp;</a>",
		"UNICODE":          "héllo ✓ 𝄞 \u2028",
		"EMPTY":            "",
	}
	var file strings.Builder
	for _, k := range sortedKeys(values) {
		raw, err := json.Marshal(values[k])
		if err != nil {
			t.Fatal(err)
		}
		file.WriteString(k + "=" + strings.TrimSpace(string(raw)) + "\n")
	}
	got, err := envparse.Parse(strings.NewReader(file.String()))
	if err != nil {
		t.Fatalf("the env file does not parse: %v", err)
	}
	if !reflect.DeepEqual(got, values) {
		t.Errorf("values changed through the env file:\ngot  %q\nwant %q", got, values)
	}
}

func TestSecretEnvValidate(t *testing.T) {
	withSecrets := func(name string, env, secrets map[string]string) Spec {
		s := secretSpec()
		s.Name = name
		svc := s.Services["app"]
		svc.Env, svc.SecretEnv = env, secrets
		s.Services["app"] = svc
		return s
	}
	tests := []struct {
		name    string
		spec    Spec
		path    string
		summary string
	}{
		{"valid", withSecrets("web", nil, map[string]string{"TOKEN": "s3cret", "_X1": "y"}), "", ""},
		{"dot in the name", withSecrets("web.v1", nil, map[string]string{"TOKEN": "s3cret"}),
			"services app secret_env_wo_version", "Secrets cannot be stored for this service"},
		{"path too long", withSecrets(strings.Repeat("w", 120), nil, map[string]string{"TOKEN": "s3cret"}),
			"services app secret_env_wo_version", "Secrets cannot be stored for this service"},
		{"bad env name", withSecrets("web", nil, map[string]string{"A-B": "s3cret"}),
			"services app secret_env_wo A-B", "Invalid secret variable name"},
		{"leading digit", withSecrets("web", nil, map[string]string{"1A": "s3cret"}),
			"services app secret_env_wo 1A", "Invalid secret variable name"},
		{"also in env", withSecrets("web", map[string]string{"TOKEN": "x"}, map[string]string{"TOKEN": "s3cret"}),
			"services app secret_env_wo TOKEN", "Secret variable also in env"},
		{"NUL", withSecrets("web", nil, map[string]string{"TOKEN": "s3\x00cret"}),
			"services app secret_env_wo TOKEN", "Invalid secret value"},
		{"too large", withSecrets("web", nil, map[string]string{"BIG": strings.Repeat("x", MaxSecretEnvBytes-2)}),
			"services app secret_env_wo", "Secrets too large"},
		{"exactly 64 KiB", withSecrets("web", nil, map[string]string{"BIG": strings.Repeat("x", MaxSecretEnvBytes-3)}), "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			errs := Validate(tt.spec)
			if tt.summary == "" {
				if len(errs) > 0 {
					t.Fatalf("errors = %+v, want none", errs)
				}
				return
			}
			if len(errs) != 1 {
				t.Fatalf("errors = %+v, want exactly one", errs)
			}
			if got := strings.Trim(strings.Join(strings.Fields(strings.Trim(fmtPath(errs[0].Path), "[]")), " "), " "); got != tt.path || errs[0].Summary != tt.summary {
				t.Errorf("error = %q at %q, want %q at %q", errs[0].Summary, got, tt.summary, tt.path)
			}
			for _, v := range tt.spec.Services["app"].SecretEnv {
				if len(v) > 3 && (strings.Contains(errs[0].Detail, v) || strings.Contains(errs[0].Summary, v)) {
					t.Errorf("the error shows a secret value: %q", errs[0].Detail)
				}
			}
		})
	}
}

func fmtPath(p []any) string {
	parts := make([]string, len(p))
	for i, e := range p {
		parts[i], _ = e.(string)
	}
	return strings.Join(parts, " ")
}

// TestDiffNeverShowsSecrets: Diff's lines end up in error messages.
func TestDiffNeverShowsSecrets(t *testing.T) {
	a, b := secretSpec(), secretSpec()
	svc := b.Services["app"]
	svc.SecretEnv = map[string]string{"TOKEN": "hunter2-secret"}
	b.Services["app"] = svc
	if d := Diff(a, b); len(d) > 0 {
		t.Errorf("Diff = %q, want none: secret values are never compared or shown", d)
	}
}
