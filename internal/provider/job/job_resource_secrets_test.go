package job

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
	"github.com/berthhq/terraform-provider-berth/internal/workflow"
)

// TestAccJobSecret_variablesWriteOnly drives the terraform CLI with the
// provider binary at TF_LOG=TRACE: a secret given through variables_wo
// (from an ephemeral variable) is written to the job's Variable before the
// job registers, the jobspec's template renders it into a file the test
// reads through Nomad's filesystem API, and the secret appears nowhere in
// terraform.tfstate, `terraform show -json`, the CLI output or the TRACE
// log. The next plan is empty; destroy deletes the Variable.
func TestAccJobSecret_variablesWriteOnly(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	acctest.SkipBelowTerraform(t, tfversion.Version1_11_0)
	name := "berth-acc-jobsecret-" + acctest.RandomHex(3)
	varPath := workflow.JobVariablePath(name)
	cli := acctest.NewSecretCLI(t)
	token := "tok" + acctest.RandomHex(8)
	secret := fmt.Sprintf(`pa ss "%s" end`, token)
	env := append(slices.Clone(cli.Env), "TF_VAR_secret="+secret)
	cli.WriteConfig(t, fmt.Sprintf(`
resource "berth_job" "t" {
  variables_wo         = { password = var.secret }
  variables_wo_version = 1
  jobspec = <<-EOT
    job %q {
      group "g" {
        %s
      }
    }
  EOT
}
`, name, sleepTask("app", 16, fmt.Sprintf(`template {
    data        = "{{ with nomadVar \"%s\" }}{{ .password }}{{ end }}"
    destination = "local/out"
  }`, varPath))))
	c := acctest.Nomad(t)
	t.Cleanup(func() {
		acctest.RunTerraformAllowFail(cli.Dir, env, "destroy", "-auto-approve", "-input=false", "-no-color")
		_, _, _ = c.Jobs().Deregister(name, true, nil)
		_, _ = c.Variables().Delete(varPath, nil)
	})
	run := func(args ...string) string {
		t.Helper()
		return cli.Run(t, env, args...)
	}
	run("apply", "-auto-approve", "-input=false", "-no-color")
	acctest.WaitFor(t, "the template to render the secret", 2*time.Minute, func() (bool, error) {
		got, err := acctest.AllocFile(c, name, "app/local/out")
		if err == nil && got != secret {
			err = fmt.Errorf("local/out has %d bytes, not the secret", len(got))
		}
		return err == nil, err
	})
	v, _, err := c.Variables().Read(varPath, nil)
	if err != nil {
		t.Fatal(err)
	}
	if job, _, err := c.Jobs().Info(name, nil); err != nil {
		t.Fatal(err)
	} else if v.CreateIndex >= *job.CreateIndex {
		t.Errorf("the Variable was created at index %d, after the job (%d)", v.CreateIndex, *job.CreateIndex)
	}
	shown := run("show", "-json")
	if !strings.Contains(shown, `"variables_wo":null`) || !strings.Contains(shown, `"variables_wo_version":1`) {
		t.Errorf("show -json does not hold variables_wo = null and its version 1")
	}
	cli.ExpectEmptyPlan(t, env)
	run("destroy", "-auto-approve", "-input=false", "-no-color")
	if _, _, err := c.Variables().Read(varPath, nil); !errors.Is(err, api.ErrVariablePathNotFound) && !acctest.IsNotFound(err) {
		t.Errorf("the Variable after destroy: %v; want it deleted", err)
	}
	if trace := cli.Trace(t); !strings.Contains(trace, "/v1/var/"+varPath) {
		t.Fatalf("the TRACE log (%d bytes) has no request for %s; the test would prove nothing", len(trace), varPath)
	}
	cli.ExpectNowhere(t, shown, token)
}
