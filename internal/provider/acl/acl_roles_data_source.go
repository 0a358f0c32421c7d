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

// NewACLRolesDataSource builds the berth_acl_roles data source.
func NewACLRolesDataSource() datasource.DataSource {
	return newACLDataSource("acl_roles", aclRolesSchema, readACLRoles)
}

type aclRolesModel struct {
	NamePrefix types.String          `tfsdk:"name_prefix"`
	Roles      []aclRoleSummaryModel `tfsdk:"roles"`
}

func aclRolesSchema() schema.Schema {
	return prefixListSchema("The cluster's ACL roles and the policies each grants, sorted by name. Needs a management token.",
		"roles", "The roles, sorted by name.", map[string]schema.Attribute{
			"id":          computedString("Role ID."),
			"name":        computedString("Role name."),
			"description": computedString("Description (`\"\"` when none)."),
			"policies": schema.SetAttribute{Computed: true, ElementType: types.StringType,
				MarkdownDescription: "Names of the policies the role grants."},
		})
}

func readACLRoles(ctx context.Context, data *shared.ProviderData, m *aclRolesModel, diags *diag.Diagnostics) {
	roles, err := data.Nomad.ListACLRoles(ctx, m.NamePrefix.ValueString())
	m.Roles = listed(diags, "ACL roles", roles, err, nil, func(r aclpolicy.Role) aclRoleSummaryModel {
		return aclRoleSummaryModel{ID: types.StringValue(r.ID), Name: types.StringValue(r.Name),
			Description: types.StringValue(r.Description), Policies: stringSet(ctx, r.Policies, diags)}
	})
}

// aclRoleSummaryModel is one listed role.
type aclRoleSummaryModel struct {
	ID          types.String `tfsdk:"id"`
	Name        types.String `tfsdk:"name"`
	Description types.String `tfsdk:"description"`
	Policies    types.Set    `tfsdk:"policies"`
}
