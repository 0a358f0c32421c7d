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

// NewACLTokensDataSource builds the berth_acl_tokens data source.
func NewACLTokensDataSource() datasource.DataSource {
	return newACLDataSource("acl_tokens", aclTokensSchema, readACLTokens)
}

type aclTokensDataSourceModel struct {
	NamePrefix types.String         `tfsdk:"name_prefix"`
	Tokens     []aclTokenEntryModel `tfsdk:"tokens"`
}

func aclTokensSchema() schema.Schema {
	return prefixListSchema("The cluster's ACL tokens: accessor IDs, names, types, policies and roles. Never their secrets: "+
		"Nomad's listing has none. Needs a management token.", "tokens", "The tokens, by accessor ID.",
		map[string]schema.Attribute{
			"accessor_id": computedString("Accessor ID (public; not the secret)."),
			"name":        computedString("Name; empty when unnamed."),
			"type":        computedString("`client` or `management`."),
			"policies": schema.ListAttribute{Computed: true, ElementType: types.StringType,
				MarkdownDescription: "Policy names, sorted."},
			"roles": schema.ListAttribute{Computed: true, ElementType: types.StringType,
				MarkdownDescription: "Role IDs, sorted."},
			"global":          schema.BoolAttribute{Computed: true, MarkdownDescription: "Replicated to every region."},
			"create_time":     computedString("When Nomad created it (RFC 3339)."),
			"expiration_time": computedString("When it expires (RFC 3339); null when it does not."),
		})
}

// readACLTokens filters by name here: Nomad's token listing takes no
// name prefix.
func readACLTokens(ctx context.Context, data *shared.ProviderData, m *aclTokensDataSourceModel, diags *diag.Diagnostics) {
	tokens, err := data.Nomad.ListACLTokens(ctx)
	m.Tokens = listed(diags, "ACL tokens", tokens, err, func(t nomadclient.ACLToken) bool {
		return strings.HasPrefix(t.Name, m.NamePrefix.ValueString())
	}, tokenEntry)
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
