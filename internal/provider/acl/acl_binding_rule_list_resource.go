package acl

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/list"
	listschema "github.com/hashicorp/terraform-plugin-framework/list/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/berthhq/terraform-provider-berth/internal/aclpolicy"
)

var _ list.ListResourceWithConfigure = &aclBindingRuleListResource{}

// NewACLBindingRuleListResource builds the berth_acl_binding_rule list
// resource for `terraform query` (Terraform 1.14+).
func NewACLBindingRuleListResource() list.ListResource {
	return &aclBindingRuleListResource{newACLBindingRuleResource()}
}

// It embeds the resource: its name, provider data, identity and model.
type aclBindingRuleListResource struct{ *aclBindingRuleResource }

type bindingRuleListModel struct {
	AuthMethod types.String `tfsdk:"auth_method"`
}

func (r *aclBindingRuleListResource) ListResourceConfigSchema(_ context.Context, _ list.ListResourceSchemaRequest, resp *list.ListResourceSchemaResponse) {
	resp.Schema = listschema.Schema{
		MarkdownDescription: "ACL binding rules, whoever created them, for `terraform query` (Terraform 1.14 and later).",
		Attributes: map[string]listschema.Attribute{
			"auth_method": listschema.StringAttribute{Optional: true, MarkdownDescription: "Only the rules of this auth method."},
		},
	}
}

func (r *aclBindingRuleListResource) List(ctx context.Context, req list.ListRequest, stream *list.ListResultsStream) {
	listing[bindingRuleListModel, aclpolicy.BindingRule, aclpolicy.BindingRule]{
		kind: "ACL binding rule", kinds: "ACL binding rules", identity: aclBindingRuleIdentity,
		list: func(ctx context.Context, cfg bindingRuleListModel) ([]aclpolicy.BindingRule, error) {
			return r.Data.Nomad.ListACLBindingRules(ctx, cfg.AuthMethod.ValueString())
		},
		show: func(s aclpolicy.BindingRule) (string, string) {
			display := s.AuthMethod + "/" + s.ID
			if s.Description != "" {
				display += " (" + s.Description + ")"
			}
			return display, s.ID
		},
		read: func(ctx context.Context, s aclpolicy.BindingRule) (*aclpolicy.BindingRule, error) {
			return r.Data.Nomad.GetACLBindingRule(ctx, s.ID)
		},
		model: func(_ context.Context, b *aclpolicy.BindingRule, _ *diag.Diagnostics) any {
			var m aclBindingRuleModel
			m.fromBindingRule(b)
			return &m
		},
	}.stream(ctx, r.Data, req, stream)
}
