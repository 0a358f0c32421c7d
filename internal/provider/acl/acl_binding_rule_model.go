package acl

import (
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/berthhq/terraform-provider-berth/internal/aclpolicy"
	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
)

type aclBindingRuleModel struct {
	ID          types.String `tfsdk:"id"`
	AuthMethod  types.String `tfsdk:"auth_method"`
	Selector    types.String `tfsdk:"selector"`
	BindType    types.String `tfsdk:"bind_type"`
	BindName    types.String `tfsdk:"bind_name"`
	Description types.String `tfsdk:"description"`
}

func (m *aclBindingRuleModel) toBindingRule() aclpolicy.BindingRule {
	b := aclpolicy.BindingRule{ID: m.ID.ValueString(), AuthMethod: m.AuthMethod.ValueString(), Selector: m.Selector.ValueString(),
		BindType: m.BindType.ValueString(), BindName: m.BindName.ValueString(), Description: m.Description.ValueString()}
	if m.ID.IsUnknown() {
		b.ID = ""
	}
	return b
}

func (m *aclBindingRuleModel) fromBindingRule(b *aclpolicy.BindingRule) {
	m.ID, m.AuthMethod, m.BindType = types.StringValue(b.ID), types.StringValue(b.AuthMethod), types.StringValue(b.BindType)
	m.Selector, m.BindName = shared.StringOrNull(b.Selector), shared.StringOrNull(b.BindName)
	m.Description = shared.StringOrNull(b.Description)
}
