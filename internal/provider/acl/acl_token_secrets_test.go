package acl

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/nomad/api"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
	"github.com/berthhq/terraform-provider-berth/internal/workflow"
)

// TestAccACLTokenSecret_neverStored drives the terraform CLI with the
// provider binary at TF_LOG=TRACE on the ACL agent:
//   - berth_acl_token writes its secret to a Variable; that secret (read
//     from the Variable) reads jobs and is refused registering one;
//   - an ephemeral berth_acl_token configures a second provider block
//     whose data source reads a job with it, and is handed to a berth_job's
//     write-only variables_wo, so the test can learn the secret; after the
//     run Nomad refuses it, and no token of its name is left;
//   - neither secret appears in terraform.tfstate (and its backup), the
//     saved plan's JSON, `terraform show -json`, the CLI output or the
//     TRACE log.
func TestAccACLTokenSecret_neverStored(t *testing.T) {
	dir, logFile, env := acctest.StartSecretTraceTest(t)
	suffix := acctest.RandomHex(3)
	name, ephName, policy := "berth-acc-token-secret-"+suffix, "berth-acc-token-eph-"+suffix, "berth-acc-read-secret-"+suffix
	varPath := "berth-acc/secret-" + suffix
	seenJob, carrier := "berth-acc-seen-"+suffix, "berth-acc-carrier-"+suffix
	createReadJobsPolicy(t, policy, "default")
	c := acctest.Nomad(t)
	registerParameterizedJob(t, seenJob)
	acctest.WriteCLIConfig(t, dir, fmt.Sprintf(`
resource "berth_acl_token" "managed" {
  name                 = %[1]q
  policies             = [%[3]q]
  secret_variable_path = %[4]q
}

ephemeral "berth_acl_token" "short" {
  name     = %[2]q
  policies = [%[3]q]
  ttl      = "10m"
}

provider "berth" {
  alias = "reader"
  token = ephemeral.berth_acl_token.short.secret_id
}

data "berth_instance" "seen" {
  provider = berth.reader
  name     = %[5]q
}

resource "berth_job" "carrier" {
  variables_wo         = { token = ephemeral.berth_acl_token.short.secret_id }
  variables_wo_version = 1
  wait_for_healthy     = false
  jobspec              = <<-EOT
%[6]s
  EOT
}

output "seen_job" {
  value = data.berth_instance.seen.name
}
`, name, ephName, policy, varPath, seenJob, parameterizedJobspec(carrier)))
	t.Cleanup(func() {
		acctest.RunTerraformAllowFail(dir, env, "destroy", "-auto-approve", "-input=false", "-no-color")
		_, _, _ = c.Jobs().Deregister(carrier, true, nil)
		_, _ = c.Variables().Delete(varPath, nil)
	})
	var outputs []string
	run := func(args ...string) string {
		t.Helper()
		out := acctest.RunTerraform(t, dir, env, args...)
		outputs = append(outputs, out)
		return out
	}
	applied := run("apply", "-auto-approve", "-input=false", "-no-color")
	if !strings.Contains(applied, seenJob) {
		t.Errorf("the apply output does not show the job the ephemeral token read:\n%s", applied)
	}
	managed, err := secretInVariable(t, "berth_acl_token.managed", varPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := checkEnforced(t, managed, "default"); err != nil {
		t.Error(err)
	}
	carried, _, err := c.Variables().Read(workflow.JobVariablePath(carrier), nil)
	if err != nil {
		t.Fatalf("reading the carrier job's Variable: %v", err)
	}
	ephemeralSecret := carried.Items["token"]
	if len(ephemeralSecret) < 32 {
		t.Fatalf("the carrier Variable has no ephemeral secret (%d bytes); the test would prove nothing", len(ephemeralSecret))
	}
	if err := checkSecretRefused(ephemeralSecret); err != nil {
		t.Errorf("the ephemeral token after the run: %v", err)
	}
	requireNoTokenNamed(t, ephName)
	shown := run("show", "-json")
	run("plan", "-out=tfplan", "-input=false", "-no-color")
	planJSON := run("show", "-json", "tfplan")
	requireNoTokenNamed(t, ephName)
	run("destroy", "-auto-approve", "-input=false", "-no-color")
	stateFile, _ := os.ReadFile(filepath.Join(dir, "terraform.tfstate"))
	backup, _ := os.ReadFile(filepath.Join(dir, "terraform.tfstate.backup"))
	trace, err := os.ReadFile(logFile)
	if err != nil || !strings.Contains(string(trace), "/v1/acl/token") {
		t.Fatalf("the TRACE log (%v) has no ACL token request; the test would prove nothing", err)
	}
	for what, text := range map[string]string{"terraform.tfstate": string(stateFile), "terraform.tfstate.backup": string(backup),
		"show -json": shown, "the plan's JSON": planJSON, "the TRACE log": string(trace), "the CLI output": strings.Join(outputs, "\n")} {
		for secretName, secret := range map[string]string{"the managed token's secret": managed, "the ephemeral token's secret": ephemeralSecret} {
			if n := strings.Count(text, secret); n > 0 {
				t.Errorf("%s appears %d times in %s", secretName, n, what)
			}
		}
	}
}

// parameterizedJobspec is a batch job that never runs until dispatched.
func parameterizedJobspec(name string) string {
	return fmt.Sprintf(`job %q {
  type = "batch"
  parameterized {}
  group "g" {
    task "t" {
      driver = "raw_exec"
      config {
        command = "/bin/true"
      }
      resources {
        cpu    = 20
        memory = 16
      }
    }
  }
}`, name)
}

// registerParameterizedJob registers such a job through the API, purged
// when the test ends.
func registerParameterizedJob(t *testing.T, name string) {
	t.Helper()
	c := acctest.Nomad(t)
	job := api.NewBatchJob(name, name, "global", 50)
	job.ParameterizedJob = &api.ParameterizedJobConfig{}
	job.AddTaskGroup(api.NewTaskGroup("g", 1).AddTask(api.NewTask("t", "raw_exec").SetConfig("command", "/bin/true")))
	if _, _, err := c.Jobs().Register(job, nil); err != nil {
		t.Fatalf("registering job %s: %v", name, err)
	}
	t.Cleanup(func() { _, _, _ = c.Jobs().Deregister(name, true, nil) })
}

// requireNoTokenNamed: every ephemeral token of that name was revoked.
func requireNoTokenNamed(t *testing.T, name string) {
	t.Helper()
	tokens, _, err := acctest.Nomad(t).ACLTokens().List(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tok := range tokens {
		if tok.Name == name {
			t.Errorf("ephemeral token %s (%s) is still in Nomad after the run", tok.AccessorID, name)
		}
	}
}
