package job

import (
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
)

// TestAccJob_importWithVariables: berth registers the jobspec and its
// variables as the job's source (Nomad keeps -var values query-escaped and gives them back as sent),
// and an import block with the same configuration, a multi-line variable
// included, plans no change.
func TestAccJob_importWithVariables(t *testing.T) {
	acctest.PreCheck(t)
	name := "berth-acc-job-vars-" + acctest.RandomHex(3)
	spec := fmt.Sprintf(`
variable "greeting" {
  type = string
}
job %q {
  type = "batch"
  group "g" {
    task "t" {
      driver = "raw_exec"
      config {
        command = "/bin/echo"
        args    = [var.greeting]
      }
      resources {
        cpu    = 20
        memory = 16
      }
    }
  }
}`, name)
	// No "%" or "+": Nomad 1.10 unescapes the kept values in place on every
	// read of the source, so those would change after the first reader.
	greeting := "hello & more\nsecond line"
	config := jobConfig(spec, fmt.Sprintf("variables = { greeting = %q }", greeting))
	nomad := acctest.Nomad(t)
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: config,
				Check: func(*terraform.State) error {
					sub, _, err := nomad.Jobs().Submission(name, 0, nil)
					if err != nil {
						return fmt.Errorf("reading the job's source: %w", err)
					}
					if sub.Format != "hcl2" || sub.Source != spec+"\n" && sub.Source != spec {
						return fmt.Errorf("Nomad keeps source %q (format %s), want the jobspec as hcl2", sub.Source, sub.Format)
					}
					if got := sub.VariableFlags["greeting"]; got != greeting {
						return fmt.Errorf("Nomad gives back greeting %q, want %q", got, greeting)
					}
					return nil
				},
			},
			{
				Config:          config,
				ResourceName:    jobAddr,
				ImportState:     true,
				ImportStateKind: resource.ImportBlockWithID,
				ImportStateId:   "default/" + name,
			},
		},
	})
}
