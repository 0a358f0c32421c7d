package cluster

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework-jsontypes/jsontypes"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
)

// NewScalingPolicyDataSource builds the berth_scaling_policy data source.
func NewScalingPolicyDataSource() datasource.DataSource {
	return shared.NewDataSource("scaling_policy", scalingPolicyDataSourceSchema, readScalingPolicy)
}

type scalingPolicyDataModel struct {
	ID      types.String         `tfsdk:"id"`
	Enabled types.Bool           `tfsdk:"enabled"`
	Type    types.String         `tfsdk:"type"`
	Min     types.Int64          `tfsdk:"min"`
	Max     types.Int64          `tfsdk:"max"`
	Policy  jsontypes.Normalized `tfsdk:"policy"`
	Target  types.Map            `tfsdk:"target"`
}

func scalingPolicyDataSourceSchema() schema.Schema {
	return schema.Schema{
		MarkdownDescription: "One scaling policy by ID (find IDs with `berth_scaling_policies`), as the Nomad Autoscaler " +
			"reads it from a job's `scaling` block. Needs `read-scaling-policy` when ACLs are on.",
		Attributes: map[string]schema.Attribute{
			"id":      schema.StringAttribute{Required: true, MarkdownDescription: "Policy ID."},
			"enabled": shared.ComputedBool("Whether the autoscaler acts on it."),
			"type":    shared.ComputedString("Policy type: `horizontal`, or a vertical type in Nomad Enterprise."),
			"min":     shared.ComputedInt("The fewest the autoscaler may scale to; null when the block sets none."),
			"max":     shared.ComputedInt("The most the autoscaler may scale to."),
			"policy": schema.StringAttribute{Computed: true, CustomType: jsontypes.NormalizedType{},
				MarkdownDescription: "The block's `policy` (its checks, cooldown, strategy…) as JSON; `{}` when it has none. " +
					"Decode it with `jsondecode`."},
			"target": schema.MapAttribute{Computed: true, ElementType: types.StringType,
				MarkdownDescription: "What it scales: `Namespace`, `Job`, `Group` (and `Task` for vertical policies)."},
		},
	}
}

func readScalingPolicy(ctx context.Context, data *shared.ProviderData, m *scalingPolicyDataModel, diags *diag.Diagnostics) {
	id := m.ID.ValueString()
	p, err := data.Nomad.GetScalingPolicy(ctx, id)
	if err != nil {
		shared.AddNomadError(diags, "Could not read scaling policy "+id, err)
		return
	}
	if p == nil {
		diags.AddAttributeError(path.Root("id"), "Scaling policy not found",
			fmt.Sprintf("Nomad has no scaling policy %q (or the token may not see it). List the policies with the "+
				"berth_scaling_policies data source or `nomad scaling policy list`.", id))
		return
	}
	m.Enabled, m.Type = types.BoolValue(p.Enabled), types.StringValue(p.Type)
	m.Min, m.Max = types.Int64PointerValue(p.Min), types.Int64PointerValue(p.Max)
	m.Policy = jsontypes.NewNormalizedValue(p.PolicyJSON)
	m.Target = shared.MapOrNull(ctx, p.Target, diags)
}
