package volume

import (
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
)

// TestAccCSI_pluginJobHealthy: the test CSI plugin, registered as a
// raw_exec monolith job through berth_job, becomes a healthy controller
// and node in Nomad; destroy stops it.
func TestAccCSI_pluginJobHealthy(t *testing.T) {
	acctest.PreCheck(t)
	acctest.NeedRootForCSI(t)
	nomad := acctest.Nomad(t)
	plugin := acctest.NewCSIPlugin(t, nomad)
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: plugin.Config(),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction("berth_job.csi_plugin", plancheck.ResourceActionCreate),
			}},
			Check: func(*terraform.State) error {
				plugin.WaitHealthy(t, nomad)
				plug, _, err := nomad.CSIPlugins().Info(plugin.ID, nil)
				if err != nil {
					return err
				}
				if plug.Provider != "berth.test.csi" || !plug.ControllerRequired {
					return fmt.Errorf("plugin provider %q, controller required %v; want berth.test.csi, true", plug.Provider, plug.ControllerRequired)
				}
				return nil
			},
		}},
		CheckDestroy: func(*terraform.State) error {
			plugin.WaitGone(t, nomad)
			return nil
		},
	})
}
