package cluster

import (
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
)

// TestAccSchedulerSettingsDataSource_asNomadSays reads the shared agent's
// scheduler configuration (never written by these tests) and compares
// every attribute with Nomad's API.
func TestAccSchedulerSettingsDataSource_asNomadSays(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	const ds = "data.berth_scheduler_settings.s"
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: `data "berth_scheduler_settings" "s" {}`,
			Check: func(s *terraform.State) error {
				c := schedulerConfigOf(t, acctest.Nomad(t))
				alg := string(c.SchedulerAlgorithm)
				if alg == "" {
					alg = "binpack"
				}
				p := c.PreemptionConfig
				return resource.ComposeTestCheckFunc(
					resource.TestCheckResourceAttr(ds, "id", "global"),
					resource.TestCheckResourceAttr(ds, "region", "global"),
					resource.TestCheckResourceAttr(ds, "scheduler_algorithm", alg),
					resource.TestCheckResourceAttr(ds, "memory_oversubscription", fmt.Sprint(c.MemoryOversubscriptionEnabled)),
					resource.TestCheckResourceAttr(ds, "reject_job_registration", fmt.Sprint(c.RejectJobRegistration)),
					resource.TestCheckResourceAttr(ds, "pause_eval_broker", fmt.Sprint(c.PauseEvalBroker)),
					resource.TestCheckResourceAttr(ds, "preemption.system", fmt.Sprint(p.SystemSchedulerEnabled)),
					resource.TestCheckResourceAttr(ds, "preemption.sysbatch", fmt.Sprint(p.SysBatchSchedulerEnabled)),
					resource.TestCheckResourceAttr(ds, "preemption.batch", fmt.Sprint(p.BatchSchedulerEnabled)),
					resource.TestCheckResourceAttr(ds, "preemption.service", fmt.Sprint(p.ServiceSchedulerEnabled)),
					resource.TestCheckResourceAttr(ds, "modify_index", fmt.Sprint(c.ModifyIndex)),
				)(s)
			},
		}},
	})
}
