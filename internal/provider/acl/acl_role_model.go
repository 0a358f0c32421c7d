package acl

import (
	"context"
	"sort"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/berthhq/terraform-provider-berth/internal/aclpolicy"
	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
)

type aclRoleModel struct {
	ID          types.String `tfsdk:"id"`
	Name        types.String `tfsdk:"name"`
	Description types.String `tfsdk:"description"`
	Policies    types.Set    `tfsdk:"policies"`
}

// toRole is the role to write for m.
func (m *aclRoleModel) toRole(ctx context.Context, diags *diag.Diagnostics) aclpolicy.Role {
	r := aclpolicy.Role{ID: m.ID.ValueString(), Name: m.Name.ValueString(), Description: m.Description.ValueString()}
	if m.ID.IsUnknown() {
		r.ID = ""
	}
	diags.Append(m.Policies.ElementsAs(ctx, &r.Policies, false)...)
	sort.Strings(r.Policies)
	return r
}

// fromRole writes what Nomad holds into m.
func (m *aclRoleModel) fromRole(ctx context.Context, r *aclpolicy.Role, diags *diag.Diagnostics) {
	m.ID = types.StringValue(r.ID)
	m.Name = types.StringValue(r.Name)
	m.Description = shared.StringOrNull(r.Description)
	v, d := types.SetValueFrom(ctx, types.StringType, r.Policies)
	diags.Append(d...)
	m.Policies = v
}
