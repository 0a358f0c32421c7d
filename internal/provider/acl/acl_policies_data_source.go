package acl

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
)

var _ datasource.DataSourceWithConfigure = &aclPoliciesDataSource{}

// NewACLPoliciesDataSource builds the berth_acl_policies data source.
func NewACLPoliciesDataSource() datasource.DataSource {
	return &aclPoliciesDataSource{shared.NewDataSourceBase("acl_policies")}
}

type aclPoliciesDataSource struct{ shared.DataSourceBase }

type aclPoliciesModel struct {
	NamePrefix types.String            `tfsdk:"name_prefix"`
	Policies   []aclPolicySummaryModel `tfsdk:"policies"`
}

type aclPolicySummaryModel struct {
	Name        types.String `tfsdk:"name"`
	Description types.String `tfsdk:"description"`
}

func (d *aclPoliciesDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "The cluster's ACL policies: names and descriptions, sorted by name (not their rules). Needs a management token, or a token that may read the policies it lists.",
		Attributes: map[string]schema.Attribute{
			"name_prefix": schema.StringAttribute{Optional: true, MarkdownDescription: "Only policies whose name starts with this."},
			"policies": schema.ListNestedAttribute{Computed: true, MarkdownDescription: "The policies, sorted by name.",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"name":        schema.StringAttribute{Computed: true, MarkdownDescription: "Policy name."},
					"description": schema.StringAttribute{Computed: true, MarkdownDescription: "Description (`\"\"` when none)."},
				}}},
		},
	}
}

func (d *aclPoliciesDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	readData(ctx, req, resp, func(m *aclPoliciesModel, diags *diag.Diagnostics) {
		stubs, err := d.Data.Nomad.ListACLPolicies(ctx, m.NamePrefix.ValueString())
		if err != nil {
			shared.AddNomadError(diags, "Could not list ACL policies", err)
			return
		}
		m.Policies = make([]aclPolicySummaryModel, 0, len(stubs))
		for _, s := range stubs {
			m.Policies = append(m.Policies, aclPolicySummaryModel{Name: types.StringValue(s.Name), Description: types.StringValue(s.Description)})
		}
	})
}
