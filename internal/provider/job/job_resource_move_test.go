package job

import (
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/hashicorp/nomad/api"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
)

// peerProviderConfig unpacks the other Nomad provider (hashicorp/nomad
// 2.6.1, from ../shared/tools beside the project) and points a Terraform
// CLI configuration's dev_overrides at it, so the CLI runs it without a
// registry. It skips, saying so, when the binary is not there (the tools
// are optional; CI has them).
func peerProviderConfig(t *testing.T) {
	t.Helper()
	gz := filepath.Join("..", "..", "..", "shared", "tools", "terraform-provider-nomad-2.6.1.gz")
	in, err := os.Open(gz)
	if err != nil {
		t.Skipf("NOT RUN: the hashicorp/nomad provider is not at %s (%v)", gz, err)
	}
	defer in.Close()
	zr, err := gzip.NewReader(in)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "terraform-provider-nomad")
	out, err := os.OpenFile(bin, os.O_CREATE|os.O_WRONLY, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, zr); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
	rc := filepath.Join(dir, "terraformrc")
	cfg := fmt.Sprintf("provider_installation {\n  dev_overrides {\n    \"hashicorp/nomad\" = %q\n  }\n  direct {}\n}\n", dir)
	if err := os.WriteFile(rc, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TF_CLI_CONFIG_FILE", rc)
}

// TestAccJobMoved_fromNomadJob: a job registered by the other provider's
// nomad_job moves to berth_job with a `moved` block: the plan changes
// nothing, the job's version and modify index in Nomad stay as they were,
// and the next plan is empty.
func TestAccJobMoved_fromNomadJob(t *testing.T) {
	acctest.PreCheck(t)
	peerProviderConfig(t)
	name := "berth-acc-moved-" + acctest.RandomHex(3)
	spec := twoGroupJobspec(name, 1, 32)
	peer := fmt.Sprintf(`
terraform {
  required_providers {
    nomad = { source = "hashicorp/nomad" }
  }
}

resource "nomad_job" "app" {
  jobspec = <<-EOT
%s
  EOT
}
`, spec)
	moved := fmt.Sprintf(`
terraform {
  required_providers {
    nomad = { source = "hashicorp/nomad" }
  }
}

moved {
  from = nomad_job.app
  to   = berth_job.app
}

resource "berth_job" "app" {
  jobspec = <<-EOT
%s
  EOT
}
`, spec)
	var before *api.Job
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_8_0)},
		Steps: []resource.TestStep{
			{
				Config: peer,
				Check: acctest.WithJob(t, name, func(job *api.Job, _ []*api.AllocationListStub) error {
					before = job
					return nil
				}),
			},
			{
				Config: moved,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("berth_job.app", plancheck.ResourceActionNoop),
				}},
				Check: acctest.WithJob(t, name, func(job *api.Job, _ []*api.AllocationListStub) error {
					if *job.Version != *before.Version || *job.JobModifyIndex != *before.JobModifyIndex {
						return fmt.Errorf("the move changed the job: version %d -> %d, modify index %d -> %d",
							*before.Version, *job.Version, *before.JobModifyIndex, *job.JobModifyIndex)
					}
					return nil
				}),
			},
			{Config: moved, PlanOnly: true},
		},
	})
}
