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

var _ datasource.DataSourceWithConfigure = &aclPolicyDataSource{}

// NewACLPolicyDataSource builds the berth_acl_policy data source.
func NewACLPolicyDataSource() datasource.DataSource {
	return &aclPolicyDataSource{shared.NewDataSourceBase("acl_policy")}
}

// aclPolicyDataSource reads one policy into the resource's model.
type aclPolicyDataSource struct{ shared.DataSourceBase }

func (d *aclPolicyDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	str := func(doc string) schema.StringAttribute {
		return schema.StringAttribute{Computed: true, MarkdownDescription: doc}
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "One ACL policy, by name: its description, rules and the workloads it is attached to, as " +
			"Nomad holds them. The attribute names are those of hashicorp/nomad's `nomad_acl_policy` data source. Needs a " +
			"management token, or a token that has the policy.",
		Attributes: map[string]schema.Attribute{
			"id": str("The policy's name."),
			"name": schema.StringAttribute{Required: true, MarkdownDescription: "Name of the policy to read.",
				Validators: []validator.String{aclNameValidator()}},
			"description": str("Description; null when none."),
			"rules":       str("The policy's rules, in Nomad's ACL policy language, as the text Nomad stores."),
			"job_acl": schema.SingleNestedAttribute{Computed: true,
				MarkdownDescription: "The workloads whose workload identity gets the policy (see `berth_acl_policy`); " +
					"null when it is attached to none.",
				Attributes: map[string]schema.Attribute{
					"namespace": str("Namespace of the workloads."),
					"job_id":    str("Job ID; null for every job in the namespace."),
					"group":     str("Task group; null for every group of the job."),
					"task":      str("Task; null for every task of the group."),
				}},
		},
	}
}

func (d *aclPolicyDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	readData(ctx, req, resp, func(m *aclPolicyModel, diags *diag.Diagnostics) {
		name := m.Name.ValueString()
		p, err := d.Data.Nomad.GetACLPolicy(ctx, name)
		if found(diags, path.Root("name"), "ACL policy", p, err,
			fmt.Sprintf("Nomad has no ACL policy named %q. List the policies with `nomad acl policy list` or the "+
				"`berth_acl_policies` data source.", name)) {
			m.fromPolicy(p)
		}
	})
}
