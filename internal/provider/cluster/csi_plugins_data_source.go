package cluster

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
)

// NewCSIPluginsDataSource builds the berth_csi_plugins data source.
func NewCSIPluginsDataSource() datasource.DataSource {
	return shared.NewDataSource("csi_plugins", csiPluginsDataSourceSchema, readCsiPlugins)
}

type csiPluginsModel struct {
	Plugins []csiPluginModel `tfsdk:"plugins"`
}

type csiPluginModel struct {
	ID                  types.String `tfsdk:"id"`
	Provider            types.String `tfsdk:"provider"`
	ControllerRequired  types.Bool   `tfsdk:"controller_required"`
	ControllersHealthy  types.Int64  `tfsdk:"controllers_healthy"`
	ControllersExpected types.Int64  `tfsdk:"controllers_expected"`
	NodesHealthy        types.Int64  `tfsdk:"nodes_healthy"`
	NodesExpected       types.Int64  `tfsdk:"nodes_expected"`
	Healthy             types.Bool   `tfsdk:"healthy"`
}

func csiPluginsDataSourceSchema() schema.Schema {
	return schema.Schema{
		MarkdownDescription: "The region's CSI plugins and their health, as `nomad plugin status` shows them. Needs " +
			"`plugin:read` when ACLs are on.",
		Attributes: map[string]schema.Attribute{
			"plugins": shared.ComputedObjects("The plugins, sorted by ID.", map[string]schema.Attribute{
				"id":                   shared.ComputedString("Plugin ID, as the plugin's jobs name it (`csi_plugin { id }`)."),
				"provider":             shared.ComputedString("The plugin's provider name, as it reports it."),
				"controller_required":  shared.ComputedBool("Whether the plugin needs a controller (a node-only plugin does not)."),
				"controllers_healthy":  shared.ComputedInt("Controller plugins running and healthy."),
				"controllers_expected": shared.ComputedInt("Controller plugins Nomad expects (from the plugin's jobs)."),
				"nodes_healthy":        shared.ComputedInt("Node plugins running and healthy."),
				"nodes_expected":       shared.ComputedInt("Node plugins Nomad expects (from the plugin's jobs)."),
				"healthy": shared.ComputedBool("Whether every expected plugin instance is healthy and there is at least one " +
					"healthy node plugin (and controller, when one is required): volumes can be claimed."),
			}),
		},
	}
}

func readCsiPlugins(ctx context.Context, data *shared.ProviderData, m *csiPluginsModel, diags *diag.Diagnostics) {
	plugins, err := data.Nomad.ListCSIPlugins(ctx)
	if err != nil {
		shared.AddNomadError(diags, "Could not list CSI plugins", err)
		return
	}
	*m = csiPluginsModel{Plugins: make([]csiPluginModel, 0, len(plugins))}
	for _, p := range plugins {
		m.Plugins = append(m.Plugins, csiPluginModel{ID: types.StringValue(p.ID), Provider: types.StringValue(p.Provider),
			ControllerRequired: types.BoolValue(p.ControllerRequired), ControllersHealthy: types.Int64Value(int64(p.ControllersHealthy)),
			ControllersExpected: types.Int64Value(int64(p.ControllersExpected)), NodesHealthy: types.Int64Value(int64(p.NodesHealthy)),
			NodesExpected: types.Int64Value(int64(p.NodesExpected)), Healthy: types.BoolValue(p.Healthy())})
	}
}
