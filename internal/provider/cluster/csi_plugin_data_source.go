package cluster

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timetypes/timetypes"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/berthhq/terraform-provider-berth/internal/nomadclient"
	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
)

// defaultCSIPluginWait bounds a wait for the plugin when wait_timeout
// does not.
const defaultCSIPluginWait = 5 * time.Minute

// NewCSIPluginDataSource builds the berth_csi_plugin data source.
func NewCSIPluginDataSource() datasource.DataSource {
	return shared.NewDataSource("csi_plugin", csiPluginDataSourceSchema, readCSIPlugin)
}

type csiPluginDataModel struct {
	PluginID              types.String         `tfsdk:"plugin_id"`
	WaitForRegistration   types.Bool           `tfsdk:"wait_for_registration"`
	WaitForHealthy        types.Bool           `tfsdk:"wait_for_healthy"`
	WaitTimeout           timetypes.GoDuration `tfsdk:"wait_timeout"`
	ID                    types.String         `tfsdk:"id"`
	PluginProvider        types.String         `tfsdk:"plugin_provider"`
	PluginProviderVersion types.String         `tfsdk:"plugin_provider_version"`
	ControllerRequired    types.Bool           `tfsdk:"controller_required"`
	ControllersExpected   types.Int64          `tfsdk:"controllers_expected"`
	ControllersHealthy    types.Int64          `tfsdk:"controllers_healthy"`
	NodesExpected         types.Int64          `tfsdk:"nodes_expected"`
	NodesHealthy          types.Int64          `tfsdk:"nodes_healthy"`
	Healthy               types.Bool           `tfsdk:"healthy"`
	Controllers           types.List           `tfsdk:"controllers"`
	Nodes                 types.List           `tfsdk:"nodes"`
}

// csiInstanceTypes is one element of controllers and nodes.
var csiInstanceTypes = map[string]attr.Type{"name": types.StringType, "healthy": types.BoolType, "healthy_description": types.StringType}

func csiPluginDataSourceSchema() schema.Schema {
	instances := func(what string) schema.ListNestedAttribute {
		return shared.ComputedObjects("The plugin's "+what+", sorted by node.", map[string]schema.Attribute{
			"name":                shared.ComputedString("ID of the node it runs on."),
			"healthy":             shared.ComputedBool("Whether it reports healthy."),
			"healthy_description": shared.ComputedString("What it says of its health."),
		})
	}
	return schema.Schema{
		MarkdownDescription: "One CSI plugin by ID, with its health and instances, as `nomad plugin status <id>` shows it; " +
			"optionally waits until the plugin is registered or healthy (its jobs just started). Reading a plugin Nomad " +
			"does not have, without waiting, is an error. Needs `plugin:read` when ACLs are on.",
		Attributes: map[string]schema.Attribute{
			"plugin_id": schema.StringAttribute{Required: true,
				MarkdownDescription: "Plugin ID, as the plugin's jobs name it (`csi_plugin { id }`)."},
			"wait_for_registration": schema.BoolAttribute{Optional: true,
				MarkdownDescription: "Wait until Nomad has the plugin, up to `wait_timeout`, instead of failing at once."},
			"wait_for_healthy": schema.BoolAttribute{Optional: true,
				MarkdownDescription: "Wait until the plugin is registered and `healthy`, up to `wait_timeout`."},
			"wait_timeout": schema.StringAttribute{CustomType: timetypes.GoDurationType{}, Optional: true,
				MarkdownDescription: "How long a wait may take, as a Go duration (`90s`, `5m`). Default `5m`."},
			"id":                      shared.ComputedString("The plugin ID."),
			"plugin_provider":         shared.ComputedString("The plugin's provider name, as it reports it."),
			"plugin_provider_version": shared.ComputedString("The plugin's version, as it reports it."),
			"controller_required":     shared.ComputedBool("Whether the plugin needs a controller (a node-only plugin does not)."),
			"controllers_expected":    shared.ComputedInt("Controller plugins Nomad expects (from the plugin's jobs)."),
			"controllers_healthy":     shared.ComputedInt("Controller plugins running and healthy."),
			"nodes_expected":          shared.ComputedInt("Node plugins Nomad expects (from the plugin's jobs)."),
			"nodes_healthy":           shared.ComputedInt("Node plugins running and healthy."),
			"healthy": shared.ComputedBool("Whether every expected plugin instance is healthy and there is at least one " +
				"healthy node plugin (and controller, when one is required): volumes can be claimed."),
			"controllers": instances("controller instances"),
			"nodes":       instances("node instances"),
		},
	}
}

