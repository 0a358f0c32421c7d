package cluster

import (
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
)

// TestAccCSIPluginsDataSource_healthy runs the test CSI plugin, waits for
// Nomad to call it healthy, then reads berth_csi_plugins and compares the
// plugin's health with Nomad's.
func TestAccCSIPluginsDataSource_healthy(t *testing.T) {
	acctest.PreCheck(t)
	acctest.NeedRootForCSI(t)
	nomad := acctest.Nomad(t)
	plugin := acctest.NewCSIPlugin(t, nomad)
	withData := plugin.Config() + `
data "berth_csi_plugins" "p" {}
`
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: plugin.Config(),
				Check:  func(*terraform.State) error { plugin.WaitHealthy(t, nomad); return nil },
			},
			{
				Config: withData,
				Check: func(s *terraform.State) error {
					p, _, err := nomad.CSIPlugins().Info(plugin.ID, nil)
					if err != nil {
						return err
					}
					attrs := s.RootModule().Resources["data.berth_csi_plugins.p"].Primary.Attributes
					for i := 0; attrs[fmt.Sprintf("plugins.%d.id", i)] != ""; i++ {
						if attrs[fmt.Sprintf("plugins.%d.id", i)] != plugin.ID {
							continue
						}
						at := func(a string) string { return attrs[fmt.Sprintf("plugins.%d.%s", i, a)] }
						for attr, want := range map[string]string{
							"provider": p.Provider, "controller_required": fmt.Sprint(p.ControllerRequired),
							"controllers_healthy": fmt.Sprint(p.ControllersHealthy), "controllers_expected": fmt.Sprint(p.ControllersExpected),
							"nodes_healthy": fmt.Sprint(p.NodesHealthy), "nodes_expected": fmt.Sprint(p.NodesExpected),
							"healthy": "true",
						} {
							if at(attr) != want {
								return fmt.Errorf("plugin %s: %s = %q, Nomad says %q", plugin.ID, attr, at(attr), want)
							}
						}
						return nil
					}
					return fmt.Errorf("plugin %s is not in berth_csi_plugins", plugin.ID)
				},
			},
		},
		CheckDestroy: func(*terraform.State) error {
			plugin.WaitGone(t, nomad)
			return nil
		},
	})
}
