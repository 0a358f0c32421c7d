package namespace

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/list"
	listschema "github.com/hashicorp/terraform-plugin-framework/list/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/berthhq/terraform-provider-berth/internal/nomadclient"
	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
)

var _ list.ListResourceWithConfigure = &namespaceListResource{}

// NewNamespaceListResource builds the berth_namespace list resource for
// `terraform query` (Terraform 1.14+).
func NewNamespaceListResource() list.ListResource {
	return &namespaceListResource{newNamespaceResource()}
}

// It embeds the resource: its name, provider data, identity and model.
type namespaceListResource struct{ *namespaceResource }

// namespaceListModel is the list block's configuration.
type namespaceListModel struct {
	NamePrefix types.String `tfsdk:"name_prefix"`
}

func (r *namespaceListResource) ListResourceConfigSchema(_ context.Context, _ list.ListResourceSchemaRequest, resp *list.ListResourceSchemaResponse) {
	resp.Schema = listschema.Schema{
		MarkdownDescription: "Namespaces, whoever created them, for `terraform query` (Terraform 1.14 and later), Nomad's " +
			"`default` namespace included (importing it manages its settings; destroying it leaves it in Nomad).",
		Attributes: map[string]listschema.Attribute{
			"name_prefix": listschema.StringAttribute{Optional: true, MarkdownDescription: "Only namespaces whose name starts with this."},
		},
	}
}

func (r *namespaceListResource) List(ctx context.Context, req list.ListRequest, stream *list.ListResultsStream) {
	ctx, cfg, ok := shared.OpenList[namespaceListModel](ctx, r.Data, req, stream)
	if !ok {
		return
	}
	all, err := r.Data.Nomad.ListNamespaces(ctx, cfg.NamePrefix.ValueString())
	if err != nil {
		shared.ListFailed(stream, "Could not list namespaces", err)
		return
	}
	stream.Results = shared.ListStream(all, req.Limit, func(ns nomadclient.Namespace) (list.ListResult, bool) {
		result := req.NewListResult(ctx)
		result.DisplayName = ns.Name
		namespaceIdentity.Record(ctx, result.Identity, ns.Name, &result.Diagnostics)
		if !req.IncludeResource {
			return result, true
		}
		m, d := shared.NullResourceModel[namespaceModel](ctx, namespaceSchema())
		result.Diagnostics.Append(d...)
		m.fromNamespace(ctx, &ns, &result.Diagnostics)
		if !result.Diagnostics.HasError() {
			result.Diagnostics.Append(result.Resource.Set(ctx, &m)...)
		}
		return result, true
	})
}
