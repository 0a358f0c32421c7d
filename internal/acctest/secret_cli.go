package acctest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// SecretCLIHeader opens a main.tf for a secret test: berth from the
// dev_overrides TraceCLIEnv sets up, and an ephemeral variable "secret"
// that the test sets through TF_VAR_secret.
const SecretCLIHeader = `
terraform {
  required_providers {
    berth = { source = "berthhq/berth" }
  }
}
variable "secret" {
  type      = string
  ephemeral = true
}
`

// SecretCLI runs the terraform CLI at TRACE (TraceCLIEnv) for a test that
// then searches every output for its secrets: it keeps what each run
// printed.
type SecretCLI struct {
	Dir, LogFile string
	Env          []string
	Outputs      []string
}

// NewSecretCLI is a SecretCLI in a fresh working directory.
func NewSecretCLI(t *testing.T) *SecretCLI {
	t.Helper()
	dir, logFile, env := TraceCLIEnv(t)
	return &SecretCLI{Dir: dir, LogFile: logFile, Env: env}
}

// WriteConfig writes main.tf: SecretCLIHeader, then body.
func (s *SecretCLI) WriteConfig(t *testing.T, body string) {
	t.Helper()
	WriteFile(t, filepath.Join(s.Dir, "main.tf"), SecretCLIHeader+body)
}

// Run runs the CLI with env (its output kept), failing the test if it
// fails.
func (s *SecretCLI) Run(t *testing.T, env []string, args ...string) string {
	t.Helper()
	out := RunTerraform(t, s.Dir, env, args...)
	s.Outputs = append(s.Outputs, out)
	return out
}

// ExpectEmptyPlan fails the test unless a plan with env shows no change.
func (s *SecretCLI) ExpectEmptyPlan(t *testing.T, env []string) {
	t.Helper()
	out, err := TerraformOutput(s.Dir, env, "plan", "-detailed-exitcode", "-input=false", "-no-color")
	s.Outputs = append(s.Outputs, out)
	if err != nil {
		t.Fatalf("the plan after apply is not empty (%v):\n%s", err, out)
	}
}

// Trace is the TRACE log so far.
func (s *SecretCLI) Trace(t *testing.T) string {
	t.Helper()
	trace, err := os.ReadFile(s.LogFile)
	if err != nil {
		t.Fatal(err)
	}
	return string(trace)
}

// ExpectNowhere fails the test for each token found in the state file (and
// its backup), in shown (`terraform show -json`), in the TRACE log or in
// any output of Run.
func (s *SecretCLI) ExpectNowhere(t *testing.T, shown string, tokens ...string) {
	t.Helper()
	stateFile, err := os.ReadFile(filepath.Join(s.Dir, "terraform.tfstate"))
	if err != nil {
		t.Fatal(err)
	}
	backup, _ := os.ReadFile(filepath.Join(s.Dir, "terraform.tfstate.backup"))
	places := map[string]string{"terraform.tfstate": string(stateFile), "terraform.tfstate.backup": string(backup),
		"show -json": shown, "the TRACE log": s.Trace(t), "the CLI output": strings.Join(s.Outputs, "\n")}
	for what, text := range places {
		for _, tok := range tokens {
			if n := strings.Count(text, tok); n > 0 {
				t.Errorf("the secret appears %d times in %s", n, what)
			}
		}
	}
}
