package acl

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
)

// TestAccACLAuthMethodSecret_nowhere drives the terraform CLI with the
// provider binary at TF_LOG=TRACE: the OIDC client secret, given from an
// ephemeral variable, reaches Nomad (which holds one) and appears nowhere in
// terraform.tfstate, `terraform show -json`, the CLI output or the TRACE
// log, through a create, an empty plan, a rewrite by version and a destroy.
func TestAccACLAuthMethodSecret_nowhere(t *testing.T) {
	dir, logFile, env := acctest.StartSecretTraceTest(t)
	name := "berth-acc-oidc-trace-" + acctest.RandomHex(3)
	token := "tok" + acctest.RandomHex(8)
	env = append(env, "TF_VAR_client_secret=client "+token+" secret")
	config := func(version int) string {
		return oidcMethodConfig(name, fmt.Sprintf("oidc_client_secret_wo = var.client_secret\n    oidc_client_secret_wo_version = %d", version))
	}
	t.Cleanup(func() {
		acctest.RunTerraformAllowFail(dir, env, "destroy", "-auto-approve", "-input=false", "-no-color")
		_, _ = acctest.Nomad(t).ACLAuthMethods().Delete(name, nil)
	})
	var outputs []string
	run := func(args ...string) string {
		t.Helper()
		out := acctest.RunTerraform(t, dir, env, args...)
		outputs = append(outputs, out)
		return out
	}
	acctest.WriteCLIConfig(t, dir, config(1))
	run("apply", "-auto-approve", "-input=false", "-no-color")
	if err := checkSecretHeld(t, name, token)(nil); err != nil {
		t.Fatal(err)
	}
	if out, err := acctest.TerraformOutput(dir, env, "plan", "-detailed-exitcode", "-input=false", "-no-color"); err != nil {
		t.Fatalf("the plan after apply is not empty (%v):\n%s", err, out)
	} else {
		outputs = append(outputs, out)
	}
	acctest.WriteCLIConfig(t, dir, config(2))
	run("apply", "-auto-approve", "-input=false", "-no-color")
	shown := run("show", "-json")
	if !strings.Contains(shown, `"oidc_client_secret_wo":null`) || !strings.Contains(shown, `"oidc_client_secret_wo_version":2`) {
		t.Errorf("show -json does not hold oidc_client_secret_wo = null and its version 2")
	}
	run("destroy", "-auto-approve", "-input=false", "-no-color")
	if err := checkAuthMethodGone(t, name)(nil); err != nil {
		t.Error(err)
	}
	stateFile, _ := os.ReadFile(filepath.Join(dir, "terraform.tfstate"))
	backup, _ := os.ReadFile(filepath.Join(dir, "terraform.tfstate.backup"))
	trace, err := os.ReadFile(logFile)
	if err != nil || !strings.Contains(string(trace), "/v1/acl/auth-method") {
		t.Fatalf("the TRACE log (%v) has no request for the auth method; the test would prove nothing", err)
	}
	for what, text := range map[string]string{"terraform.tfstate": string(stateFile), "terraform.tfstate.backup": string(backup),
		"show -json": shown, "the TRACE log": string(trace), "the CLI output": strings.Join(outputs, "\n")} {
		if n := strings.Count(text, token); n > 0 {
			t.Errorf("the secret appears %d times in %s", n, what)
		}
	}
}
