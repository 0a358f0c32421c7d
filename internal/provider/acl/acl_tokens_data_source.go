package acl

import (
	"context"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/berthhq/terraform-provider-berth/internal/nomadclient"
	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
)

var _ datasource.DataSourceWithConfigure = &aclTokensDataSource{}

// NewACLTokensDataSource builds the berth_acl_tokens data source.
func NewACLTokensDataSource() datasource.DataSource {
	return &aclTokensDataSource{shared.NewDataSourceBase("acl_tokens")}
}

type aclTokensDataSource struct{ shared.DataSourceBase }

type aclTokensDataSourceModel struct {
	NamePrefix types.String         `tfsdk:"name_prefix"`
	Tokens     []aclTokenEntryModel `tfsdk:"tokens"`
}

// aclTokenEntryModel is one listed token: never its secret (Nomad's
// listing has none).
type aclTokenEntryModel struct {
	AccessorID     types.String   `tfsdk:"accessor_id"`
	Name           types.String   `tfsdk:"name"`
	Type           types.String   `tfsdk:"type"`
	Policies       []types.String `tfsdk:"policies"`
	Roles          []types.String `tfsdk:"roles"`
	Global         types.Bool     `tfsdk:"global"`
	CreateTime     types.String   `tfsdk:"create_time"`
	ExpirationTime types.String   `tfsdk:"expiration_time"`
}

func (d *aclTokensDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	str := func(doc string) schema.StringAttribute {
		return schema.StringAttribute{Computed: true, MarkdownDescription: doc}
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "The cluster's ACL tokens: accessor IDs, names, types, policies and roles. Never their secrets: " +
			"Nomad's listing has none. Needs a management token.",
		Attributes: map[string]schema.Attribute{
			"name_prefix": schema.StringAttribute{Optional: true, MarkdownDescription: "Only tokens whose name starts with this."},
			"tokens": schema.ListNestedAttribute{Computed: true, MarkdownDescription: "The tokens, by accessor ID.",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"accessor_id": str("Accessor ID (public; not the secret)."),
					"name":        str("Name; empty when unnamed."),
					"type":        str("`client` or `management`."),
					"policies": schema.ListAttribute{Computed: true, ElementType: types.StringType,
						MarkdownDescription: "Policy names, sorted."},
					"roles": schema.ListAttribute{Computed: true, ElementType: types.StringType,
						MarkdownDescription: "Role IDs, sorted."},
					"global":          schema.BoolAttribute{Computed: true, MarkdownDescription: "Replicated to every region."},
					"create_time":     str("When Nomad created it (RFC 3339)."),
					"expiration_time": str("When it expires (RFC 3339); null when it does not."),
				}}},
		},
	}
}

func (d *aclTokensDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	readData(ctx, req, resp, func(m *aclTokensDataSourceModel, diags *diag.Diagnostics) {
		tokens, err := d.Data.Nomad.ListACLTokens(ctx)
		if err != nil {
			shared.AddNomadError(diags, "Could not list ACL tokens", err)
			return
		}
		m.Tokens = make([]aclTokenEntryModel, 0, len(tokens))
		for _, t := range tokens {
			if strings.HasPrefix(t.Name, m.NamePrefix.ValueString()) {
				m.Tokens = append(m.Tokens, tokenEntry(t))
			}
		}
	})
}

func tokenEntry(t nomadclient.ACLToken) aclTokenEntryModel {
	strs := func(ss []string) []types.String {
		out := make([]types.String, len(ss))
		for i, s := range ss {
			out[i] = types.StringValue(s)
		}
		return out
	}
	return aclTokenEntryModel{AccessorID: types.StringValue(t.AccessorID), Name: types.StringValue(t.Name),
		Type: types.StringValue(t.Type), Policies: strs(t.Policies), Roles: strs(t.Roles), Global: types.BoolValue(t.Global),
		CreateTime: types.StringValue(t.CreateTime.UTC().Format("2006-01-02T15:04:05Z07:00")), ExpirationTime: timeOrNull(t.ExpirationTime)}
}
