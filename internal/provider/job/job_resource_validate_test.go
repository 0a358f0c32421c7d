package job

import (
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
)

// TestAccJob_refusedByClusterValidation: a jobspec Nomad's parser reads
// but the cluster's validation refuses (a CSI volume without an attachment
// mode, one of the community jobspecs that used to pass the plan with only
// a warning) fails the plan at `jobspec` with the cluster's own words, and
// nothing is registered.
func TestAccJob_refusedByClusterValidation(t *testing.T) {
	acctest.PreCheck(t)
	name := "berth-acc-job-invalid-" + acctest.RandomHex(3)
	spec := sleepJob(name, `volume "data" {
      type   = "csi"
      source = "nowhere"
    }`)
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		// Nothing was registered by the plan that failed.
		CheckDestroy: noJob(t, name),
		Steps: []resource.TestStep{{
			Config:      jobConfig(spec, ""),
			ExpectError: regexp.MustCompile(`(?s)Nomad refuses the job.*nomad job validate.*CSI volumes must have an attachment mode`),
		}},
	})
}