func readCSIPlugin(ctx context.Context, data *shared.ProviderData, m *csiPluginDataModel, diags *diag.Diagnostics) {
	id := m.PluginID.ValueString()
	p, err := fetchCSIPlugin(ctx, data, m, diags)
	if diags.HasError() {
		return
	}
	if err != nil {
		shared.AddNomadError(diags, "Could not read CSI plugin "+id, err)
		return
	}
	if p == nil {
		diags.AddAttributeError(path.Root("plugin_id"), "CSI plugin not found",
			fmt.Sprintf("Nomad has no CSI plugin %q. Its job registers it once the plugin task runs: check the job "+
				"(`nomad plugin status`, `nomad job status`), or set wait_for_registration to wait for it.", id))
		return
	}
	m.ID, m.PluginProvider, m.PluginProviderVersion = types.StringValue(p.ID), types.StringValue(p.Provider), types.StringValue(p.Version)
	m.ControllerRequired, m.Healthy = types.BoolValue(p.ControllerRequired), types.BoolValue(p.Healthy())
	m.ControllersExpected, m.ControllersHealthy = types.Int64Value(int64(p.ControllersExpected)), types.Int64Value(int64(p.ControllersHealthy))
	m.NodesExpected, m.NodesHealthy = types.Int64Value(int64(p.NodesExpected)), types.Int64Value(int64(p.NodesHealthy))
	m.Controllers = csiInstancesList(p.Controllers, diags)
	m.Nodes = csiInstancesList(p.Nodes, diags)
}

// fetchCSIPlugin reads the plugin once, or waits for it as the configuration asks,
// within its deadline.
func fetchCSIPlugin(ctx context.Context, data *shared.ProviderData, m *csiPluginDataModel, diags *diag.Diagnostics) (*nomadclient.CSIPluginDetail, error) {
	healthy := m.WaitForHealthy.ValueBool()
	if !healthy && !m.WaitForRegistration.ValueBool() {
		return data.Nomad.GetCSIPlugin(ctx, m.PluginID.ValueString())
	}
	wait := defaultCSIPluginWait
	if !m.WaitTimeout.IsNull() {
		var d2 diag.Diagnostics
		if wait, d2 = m.WaitTimeout.ValueGoDuration(); d2.HasError() || wait <= 0 {
			diags.AddAttributeError(path.Root("wait_timeout"), "Invalid wait_timeout",
				fmt.Sprintf("%q is not a positive Go duration such as 90s or 5m.", m.WaitTimeout.ValueString()))
			return nil, nil
		}
	}
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	p, err := data.Nomad.WaitCSIPlugin(ctx, m.PluginID.ValueString(), healthy)
	if errors.Is(err, context.DeadlineExceeded) {
		return p, fmt.Errorf("waited %s (wait_timeout): %w", wait, err)
	}
	return p, err
}

func csiInstancesList(in []nomadclient.CSIPluginInstance, diags *diag.Diagnostics) types.List {
	elems := make([]attr.Value, 0, len(in))
	for _, i := range in {
		obj, d := types.ObjectValue(csiInstanceTypes, map[string]attr.Value{"name": types.StringValue(i.NodeID),
			"healthy": types.BoolValue(i.Healthy), "healthy_description": types.StringValue(i.HealthDescription)})
		diags.Append(d...)
		elems = append(elems, obj)
	}
	l, d := types.ListValue(types.ObjectType{AttrTypes: csiInstanceTypes}, elems)
	diags.Append(d...)
	return l
}
