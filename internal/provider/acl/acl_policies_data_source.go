package acl

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/berthhq/terraform-provider-berth/internal/aclpolicy"
	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
)

// NewACLPoliciesDataSource builds the berth_acl_policies data source.
func NewACLPoliciesDataSource() datasource.DataSource {
	return newACLDataSource("acl_policies", aclPoliciesSchema, readACLPolicies)
}

type aclPoliciesModel struct {
	NamePrefix types.String            `tfsdk:"name_prefix"`
	Policies   []aclPolicySummaryModel `tfsdk:"policies"`
}

func aclPoliciesSchema() schema.Schema {
	return prefixListSchema("The cluster's ACL policies: names and descriptions, sorted by name (not their rules). Needs a "+
		"management token, or a token that may read the policies it lists.", "policies", "The policies, sorted by name.",
		map[string]schema.Attribute{
			"name":        computedString("Policy name."),
			"description": computedString("Description (`\"\"` when none)."),
		})
}

func readACLPolicies(ctx context.Context, data *shared.ProviderData, m *aclPoliciesModel, diags *diag.Diagnostics) {
	stubs, err := data.Nomad.ListACLPolicies(ctx, m.NamePrefix.ValueString())
	m.Policies = listed(diags, "ACL policies", stubs, err, nil, func(s aclpolicy.PolicyStub) aclPolicySummaryModel {
		return aclPolicySummaryModel{Name: types.StringValue(s.Name), Description: types.StringValue(s.Description)}
	})
}

// aclPolicySummaryModel is one listed policy.
type aclPolicySummaryModel struct {
	Name        types.String `tfsdk:"name"`
	Description types.String `tfsdk:"description"`
}
