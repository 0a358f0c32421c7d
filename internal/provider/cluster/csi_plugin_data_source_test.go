package cluster

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
)

// TestAccCSIPluginDataSource_waitForHealthy starts the test CSI plugin's
// job and, in the same apply, reads berth_csi_plugin with
// wait_for_healthy: the read waits for the plugin and then answers what
// Nomad's API says of it. A plugin Nomad lacks is one error naming it, at
// once or after the wait's deadline.
func TestAccCSIPluginDataSource_waitForHealthy(t *testing.T) {
	acctest.PreCheck(t)
	acctest.NeedRootForCSI(t)
	nomad := acctest.Nomad(t)
	plugin := acctest.NewCSIPlugin(t, nomad)
	withData := plugin.Config() + fmt.Sprintf(`
data "berth_csi_plugin" "p" {
  plugin_id        = %q
  wait_for_healthy = true
  wait_timeout     = "3m"
  depends_on       = [berth_job.csi_plugin]
}
`, plugin.ID)
	missing := plugin.ID + "-missing"
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: withData,
				Check: func(s *terraform.State) error {
					p, _, err := nomad.CSIPlugins().Info(plugin.ID, nil)
					if err != nil {
						return err
					}
					attrs := s.RootModule().Resources["data.berth_csi_plugin.p"].Primary.Attributes
					want := map[string]string{
						"id": p.ID, "plugin_provider": p.Provider, "plugin_provider_version": p.Version,
						"controller_required":  fmt.Sprint(p.ControllerRequired),
						"controllers_healthy":  fmt.Sprint(p.ControllersHealthy),
						"controllers_expected": fmt.Sprint(p.ControllersExpected),
						"nodes_healthy":        fmt.Sprint(p.NodesHealthy), "nodes_expected": fmt.Sprint(p.NodesExpected),
						"healthy": "true", "nodes.#": fmt.Sprint(len(p.Nodes)), "controllers.#": fmt.Sprint(len(p.Controllers)),
					}
					if info := p.Nodes[plugin.NodeID]; info != nil {
						want["nodes.0.name"], want["nodes.0.healthy"] = plugin.NodeID, fmt.Sprint(info.Healthy)
					} else {
						return fmt.Errorf("Nomad reports no node instance of %s on node %s", plugin.ID, plugin.NodeID)
					}
					for attr, w := range want {
						if attrs[attr] != w {
							return fmt.Errorf("berth_csi_plugin %s = %q, Nomad says %q", attr, attrs[attr], w)
						}
					}
					return nil
				},
			},
			{
				Config: plugin.Config() + fmt.Sprintf(`
data "berth_csi_plugin" "missing" {
  plugin_id = %q
}
`, missing),
				ExpectError: regexp.MustCompile(`CSI plugin not found[\s\S]*` + regexp.QuoteMeta(missing)),
			},
			{
				Config: plugin.Config() + fmt.Sprintf(`
data "berth_csi_plugin" "missing" {
  plugin_id             = %q
  wait_for_registration = true
  wait_timeout          = "2s"
}
`, missing),
				ExpectError: regexp.MustCompile(`(?s)Could not read CSI plugin ` + regexp.QuoteMeta(missing) + `.*wait_timeout`),
			},
		},
		CheckDestroy: func(*terraform.State) error {
			plugin.WaitGone(t, nomad)
			return nil
		},
	})
}
