package acl

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/list"

	"github.com/berthhq/terraform-provider-berth/internal/aclpolicy"
)

var _ list.ListResourceWithConfigure = &aclAuthMethodListResource{}

// NewACLAuthMethodListResource builds the berth_acl_auth_method list
// resource for `terraform query` (Terraform 1.14+).
func NewACLAuthMethodListResource() list.ListResource {
	return &aclAuthMethodListResource{newACLAuthMethodResource()}
}

// It embeds the resource: its name, provider data, identity and model.
type aclAuthMethodListResource struct{ *aclAuthMethodResource }

func (r *aclAuthMethodListResource) ListResourceConfigSchema(_ context.Context, _ list.ListResourceSchemaRequest, resp *list.ListResourceSchemaResponse) {
	resp.Schema = namePrefixListSchema("ACL auth methods (never their secrets)")
}

func (r *aclAuthMethodListResource) List(ctx context.Context, req list.ListRequest, stream *list.ListResultsStream) {
	listing[namePrefixListModel, aclpolicy.AuthMethodStub, aclpolicy.AuthMethod]{
		kind: "ACL auth method", kinds: "ACL auth methods", identity: aclAuthMethodIdentity,
		list: func(ctx context.Context, cfg namePrefixListModel) ([]aclpolicy.AuthMethodStub, error) {
			return r.Data.Nomad.ListACLAuthMethods(ctx, cfg.NamePrefix.ValueString())
		},
		show: func(s aclpolicy.AuthMethodStub) (string, string) { return s.Name + " (" + s.Type + ")", s.Name },
		read: func(ctx context.Context, s aclpolicy.AuthMethodStub) (*aclpolicy.AuthMethod, error) {
			return r.Data.Nomad.GetACLAuthMethod(ctx, s.Name)
		},
		model: func(ctx context.Context, a *aclpolicy.AuthMethod, diags *diag.Diagnostics) any {
			var m aclAuthMethodModel
			m.fromAuthMethod(ctx, a, diags)
			return &m
		},
	}.stream(ctx, r.Data, req, stream)
}
