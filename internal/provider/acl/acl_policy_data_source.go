package acl

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"

	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
)

// NewACLPolicyDataSource builds the berth_acl_policy data source, which
// reads one policy into the resource's model.
func NewACLPolicyDataSource() datasource.DataSource {
	return newACLDataSource("acl_policy", aclPolicyDataSchema, readACLPolicy)
}

func aclPolicyDataSchema() schema.Schema {
	return schema.Schema{
		MarkdownDescription: "One ACL policy, by name: its description, rules and the workloads it is attached to, as " +
			"Nomad holds them. The attribute names are those of hashicorp/nomad's `nomad_acl_policy` data source. Needs a " +
			"management token, or a token that has the policy.",
		Attributes: map[string]schema.Attribute{
			"id": computedString("The policy's name."),
			"name": schema.StringAttribute{Required: true, MarkdownDescription: "Name of the policy to read.",
				Validators: []validator.String{aclNameValidator()}},
			"description": computedString("Description; null when none."),
			"rules":       computedString("The policy's rules, in Nomad's ACL policy language, as the text Nomad stores."),
			"job_acl": schema.SingleNestedAttribute{Computed: true,
				MarkdownDescription: "The workloads whose workload identity gets the policy (see `berth_acl_policy`); " +
					"null when it is attached to none.",
				Attributes: map[string]schema.Attribute{
					"namespace": computedString("Namespace of the workloads."),
					"job_id":    computedString("Job ID; null for every job in the namespace."),
					"group":     computedString("Task group; null for every group of the job."),
					"task":      computedString("Task; null for every task of the group."),
				}},
		},
	}
}

func readACLPolicy(ctx context.Context, data *shared.ProviderData, m *aclPolicyModel, diags *diag.Diagnostics) {
	name := m.Name.ValueString()
	p, err := data.Nomad.GetACLPolicy(ctx, name)
	if found(diags, path.Root("name"), "ACL policy", p, err,
		fmt.Sprintf("Nomad has no ACL policy named %q. List the policies with `nomad acl policy list` or the "+
			"`berth_acl_policies` data source.", name)) {
		m.fromPolicy(p)
	}
}
