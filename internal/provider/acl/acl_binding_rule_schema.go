package acl

import (
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"

	"github.com/berthhq/terraform-provider-berth/internal/aclpolicy"
	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
)

// selectorValidator runs Nomad's selector parser (go-bexpr) at plan.
func selectorValidator() validator.String {
	return shared.StringRule{Summary: "Invalid binding rule selector", Desc: "must parse as a Nomad selector expression",
		Check: func(s string) error {
			if err := aclpolicy.CheckSelector(s); err != nil {
				return fmt.Errorf("refused by Nomad's selector parser: %v. Selectors read the claims an auth method maps, e.g. "+
					"`\"admins\" in list.groups` or `value.team == \"ops\"`", err)
			}
			return nil
		}}
}

func aclBindingRuleSchema() schema.Schema {
	replace := []planmodifier.String{stringplanmodifier.RequiresReplace()}
	return schema.Schema{
		MarkdownDescription: "A Nomad ACL binding rule: what a login through an auth method is granted when the claims " +
			"match its selector: a role, a policy, or a management token. Needs a management token.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{Computed: true, MarkdownDescription: "The rule's ID, which Nomad assigns.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()}},
			"auth_method": schema.StringAttribute{Required: true, PlanModifiers: replace,
				MarkdownDescription: "Name of the auth method the rule applies to (Nomad refuses one that does not exist: refer " +
					"to `berth_acl_auth_method.<name>.name`). Changing it replaces the rule: Nomad does not move a rule.",
				Validators: []validator.String{aclNameValidator()}},
			"selector": schema.StringAttribute{Optional: true, Validators: append([]validator.String{selectorValidator()}, nonEmpty...),
				MarkdownDescription: "Expression over the login's mapped claims, checked at plan with Nomad's parser. Unset: " +
					"every login through the method matches."},
			"bind_type": schema.StringAttribute{Required: true, PlanModifiers: replace,
				MarkdownDescription: "What a matching login gets: " + shared.BacktickList(aclpolicy.BindTypes()) +
					". Changing it replaces the rule.",
				Validators: []validator.String{stringvalidator.OneOf(aclpolicy.BindTypes()...)}},
			"bind_name": schema.StringAttribute{Optional: true, Validators: nonEmpty,
				MarkdownDescription: "Name of the role or policy granted (may use `${value.<claim>}`); required for `role` " +
					"and `policy`, not allowed for `management`."},
			"description": schema.StringAttribute{Optional: true,
				MarkdownDescription: fmt.Sprintf("Description, at most %d characters.", aclpolicy.MaxBindingRuleDescription),
				Validators:          []validator.String{stringvalidator.LengthBetween(1, aclpolicy.MaxBindingRuleDescription)}},
		},
	}
}
