package acl

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/list"
	"github.com/hashicorp/terraform-plugin-framework/resource"

	"github.com/berthhq/terraform-provider-berth/internal/aclpolicy"
	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
)

var _ list.ListResourceWithConfigure = &aclRoleListResource{}

// NewACLRoleListResource builds the berth_acl_role list resource for
// `terraform query` (Terraform 1.14+).
func NewACLRoleListResource() list.ListResource { return &aclRoleListResource{} }

type aclRoleListResource struct{ data *shared.ProviderData }

func (r *aclRoleListResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_acl_role"
}

func (r *aclRoleListResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.data = shared.ProviderDataFrom(req.ProviderData, &resp.Diagnostics)
}

func (r *aclRoleListResource) ListResourceConfigSchema(_ context.Context, _ list.ListResourceSchemaRequest, resp *list.ListResourceSchemaResponse) {
	resp.Schema = namePrefixListSchema("ACL roles")
}

func (r *aclRoleListResource) List(ctx context.Context, req list.ListRequest, stream *list.ListResultsStream) {
	ctx, cfg, ok := shared.OpenList[namePrefixListModel](ctx, r.data, req, stream)
	if !ok {
		return
	}
	roles, err := r.data.Nomad.ListACLRoles(ctx, cfg.NamePrefix.ValueString())
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
