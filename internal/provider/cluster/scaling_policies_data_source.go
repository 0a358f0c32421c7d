package cluster

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
)

// NewScalingPoliciesDataSource builds the berth_scaling_policies data source.
func NewScalingPoliciesDataSource() datasource.DataSource {
	return shared.NewDataSource("scaling_policies", scalingPoliciesDataSourceSchema, readScalingPolicies)
}

type scalingPoliciesModel struct {
	Namespace types.String         `tfsdk:"namespace"`
	Job       types.String         `tfsdk:"job"`
	Type      types.String         `tfsdk:"type"`
	Policies  []scalingPolicyModel `tfsdk:"policies"`
}

type scalingPolicyModel struct {
	ID      types.String `tfsdk:"id"`
	Type    types.String `tfsdk:"type"`
	Enabled types.Bool   `tfsdk:"enabled"`
	Target  types.Map    `tfsdk:"target"`
}

func scalingPoliciesDataSourceSchema() schema.Schema {
	return schema.Schema{
		MarkdownDescription: "The scaling policies of a namespace (or all of them), as the Nomad Autoscaler reads them from " +
			"jobs' `scaling` blocks. Needs `list-scaling-policies` when ACLs are on.",
		Attributes: map[string]schema.Attribute{
			"namespace": namespaceInput(),
			"job":       optionalString("Only the policies of this job (its ID)."),
			"type":      optionalString("Only policies of this type, e.g. `horizontal`."),
			"policies": shared.ComputedObjects("The policies, sorted by ID.", map[string]schema.Attribute{
				"id":      shared.ComputedString("Policy ID."),
				"type":    shared.ComputedString("Policy type: `horizontal`, or a vertical type in Nomad Enterprise."),
				"enabled": shared.ComputedBool("Whether the autoscaler acts on it."),
				"target": schema.MapAttribute{Computed: true, ElementType: types.StringType,
					MarkdownDescription: "What it scales: `Namespace`, `Job`, `Group` (and `Task` for vertical policies)."},
			}),
		},
	}
}

func readScalingPolicies(ctx context.Context, data *shared.ProviderData, m *scalingPoliciesModel, diags *diag.Diagnostics) {
	policies, err := data.Nomad.ListScalingPolicies(ctx, m.Namespace.ValueString(), m.Job.ValueString(), m.Type.ValueString())
	if err != nil {
		shared.AddNomadError(diags, "Could not list scaling policies", err)
		return
	}
	m.Policies = make([]scalingPolicyModel, 0, len(policies))
	for _, p := range policies {
		target, diags := types.MapValueFrom(ctx, types.StringType, p.Target)
		diags.Append(diags...)
		m.Policies = append(m.Policies, scalingPolicyModel{ID: types.StringValue(p.ID), Type: types.StringValue(p.Type),
			Enabled: types.BoolValue(p.Enabled), Target: target})
	}
}
