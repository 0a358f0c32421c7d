package job

import (
	"fmt"
	"testing"

	"github.com/hashicorp/nomad/api"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
	"github.com/berthhq/terraform-provider-berth/internal/jobspec"
)

// A berth_job records its identity, and an import block that gives only
// the identity finds it again with no change planned. The import records
// the job as Nomad holds it, a JSON jobspec; the configuration holds that
// same JSON (taken from a first registration through the API), so the
// import plans nothing.
func TestAccJobIdentity_importByIdentity(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	name := "berth-acc-job-identity-" + acctest.RandomHex(3)
	nomad := acctest.Nomad(t)
	job, _, err := jobspec.Parse(jobspec.Spec{Source: twoGroupJobspec(name, 1, 16)}, testParser(t))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := nomad.Jobs().Register(job, nil); err != nil {
		t.Fatal(err)
	}
	live, _, err := nomad.Jobs().Info(name, nil)
	if err != nil {
		t.Fatal(err)
	}
	asJSON, err := jobspec.JSONOf(live, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := nomad.Jobs().Deregister(name, true, nil); err != nil {
		t.Fatal(err)
	}
	config := fmt.Sprintf("resource \"berth_job\" \"t\" {\n  format  = \"json\"\n  jobspec = %q\n}\n", asJSON)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_12_0)},
		Steps: []resource.TestStep{
			{
				Config: config,
				ConfigStateChecks: []statecheck.StateCheck{statecheck.ExpectIdentity(jobAddr, map[string]knownvalue.Check{
					"namespace": knownvalue.StringExact("default"), "name": knownvalue.StringExact(name),
				})},
				Check: acctest.WithJob(t, name, func(*api.Job, []*api.AllocationListStub) error { return nil }),
			},
			{
				Config:          config,
				ResourceName:    jobAddr,
				ImportState:     true,
				ImportStateKind: resource.ImportBlockWithResourceIdentity,
				ImportPlanChecks: resource.ImportPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(jobAddr, plancheck.ResourceActionNoop),
				}},
			},
		},
	})
}
