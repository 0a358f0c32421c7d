package acl

import (
	"github.com/hashicorp/terraform-plugin-framework-validators/setvalidator"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/berthhq/terraform-provider-berth/internal/aclpolicy"
)

func aclRoleSchema() schema.Schema {
	return schema.Schema{
		MarkdownDescription: "A Nomad ACL role: a name for a set of ACL policies, which tokens and binding rules grant " +
			"by the role's name. Renaming keeps the role (Nomad identifies it by its ID), so tokens linked to it keep " +
			"it. Needs a management token.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{Computed: true, MarkdownDescription: "The role's ID, which Nomad assigns.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()}},
			"name": schema.StringAttribute{Required: true,
				MarkdownDescription: "Role name: " + aclpolicy.NameRule + ", unique in the cluster. Changing it renames the role.",
				Validators:          []validator.String{aclNameValidator()}},
			"description": schema.StringAttribute{Optional: true, MarkdownDescription: "Description.",
				Validators: nonEmpty},
			"policies": schema.SetAttribute{Required: true, ElementType: types.StringType,
				MarkdownDescription: "Names of the ACL policies the role grants, at least one. Nomad refuses a policy that " +
					"does not exist: refer to `berth_acl_policy.<name>.name` so the policy is created first.",
				Validators: []validator.Set{setvalidator.SizeAtLeast(1), setvalidator.ValueStringsAre(aclNameValidator())}},
		},
	}
}
