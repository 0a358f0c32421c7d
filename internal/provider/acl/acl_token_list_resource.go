package acl

import (
	"context"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/list"
	listschema "github.com/hashicorp/terraform-plugin-framework/list/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/berthhq/terraform-provider-berth/internal/nomadclient"
	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
)

var _ list.ListResourceWithConfigure = &aclTokenListResource{}

// NewACLTokenListResource builds the berth_acl_token list resource for
// `terraform query` (Terraform 1.14+).
func NewACLTokenListResource() list.ListResource {
	return &aclTokenListResource{NewACLTokenResource().(*aclTokenResource)}
}

// It embeds the resource: its name, provider data, identity and model.
type aclTokenListResource struct{ *aclTokenResource }

type aclTokenListModel struct {
	NamePrefix types.String `tfsdk:"name_prefix"`
}

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

func (r *aclTokenListResource) List(ctx context.Context, req list.ListRequest, stream *list.ListResultsStream) {
	ctx, cfg, ok := shared.OpenList[aclTokenListModel](ctx, r.Data, req, stream)
	if !ok {
		return
	}
	tokens, err := r.Data.Nomad.ListACLTokens(ctx)
	if err != nil {
		shared.ListFailed(stream, "Could not list ACL tokens", err)
		return
	}
	stream.Results = shared.ListStream(tokens, req.Limit, func(t nomadclient.ACLToken) (list.ListResult, bool) {
		if !strings.HasPrefix(t.Name, cfg.NamePrefix.ValueString()) {
			return list.ListResult{}, false
		}
		result := req.NewListResult(ctx)
		result.DisplayName = t.AccessorID
		if t.Name != "" {
			result.DisplayName = t.Name + " (" + t.AccessorID + ")"
		}
		aclTokenIdentity.Record(ctx, result.Identity, t.AccessorID, &result.Diagnostics)
		if !req.IncludeResource {
			return result, true
		}
		m, d := shared.NullResourceModel[aclTokenModel](ctx, aclTokenSchema())
		result.Diagnostics.Append(d...)
		// A listing has no TTL: read the token for it (and drop the
		// secret that comes with it right away).
		if full, err := r.Data.Nomad.GetACLToken(ctx, t.AccessorID); err == nil && full != nil {
			t = *full
		}
		m.fromToken(ctx, &t, &result.Diagnostics)
		if !result.Diagnostics.HasError() {
			result.Diagnostics.Append(result.Resource.Set(ctx, &m)...)
		}
		return result, true
	})
}
