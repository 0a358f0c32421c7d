package node

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/list"
	listschema "github.com/hashicorp/terraform-plugin-framework/list/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/berthhq/terraform-provider-berth/internal/nomadclient"
	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
)

var _ list.ListResourceWithConfigure = &nodePoolListResource{}

// NewNodePoolListResource builds the berth_node_pool list resource for
// `terraform query` (Terraform 1.14+).
func NewNodePoolListResource() list.ListResource {
	return &nodePoolListResource{NewNodePoolResource().(*nodePoolResource)}
}

// It embeds the resource: its name, provider data, identity and model.
type nodePoolListResource struct{ *nodePoolResource }

// nodePoolListModel is the list block's configuration.
type nodePoolListModel struct {
	NamePrefix types.String `tfsdk:"name_prefix"`
}

func (r *nodePoolListResource) ListResourceConfigSchema(_ context.Context, _ list.ListResourceSchemaRequest, resp *list.ListResourceSchemaResponse) {
	resp.Schema = listschema.Schema{
		MarkdownDescription: "Node pools, whoever created them, for `terraform query` (Terraform 1.14 and later). Nomad's " +
			"built-in pools `all` and `default` are left out: they cannot be managed.",
		Attributes: map[string]listschema.Attribute{
			"name_prefix": listschema.StringAttribute{Optional: true, MarkdownDescription: "Only pools whose name starts with this."},
		},
	}
}

func (r *nodePoolListResource) List(ctx context.Context, req list.ListRequest, stream *list.ListResultsStream) {
	ctx, cfg, ok := shared.OpenList[nodePoolListModel](ctx, r.Data, req, stream)
	if !ok {
		return
	}
	pools, err := r.Data.Nomad.ListNodePools(ctx, cfg.NamePrefix.ValueString())
	if err != nil {
		shared.ListFailed(stream, "Could not list node pools", err)
		return
	}
	stream.Results = shared.ListStream(pools, req.Limit, func(p nomadclient.NodePool) (list.ListResult, bool) {
		if nomadclient.IsBuiltInNodePool(p.Name) {
			return list.ListResult{}, false
		}
		result := req.NewListResult(ctx)
		result.DisplayName = p.Name
		nodePoolIdentity.Record(ctx, result.Identity, p.Name, &result.Diagnostics)
		if !req.IncludeResource {
			return result, true
		}
		m, d := shared.NullResourceModel[nodePoolModel](ctx, nodePoolSchema())
		result.Diagnostics.Append(d...)
		m.fromNodePool(ctx, &p, &result.Diagnostics)
		if !result.Diagnostics.HasError() {
			result.Diagnostics.Append(result.Resource.Set(ctx, &m)...)
		}
		return result, true
	})
}
