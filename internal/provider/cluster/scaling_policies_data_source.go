package cluster

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
)

// NewScalingPoliciesDataSource builds the berth_scaling_policies data source.
func NewScalingPoliciesDataSource() datasource.DataSource {
	return &scalingPoliciesDataSource{shared.NewDataSourceBase("scaling_policies")}
}

type scalingPoliciesDataSource struct{ shared.DataSourceBase }

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

func (d *scalingPoliciesDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
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

func (d *scalingPoliciesDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var m scalingPoliciesModel
	if resp.Diagnostics.Append(req.Config.Get(ctx, &m)...); resp.Diagnostics.HasError() {
		return
	}
	policies, err := d.Data.Nomad.ListScalingPolicies(ctx, m.Namespace.ValueString(), m.Job.ValueString(), m.Type.ValueString())
	if err != nil {
		shared.AddNomadError(&resp.Diagnostics, "Could not list scaling policies", err)
		return
	}
	m.Policies = make([]scalingPolicyModel, 0, len(policies))
	for _, p := range policies {
		target, diags := types.MapValueFrom(ctx, types.StringType, p.Target)
		resp.Diagnostics.Append(diags...)
		m.Policies = append(m.Policies, scalingPolicyModel{ID: types.StringValue(p.ID), Type: types.StringValue(p.Type),
			Enabled: types.BoolValue(p.Enabled), Target: target})
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}
