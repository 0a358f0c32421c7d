package acl

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/list"
	listschema "github.com/hashicorp/terraform-plugin-framework/list/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/berthhq/terraform-provider-berth/internal/aclpolicy"
	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
)

var _ list.ListResourceWithConfigure = &aclBindingRuleListResource{}

// NewACLBindingRuleListResource builds the berth_acl_binding_rule list
// resource for `terraform query` (Terraform 1.14+).
func NewACLBindingRuleListResource() list.ListResource {
	return &aclBindingRuleListResource{NewACLBindingRuleResource().(*aclBindingRuleResource)}
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
	ctx, cfg, ok := shared.OpenList[bindingRuleListModel](ctx, r.Data, req, stream)
	if !ok {
		return
	}
	rules, err := r.Data.Nomad.ListACLBindingRules(ctx, cfg.AuthMethod.ValueString())
	if err != nil {
		shared.ListFailed(stream, "Could not list ACL binding rules", err)
		return
	}
	stream.Results = shared.ListStream(rules, req.Limit, func(s aclpolicy.BindingRule) (list.ListResult, bool) {
		result := req.NewListResult(ctx)
		result.DisplayName = s.AuthMethod + "/" + s.ID
		if s.Description != "" {
			result.DisplayName += " (" + s.Description + ")"
		}
		aclBindingRuleIdentity.Record(ctx, result.Identity, s.ID, &result.Diagnostics)
		if !req.IncludeResource {
			return result, true
		}
		b, err := r.Data.Nomad.GetACLBindingRule(ctx, s.ID)
		if err != nil || b == nil {
			if err == nil {
				return list.ListResult{}, false // deleted since it was listed
			}
			shared.AddNomadError(&result.Diagnostics, "Could not read ACL binding rule "+s.ID, err)
			return result, true
		}
		var m aclBindingRuleModel
		m.fromBindingRule(b)
		result.Diagnostics.Append(result.Resource.Set(ctx, &m)...)
		return result, true
	})
}
