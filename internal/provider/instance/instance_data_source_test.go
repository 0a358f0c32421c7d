package instance

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/hashicorp/nomad/api"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
)

func TestAccInstanceDataSource_basic(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	name := acctest.InstanceName(t)
	cfg := acctest.InstanceConfig{Name: name, Extra: "replicas = 1"}.String() + `
data "berth_instance" "t" {
  name = berth_instance.t.name
}`
	ds := "data.berth_instance.t"
	acctest.TestJobSteps(t, name, []resource.TestStep{
		{
			Config:      `data "berth_instance" "t" { name = "no-such-instance-berth" }`,
			ExpectError: regexp.MustCompile(`(?s)Instance not found.*no-such-instance-berth`),
		},
		{
			Config: cfg,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("status"), knownvalue.StringExact("running")),
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("managed_by_berth"), knownvalue.Bool(true)),
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("deployment_status"), knownvalue.StringExact("successful")),
				statecheck.ExpectKnownValue(ds, tfjsonpath.New("allocations"), knownvalue.ListExact([]knownvalue.Check{
					knownvalue.ObjectPartial(map[string]knownvalue.Check{
						"client_status": knownvalue.StringExact("running"),
						"healthy":       knownvalue.Bool(true),
						"rss_mib":       knownvalue.NotNull(),
						"cpu_percent":   knownvalue.NotNull(),
						"tasks": knownvalue.ListExact([]knownvalue.Check{knownvalue.ObjectPartial(map[string]knownvalue.Check{
							"name": knownvalue.StringExact("app"), "state": knownvalue.StringExact("running"),
							"last_event": knownvalue.StringExact("Started: Task started by client"),
						})}),
					}),
				})),
			},
			Check: func(s *terraform.State) error {
				return acctest.WithJob(t, name, func(job *api.Job, allocs []*api.AllocationListStub) error {
					id := s.RootModule().Resources[ds].Primary.Attributes["allocations.0.id"]
					for _, a := range allocs {
						if a.ID == id && a.ClientStatus == "running" {
							return nil
						}
					}
					return fmt.Errorf("allocation %s in the data source is not a running allocation in Nomad", id)
				})(s)
			},
		},
	})
}
