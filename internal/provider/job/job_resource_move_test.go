package job

import (
	"fmt"
	"testing"

	"github.com/hashicorp/nomad/api"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
)

// TestAccJobMoved_fromNomadJob: a job registered by the other provider's
// nomad_job moves to berth_job with a `moved` block: the plan changes
// nothing, the job's version and modify index in Nomad stay as they were,
// and the next plan is empty.
func TestAccJobMoved_fromNomadJob(t *testing.T) {
	acctest.PreCheck(t)
	acctest.PeerProvider(t)
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
