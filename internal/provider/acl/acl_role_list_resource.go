package acl

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/list"

	"github.com/berthhq/terraform-provider-berth/internal/aclpolicy"
	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
)

var _ list.ListResourceWithConfigure = &aclRoleListResource{}

// NewACLRoleListResource builds the berth_acl_role list resource for
// `terraform query` (Terraform 1.14+).
func NewACLRoleListResource() list.ListResource {
	return &aclRoleListResource{NewACLRoleResource().(*aclRoleResource)}
}

// It embeds the resource: its name, provider data, identity and model.
type aclRoleListResource struct{ *aclRoleResource }

func (r *aclRoleListResource) ListResourceConfigSchema(_ context.Context, _ list.ListResourceSchemaRequest, resp *list.ListResourceSchemaResponse) {
	resp.Schema = namePrefixListSchema("ACL roles")
}

func (r *aclRoleListResource) List(ctx context.Context, req list.ListRequest, stream *list.ListResultsStream) {
	ctx, cfg, ok := shared.OpenList[namePrefixListModel](ctx, r.Data, req, stream)
	if !ok {
		return
	}
	roles, err := r.Data.Nomad.ListACLRoles(ctx, cfg.NamePrefix.ValueString())
	if err != nil {
		shared.ListFailed(stream, "Could not list ACL roles", err)
		return
	}
	stream.Results = shared.ListStream(roles, req.Limit, func(role aclpolicy.Role) (list.ListResult, bool) {
		result := req.NewListResult(ctx)
		result.DisplayName = role.Name
		aclRoleIdentity.Record(ctx, result.Identity, role.ID, &result.Diagnostics)
		if !req.IncludeResource {
			return result, true
		}
		var m aclRoleModel
		m.fromRole(ctx, &role, &result.Diagnostics)
		result.Diagnostics.Append(result.Resource.Set(ctx, &m)...)
		return result, true
	})
}
