package acl

import (
	"context"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/list"
	listschema "github.com/hashicorp/terraform-plugin-framework/list/schema"

	"github.com/berthhq/terraform-provider-berth/internal/nomadclient"
	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
)

var _ list.ListResourceWithConfigure = &aclTokenListResource{}

// NewACLTokenListResource builds the berth_acl_token list resource for
// `terraform query` (Terraform 1.14+).
func NewACLTokenListResource() list.ListResource {
	return &aclTokenListResource{newACLTokenResource()}
}

// It embeds the resource: its name, provider data, identity and model.
type aclTokenListResource struct{ *aclTokenResource }

func (r *aclTokenListResource) ListResourceConfigSchema(_ context.Context, _ list.ListResourceSchemaRequest, resp *list.ListResourceSchemaResponse) {
	resp.Schema = listschema.Schema{
		MarkdownDescription: "ACL tokens, whoever created them, for `terraform query` (Terraform 1.14 and later). Results " +
			"carry accessor IDs and settings, never secrets; the generated configuration has no `secret_variable_path` " +
			"(the secret was handed out when the token was made).",
		Attributes: map[string]listschema.Attribute{
			"name_prefix": listschema.StringAttribute{Optional: true, MarkdownDescription: "Only tokens whose name starts with this."},
		},
	}
}

// List filters the listing by name here (Nomad's token listing takes
// no name prefix) and reads each token in full for its TTL, which the
// listing lacks; a token that cannot be read is shown as listed.
func (r *aclTokenListResource) List(ctx context.Context, req list.ListRequest, stream *list.ListResultsStream) {
	listing[namePrefixListModel, nomadclient.ACLToken, nomadclient.ACLToken]{
		kind: "ACL token", kinds: "ACL tokens", identity: aclTokenIdentity,
		list: func(ctx context.Context, cfg namePrefixListModel) ([]nomadclient.ACLToken, error) {
			tokens, err := r.Data.Nomad.ListACLTokens(ctx)
			return slices.DeleteFunc(tokens, func(t nomadclient.ACLToken) bool {
				return !strings.HasPrefix(t.Name, cfg.NamePrefix.ValueString())
			}), err
		},
		show: func(t nomadclient.ACLToken) (string, string) {
			if t.Name != "" {
				return t.Name + " (" + t.AccessorID + ")", t.AccessorID
			}
			return t.AccessorID, t.AccessorID
		},
		// The secret that comes with the full read is dropped right away
		// (the model has no field for it).
		read: func(ctx context.Context, t nomadclient.ACLToken) (*nomadclient.ACLToken, error) {
			if full, err := r.Data.Nomad.GetACLToken(ctx, t.AccessorID); err == nil && full != nil {
				return full, nil
			}
			return &t, nil
		},
		model: func(ctx context.Context, t *nomadclient.ACLToken, diags *diag.Diagnostics) any {
			m, d := shared.NullResourceModel[aclTokenModel](ctx, aclTokenSchema())
			diags.Append(d...)
			m.fromToken(ctx, t, diags)
			return &m
		},
	}.stream(ctx, r.Data, req, stream)
}
