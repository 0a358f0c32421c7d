package instance

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
)

// TestAccInstance_updateTimeoutKeepsState applies an update whose
// deployment cannot finish within timeouts.update (min_healthy_time is far
// longer), through the real terraform CLI so the whole output can be read.
// The apply fails with exactly the timeout error: no read-back error, no
// "invalid result object" from Terraform. State then holds Nomad's modify
// index, and the next plan is empty.
func TestAccInstance_updateTimeoutKeepsState(t *testing.T) {
	name := startInstanceTest(t)
	bin := acctest.BuildProviderBinary(t)
	dir := t.TempDir()
	env := append(acctest.CleanEnv(), "NOMAD_ADDR="+os.Getenv("NOMAD_ADDR"), "NOMAD_TOKEN="+os.Getenv("NOMAD_TOKEN"),
		"TF_CLI_CONFIG_FILE="+acctest.DevOverridesConfig(t, dir, filepath.Dir(bin)), "TF_IN_AUTOMATION=1")
	write := func(level, update, timeouts string) {
		acctest.WriteFile(t, filepath.Join(dir, "main.tf"), `
terraform {
  required_providers {
    berth = { source = "berthhq/berth" }
  }
}
resource "berth_instance" "t" {
  name     = "`+name+`"
  replicas = 1
  update   = `+update+`
  `+timeouts+`
  services = {
    app = {
      driver = "raw_exec", command = "/bin/sleep", args = ["3600"], cpu = 50, memory = 32
      env    = { LEVEL = "`+level+`" }
    }
  }
}
`)
	}
	t.Cleanup(func() {
		acctest.RunTerraformAllowFail(dir, env, "destroy", "-auto-approve", "-input=false", "-no-color")
		_, _, _ = acctest.Nomad(t).Jobs().Deregister(name, true, nil)
	})

	write("info", `{ min_healthy_time = "1s", healthy_deadline = "30s", progress_deadline = "1m" }`, "")
	acctest.RunTerraform(t, dir, env, "apply", "-auto-approve", "-input=false", "-no-color")

	// The new version's allocation must stay healthy for 3 minutes before
	// the deployment succeeds; the update gives up after 5 seconds.
	write("debug", `{ min_healthy_time = "3m", healthy_deadline = "5m", progress_deadline = "10m" }`, `timeouts = { update = "20s" }`)
	out, err := acctest.TerraformOutput(dir, env, "apply", "-auto-approve", "-input=false", "-no-color")
	if err == nil {
		t.Fatalf("the apply succeeded although the deployment cannot finish in 5s:\n%s", out)
	}
	if n := strings.Count(out, "Error: "); n != 1 {
		t.Errorf("want exactly one error, got %d:\n%s", n, out)
	}
	if !regexp.MustCompile(`(?s)The instance update did not complete.*(gave up waiting|deadline exceeded)`).MatchString(out) {
		t.Errorf("the error is not the timeout:\n%s", out)
	}
	for _, bad := range []string{"invalid result object", "Could not read the job back"} {
		if strings.Contains(out, bad) {
			t.Errorf("output contains %q:\n%s", bad, out)
		}
	}

	// State, as the failed apply left it (no refresh): Nomad's index.
	vals := acctest.OnlyStateResource(t, dir, env, "instance")
	job, _, err := acctest.Nomad(t).Jobs().Info(name, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, ok := vals["job_modify_index"].(float64); !ok || uint64(got) != *job.JobModifyIndex {
		t.Errorf("state job_modify_index = %v, Nomad has %d", vals["job_modify_index"], *job.JobModifyIndex)
	}
	if got, ok := vals["job_version"].(float64); !ok || uint64(got) != *job.Version {
		t.Errorf("state job_version = %v, Nomad has %d", vals["job_version"], *job.Version)
	}
	if env := job.TaskGroups[0].Tasks[0].Env["LEVEL"]; env != "debug" {
		t.Errorf("Nomad runs LEVEL=%q, want the new version (debug)", env)
	}

	// The job in Nomad is what the configuration says: nothing to do.
	if out, err := acctest.TerraformOutput(dir, env, "plan", "-detailed-exitcode", "-input=false", "-no-color"); err != nil {
		t.Fatalf("the plan after the timed-out update is not empty (%v):\n%s", err, out)
	}
}
