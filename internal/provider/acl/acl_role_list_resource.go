package acl

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/list"

	"github.com/berthhq/terraform-provider-berth/internal/aclpolicy"
)

var _ list.ListResourceWithConfigure = &aclRoleListResource{}

// NewACLRoleListResource builds the berth_acl_role list resource for
// `terraform query` (Terraform 1.14+).
func NewACLRoleListResource() list.ListResource {
	return &aclRoleListResource{newACLRoleResource()}
}

// It embeds the resource: its name, provider data, identity and model.
type aclRoleListResource struct{ *aclRoleResource }

func (r *aclRoleListResource) ListResourceConfigSchema(_ context.Context, _ list.ListResourceSchemaRequest, resp *list.ListResourceSchemaResponse) {
	resp.Schema = namePrefixListSchema("ACL roles")
}

// List takes the roles as listed: Nomad's listing carries all of a role.
func (r *aclRoleListResource) List(ctx context.Context, req list.ListRequest, stream *list.ListResultsStream) {
	listing[namePrefixListModel, aclpolicy.Role, aclpolicy.Role]{
		kind: "ACL role", kinds: "ACL roles", identity: aclRoleIdentity,
		list: func(ctx context.Context, cfg namePrefixListModel) ([]aclpolicy.Role, error) {
			return r.Data.Nomad.ListACLRoles(ctx, cfg.NamePrefix.ValueString())
		},
		show: func(role aclpolicy.Role) (string, string) { return role.Name, role.ID },
		read: func(_ context.Context, role aclpolicy.Role) (*aclpolicy.Role, error) { return &role, nil },
		model: func(ctx context.Context, role *aclpolicy.Role, diags *diag.Diagnostics) any {
			var m aclRoleModel
			m.fromRole(ctx, role, diags)
			return &m
		},
	}.stream(ctx, r.Data, req, stream)
}
