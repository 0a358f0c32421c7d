package acl

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework-validators/datasourcevalidator"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/berthhq/terraform-provider-berth/internal/aclpolicy"
	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
)

// NewACLRoleDataSource builds the berth_acl_role data source, which reads
// one role, by ID or by name, into the resource's model.
func NewACLRoleDataSource() datasource.DataSource {
	d := newACLDataSource("acl_role", aclRoleDataSchema, readACLRole)
	d.validators = []datasource.ConfigValidator{datasourcevalidator.ExactlyOneOf(path.MatchRoot("id"), path.MatchRoot("name"))}
	return d
}

func aclRoleDataSchema() schema.Schema {
	return schema.Schema{
		MarkdownDescription: "One ACL role, by ID or by name: its name, description and the policies it grants. The " +
			"attribute names are those of hashicorp/nomad's `nomad_acl_role` data source, which looks a role up by `id`; " +
			"`policies` holds the policies' names (as `berth_acl_role` does). Needs a management token.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{Optional: true, Computed: true,
				MarkdownDescription: "The role's ID. Give either `id` or `name`."},
			"name": schema.StringAttribute{Optional: true, Computed: true,
				MarkdownDescription: "The role's name. Give either `id` or `name`.",
				Validators:          []validator.String{aclNameValidator()}},
			"description": schema.StringAttribute{Computed: true, MarkdownDescription: "Description; null when none."},
			"policies": schema.SetAttribute{Computed: true, ElementType: types.StringType,
				MarkdownDescription: "Names of the ACL policies the role grants."},
		},
	}
}

func readACLRole(ctx context.Context, data *shared.ProviderData, m *aclRoleModel, diags *diag.Diagnostics) {
	var role *aclpolicy.Role
	var err error
	at, missing := path.Root("name"), fmt.Sprintf("Nomad has no ACL role named %q.", m.Name.ValueString())
	if id := m.ID.ValueString(); !m.ID.IsNull() {
		at, missing = path.Root("id"), fmt.Sprintf("Nomad has no ACL role with the ID %q.", id)
		if aclpolicy.IsID(id) {
			role, err = data.Nomad.GetACLRole(ctx, id)
		} else {
			missing = fmt.Sprintf("%q is not an ACL role ID (a UUID); to look a role up by its name, set name instead.", id)
		}
	} else {
		role, err = data.Nomad.GetACLRoleByName(ctx, m.Name.ValueString())
	}
	if found(diags, at, "ACL role", role, err, missing+" List the roles with `nomad acl role list` or the "+
		"`berth_acl_roles` data source.") {
		m.fromRole(ctx, role, diags)
	}
}
