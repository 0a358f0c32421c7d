package acl

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/list"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/berthhq/terraform-provider-berth/internal/aclpolicy"
)

var _ list.ListResourceWithConfigure = &aclPolicyListResource{}

// NewACLPolicyListResource builds the berth_acl_policy list resource for
// `terraform query` (Terraform 1.14+).
func NewACLPolicyListResource() list.ListResource {
	return &aclPolicyListResource{newACLPolicyResource()}
}

// It embeds the resource: its name, provider data, identity and model.
type aclPolicyListResource struct{ *aclPolicyResource }

func (r *aclPolicyListResource) ListResourceConfigSchema(_ context.Context, _ list.ListResourceSchemaRequest, resp *list.ListResourceSchemaResponse) {
	resp.Schema = namePrefixListSchema("ACL policies")
}

func (r *aclPolicyListResource) List(ctx context.Context, req list.ListRequest, stream *list.ListResultsStream) {
	listing[namePrefixListModel, aclpolicy.PolicyStub, aclpolicy.Policy]{
		kind: "ACL policy", kinds: "ACL policies", identity: aclPolicyIdentity,
		list: func(ctx context.Context, cfg namePrefixListModel) ([]aclpolicy.PolicyStub, error) {
			return r.Data.Nomad.ListACLPolicies(ctx, cfg.NamePrefix.ValueString())
		},
		show: func(s aclpolicy.PolicyStub) (string, string) { return s.Name, s.Name },
		read: func(ctx context.Context, s aclpolicy.PolicyStub) (*aclpolicy.Policy, error) {
			return r.Data.Nomad.GetACLPolicy(ctx, s.Name)
		},
		model: func(_ context.Context, p *aclpolicy.Policy, _ *diag.Diagnostics) any {
			m := aclPolicyModel{Description: types.StringNull()}
			m.fromPolicy(p)
			return &m
		},
	}.stream(ctx, r.Data, req, stream)
}
