package namespace

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
)

// NewNamespaceDataSource builds the berth_namespace data source.
func NewNamespaceDataSource() datasource.DataSource {
	return shared.NewDataSource("namespace", namespaceDataSourceSchema, readNamespace)
}

// Schema mirrors berth_namespace's attributes, computed but for name.
func namespaceDataSourceSchema() schema.Schema {
	set := func(doc string) schema.SetAttribute {
		return schema.SetAttribute{Computed: true, ElementType: types.StringType, MarkdownDescription: doc}
	}
	access := func(one, many string) schema.SingleNestedAttribute {
		return schema.SingleNestedAttribute{Computed: true,
			MarkdownDescription: "The " + one + " jobs use when they name none, and which " + many + " they may use " +
				"(Nomad Enterprise; null on Nomad CE).",
			Attributes: map[string]schema.Attribute{
				"default": schema.StringAttribute{Computed: true, MarkdownDescription: "The " + one + " of jobs that name none."},
				"allowed": set("The " + many + " jobs may use; null: all, empty: only the default."),
				"denied":  set("The " + many + " jobs may not use."),
			}}
	}
	return schema.Schema{
		MarkdownDescription: "One Nomad namespace and its settings, as `berth_namespace` manages them.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{Computed: true, MarkdownDescription: "The namespace's name."},
			"name": schema.StringAttribute{Required: true, MarkdownDescription: "Namespace name." + shared.NamespaceRuleDoc,
				Validators: []validator.String{shared.NamespaceValidator()}},
			"description": schema.StringAttribute{Computed: true, MarkdownDescription: "Description."},
			"meta":        schema.MapAttribute{Computed: true, ElementType: types.StringType, MarkdownDescription: "Metadata."},
			"capabilities": schema.SingleNestedAttribute{Computed: true,
				MarkdownDescription: "Task drivers and network modes jobs may use; null: no restriction.",
				Attributes: map[string]schema.Attribute{
					"enabled_task_drivers":   set("Task drivers jobs may use; null: every driver not disabled."),
					"disabled_task_drivers":  set("Task drivers jobs may not use."),
					"enabled_network_modes":  set("Network modes jobs may use; null: every mode not disabled."),
					"disabled_network_modes": set("Network modes jobs may not use."),
				}},
			"quota":            schema.StringAttribute{Computed: true, MarkdownDescription: "Quota specification (Nomad Enterprise)."},
			"node_pool_config": access("node pool", "node pools"),
			"vault_config":     access("Vault cluster", "Vault clusters"),
			"consul_config":    access("Consul cluster", "Consul clusters"),
		},
	}
}

func readNamespace(ctx context.Context, data *shared.ProviderData, m *namespaceModel, diags *diag.Diagnostics) {
	name := m.Name
	ns, err := data.Nomad.GetNamespace(ctx, name.ValueString())
	if err != nil {
		shared.AddNomadError(diags, "Could not read the namespace", err)
		return
	}
	if ns == nil {
		diags.AddAttributeError(path.Root("name"), "Namespace not found",
			fmt.Sprintf("Nomad has no namespace named %q (or the token may not see it). List the namespaces with the "+
				"berth_namespaces data source or `nomad namespace list`.", name.ValueString()))
		return
	}
	// Only the name comes from configuration: start the rest afresh.
	*m = namespaceModel{Description: types.StringNull(), Meta: types.MapNull(types.StringType),
		Capabilities: types.ObjectNull(capabilitiesTypes)}
	m.fromNamespace(ctx, ns, diags)
}
