package acl

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
)

var _ datasource.DataSourceWithConfigure = &aclRolesDataSource{}

// NewACLRolesDataSource builds the berth_acl_roles data source.
func NewACLRolesDataSource() datasource.DataSource {
	return &aclRolesDataSource{shared.NewDataSourceBase("acl_roles")}
}

type aclRolesDataSource struct{ shared.DataSourceBase }

type aclRolesModel struct {
	NamePrefix types.String          `tfsdk:"name_prefix"`
	Roles      []aclRoleSummaryModel `tfsdk:"roles"`
}

type aclRoleSummaryModel struct {
	ID          types.String `tfsdk:"id"`
	Name        types.String `tfsdk:"name"`
	Description types.String `tfsdk:"description"`
	Policies    types.Set    `tfsdk:"policies"`
}

func (d *aclRolesDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "The cluster's ACL roles and the policies each grants, sorted by name. Needs a management token.",
		Attributes: map[string]schema.Attribute{
			"name_prefix": schema.StringAttribute{Optional: true, MarkdownDescription: "Only roles whose name starts with this."},
			"roles": schema.ListNestedAttribute{Computed: true, MarkdownDescription: "The roles, sorted by name.",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"id":          schema.StringAttribute{Computed: true, MarkdownDescription: "Role ID."},
					"name":        schema.StringAttribute{Computed: true, MarkdownDescription: "Role name."},
					"description": schema.StringAttribute{Computed: true, MarkdownDescription: "Description (`\"\"` when none)."},
					"policies": schema.SetAttribute{Computed: true, ElementType: types.StringType,
						MarkdownDescription: "Names of the policies the role grants."},
				}}},
		},
	}
}

func (d *aclRolesDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	readData(ctx, req, resp, func(m *aclRolesModel, diags *diag.Diagnostics) {
		roles, err := d.Data.Nomad.ListACLRoles(ctx, m.NamePrefix.ValueString())
		if err != nil {
			shared.AddNomadError(diags, "Could not list ACL roles", err)
			return
		}
		m.Roles = make([]aclRoleSummaryModel, 0, len(roles))
		for _, r := range roles {
			policies, d := types.SetValueFrom(ctx, types.StringType, r.Policies)
			diags.Append(d...)
			m.Roles = append(m.Roles, aclRoleSummaryModel{ID: types.StringValue(r.ID), Name: types.StringValue(r.Name),
				Description: types.StringValue(r.Description), Policies: policies})
		}
	})
}
