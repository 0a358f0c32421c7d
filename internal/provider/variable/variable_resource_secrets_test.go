package variable_test

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/tfversion"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
)

// TestAccVariableSecret_checkAndSetAndNoTrace drives the terraform CLI
// with the provider binary at TF_LOG=TRACE, with saved plans, so Nomad can
// be changed between a plan and its apply:
//   - a secret from an ephemeral variable (items_wo) and one read by the
//     ephemeral berth_variable from another Variable reach Nomad;
//   - an update planned, then a change made through the API, then the
//     saved plan applied: the apply fails naming the conflict and writes
//     nothing; the next plan shows the change and its apply puts it back;
//   - the same for a destroy;
//   - neither secret is in terraform.tfstate (and its backup), the plan
//     JSON of a saved plan, the TRACE log or any CLI output, errors
//     included.
func TestAccVariableSecret_checkAndSetAndNoTrace(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	acctest.SkipBelowTerraform(t, tfversion.Version1_11_0)
	path := "berth-acc/cas-" + acctest.RandomHex(3)
	srcPath := "berth-acc/src-" + acctest.RandomHex(3)
	dir, logFile, env := acctest.TraceCLIEnv(t)
	tokens := []string{"tok" + acctest.RandomHex(8), "tok" + acctest.RandomHex(8)}
	secret := fmt.Sprintf(`pa ss "%s" end`, tokens[0])
	fromSource := "src-" + tokens[1]
	env = append(env, "TF_VAR_secret="+secret)
	writeVar(t, "default", srcPath, map[string]string{"api_key": fromSource})
	c := acctest.Nomad(t)
	t.Cleanup(func() {
		acctest.RunTerraformAllowFail(dir, env, "destroy", "-auto-approve", "-input=false", "-no-color")
		_, _ = c.Variables().Delete(path, nil)
		_, _ = c.Variables().Delete(srcPath, nil)
	})
	write := func(user string) {
		acctest.WriteFile(t, filepath.Join(dir, "main.tf"), fmt.Sprintf(`
terraform {
  required_providers {
    berth = { source = "berthhq/berth" }
  }
}
variable "secret" {
  type      = string
  ephemeral = true
}
ephemeral "berth_variable" "src" {
  path = %q
}
resource "berth_variable" "v" {
  path             = %q
  items            = { user = %q }
  items_wo         = { password = var.secret, api_key = ephemeral.berth_variable.src.items["api_key"] }
  items_wo_version = 1
}
`, srcPath, path, user))
	}
	var outputs []string
	run := func(args ...string) string {
		t.Helper()
		out := acctest.RunTerraform(t, dir, env, args...)
		outputs = append(outputs, out)
		return out
	}
	fail := func(want string, args ...string) {
		t.Helper()
		out, err := acctest.RunTerraformResult(dir, env, args...)
		outputs = append(outputs, out)
		if err == nil || !strings.Contains(out, want) {
			t.Fatalf("terraform %s: want a failure saying %q, got %v:\n%s", strings.Join(args, " "), want, err, out)
		}
	}
	wantItems := func(user string) map[string]string {
		return map[string]string{"user": user, "password": secret, "api_key": fromSource}
	}
	inNomad := func(want map[string]string, what string) {
		t.Helper()
		v := readVar(t, "default", path)
		if v == nil || !maps.Equal(map[string]string(v.Items), want) {
			t.Fatalf("%s: Nomad does not hold the expected items (keys %v)", what, keysOf(v))
		}
	}

	write("app")
	run("apply", "-auto-approve", "-input=false", "-no-color")
	inNomad(wantItems("app"), "after create")

	// An update planned, Nomad changed, the saved plan applied.
	write("app2")
	run("plan", "-input=false", "-no-color", "-out=update.tfplan")
	writeVar(t, "default", path, wantItems("changed-outside"))
	fail("Variable changed in Nomad since it was read", "apply", "-input=false", "-no-color", "update.tfplan")
	inNomad(wantItems("changed-outside"), "after the refused apply")

	// The next plan names the change by key, never with the value written
	// outside (it may be a secret); its apply puts the configuration back.
	plan := run("plan", "-input=false", "-no-color", "-out=again.tfplan")
	if !strings.Contains(plan, `+ "user" = "app2"`) || !strings.Contains(plan, `- "user",`) ||
		strings.Contains(plan, "changed-outside") {
		t.Errorf("the plan after the conflict does not name user as changed in Nomad, by key only:\n%s", plan)
	}
	planJSON := run("show", "-json", "again.tfplan")
	run("apply", "-input=false", "-no-color", "again.tfplan")
	inNomad(wantItems("app2"), "after the apply")
	shown := run("show", "-json")
	if !strings.Contains(shown, `"items_wo":null`) {
		t.Errorf("show -json does not hold items_wo = null")
	}

	// A destroy planned, Nomad changed, the saved plan applied.
	run("plan", "-destroy", "-input=false", "-no-color", "-out=destroy.tfplan")
	writeVar(t, "default", path, wantItems("changed-again"))
	fail("Variable changed in Nomad since it was read", "apply", "-input=false", "-no-color", "destroy.tfplan")
	inNomad(wantItems("changed-again"), "after the refused destroy")
	run("destroy", "-auto-approve", "-input=false", "-no-color")
	if v := readVar(t, "default", path); v != nil {
		t.Fatalf("Variable %s is still in Nomad after destroy", path)
	}

	stateFile, _ := os.ReadFile(filepath.Join(dir, "terraform.tfstate"))
	backup, _ := os.ReadFile(filepath.Join(dir, "terraform.tfstate.backup"))
	trace, err := os.ReadFile(logFile)
	if err != nil {
		t.Fatal(err)
	}
	pathRE := regexp.MustCompile(`\spath=/v1/var/` + regexp.QuoteMeta(path) + `\s`)
	wrote := slices.ContainsFunc(strings.Split(string(trace), "\n"), func(line string) bool {
		return strings.Contains(line, "Nomad API request") && strings.Contains(line, " method=PUT ") && pathRE.MatchString(line)
	})
	if !wrote {
		t.Fatalf("the TRACE log (%d bytes) has no request writing %s; the test would prove nothing", len(trace), path)
	}
	places := map[string]string{"terraform.tfstate": string(stateFile), "terraform.tfstate.backup": string(backup),
		"the saved plan's JSON": planJSON, "show -json": shown, "the TRACE log": string(trace),
		"the CLI output (errors included)": strings.Join(outputs, "\n")}
	for what, text := range places {
		for _, tok := range tokens {
			if n := strings.Count(text, tok); n > 0 {
				t.Errorf("a secret appears %d times in %s", n, what)
			}
		}
	}
}
