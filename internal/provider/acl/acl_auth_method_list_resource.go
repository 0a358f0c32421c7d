package acl

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/list"

	"github.com/berthhq/terraform-provider-berth/internal/aclpolicy"
	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
)

var _ list.ListResourceWithConfigure = &aclAuthMethodListResource{}

// NewACLAuthMethodListResource builds the berth_acl_auth_method list
// resource for `terraform query` (Terraform 1.14+).
func NewACLAuthMethodListResource() list.ListResource {
	return &aclAuthMethodListResource{NewACLAuthMethodResource().(*aclAuthMethodResource)}
}

// It embeds the resource: its name, provider data, identity and model.
type aclAuthMethodListResource struct{ *aclAuthMethodResource }

func (r *aclAuthMethodListResource) ListResourceConfigSchema(_ context.Context, _ list.ListResourceSchemaRequest, resp *list.ListResourceSchemaResponse) {
	resp.Schema = namePrefixListSchema("ACL auth methods (never their secrets)")
}

func (r *aclAuthMethodListResource) List(ctx context.Context, req list.ListRequest, stream *list.ListResultsStream) {
	ctx, cfg, ok := shared.OpenList[namePrefixListModel](ctx, r.Data, req, stream)
	if !ok {
		return
	}
	stubs, err := r.Data.Nomad.ListACLAuthMethods(ctx, cfg.NamePrefix.ValueString())
	if err != nil {
		shared.ListFailed(stream, "Could not list ACL auth methods", err)
		return
	}
	stream.Results = shared.ListStream(stubs, req.Limit, func(s aclpolicy.AuthMethodStub) (list.ListResult, bool) {
		result := req.NewListResult(ctx)
		result.DisplayName = s.Name + " (" + s.Type + ")"
		aclAuthMethodIdentity.Record(ctx, result.Identity, s.Name, &result.Diagnostics)
		if !req.IncludeResource {
			return result, true
		}
		a, err := r.Data.Nomad.GetACLAuthMethod(ctx, s.Name)
		if err != nil || a == nil {
			if err == nil {
				return list.ListResult{}, false // deleted since it was listed
			}
			shared.AddNomadError(&result.Diagnostics, "Could not read ACL auth method "+s.Name, err)
			return result, true
		}
		var m aclAuthMethodModel
		m.fromAuthMethod(ctx, a, &result.Diagnostics)
		result.Diagnostics.Append(result.Resource.Set(ctx, &m)...)
		return result, true
	})
}
