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

// aclNameValidator is Nomad's rule for policy, role and auth method names.
func aclNameValidator() validator.String {
	return shared.StringRule{Summary: "Invalid name", Desc: "must be " + aclpolicy.NameRule, Check: aclpolicy.CheckName}
}

// policyRulesValidator checks the rules against Nomad's policy language
// (aclpolicy.CheckRules), at validate and plan: a policy Nomad would refuse
// is refused here, in words, before anything is written.
func policyRulesValidator() validator.String {
	return shared.StringRule{Summary: "Invalid ACL policy rules", Desc: "must follow Nomad's ACL policy language",
		Check: func(rules string) error {
			if err := aclpolicy.CheckRules(rules); err != nil {
				return fmt.Errorf("these rules would be refused by Nomad: %v. Fix the rules; the policy language is described at "+
					"https://developer.hashicorp.com/nomad/docs/other-specifications/acl-policy", err)
			}
			return nil
		}}
}

// nonEmpty keeps "" out of optional strings Nomad does not tell from unset.
var nonEmpty = []validator.String{stringvalidator.LengthAtLeast(1)}

func aclPolicySchema() schema.Schema {
	return schema.Schema{
		MarkdownDescription: "A Nomad ACL policy: a named set of rules that tokens and roles grant (`berth_acl_role`), and " +
			"that `job_acl` attaches to workloads (workload identity). The rules are checked at plan against Nomad's policy " +
			"language. Needs a management token.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{Computed: true, MarkdownDescription: "The policy's name.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()}},
			"name": schema.StringAttribute{Required: true,
				PlanModifiers:       []planmodifier.String{stringplanmodifier.RequiresReplace()},
				MarkdownDescription: "Policy name: " + aclpolicy.NameRule + ". Changing it replaces the policy.",
				Validators:          []validator.String{aclNameValidator()}},
			"description": schema.StringAttribute{Optional: true,
				MarkdownDescription: fmt.Sprintf("Description, at most %d characters.", aclpolicy.MaxDescription),
				Validators:          []validator.String{stringvalidator.LengthAtMost(aclpolicy.MaxDescription)}},
			"rules": schema.StringAttribute{Required: true,
				MarkdownDescription: "The policy's rules, in Nomad's ACL policy language (HCL or JSON), e.g. from `file()`. " +
					"Checked at validate and plan against Nomad's policy language. Compared with what Nomad holds exactly, as text: Nomad stores " +
					"the text it is given, so a change made in Nomad (even to spacing) shows in the plan and apply puts the " +
					"configured text back.",
				Validators: []validator.String{policyRulesValidator()}},
			"job_acl": schema.SingleNestedAttribute{Optional: true,
				MarkdownDescription: "Attaches the policy to workloads: their workload identity gets the policy's rules. " +
					"`namespace` alone attaches it to every job in the namespace; add `job_id` for one job, `group` for one " +
					"of its groups, `task` for one task of that group. Unset: attached to no workload.",
				Attributes: map[string]schema.Attribute{
					"namespace": schema.StringAttribute{Required: true, Validators: nonEmpty,
						MarkdownDescription: "Namespace of the workloads."},
					"job_id": schema.StringAttribute{Optional: true, Validators: nonEmpty,
						MarkdownDescription: "Job ID. Unset: every job in the namespace."},
					"group": schema.StringAttribute{Optional: true, Validators: nonEmpty,
						MarkdownDescription: "Task group of the job; needs `job_id`. Unset: every group of the job."},
					"task": schema.StringAttribute{Optional: true, Validators: nonEmpty,
						MarkdownDescription: "Task of the group; needs `group`. Unset: every task of the group."},
				}},
		},
	}
}
