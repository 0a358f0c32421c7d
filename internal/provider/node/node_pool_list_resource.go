package node

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/list"
	listschema "github.com/hashicorp/terraform-plugin-framework/list/schema"
)

var _ list.ListResourceWithConfigure = &nodePoolListResource{}

// NewNodePoolListResource builds the berth_node_pool list resource for
// `terraform query` (Terraform 1.14+).
func NewNodePoolListResource() list.ListResource {
	return &nodePoolListResource{newNodePoolResource()}
}

// It embeds the resource: its name, provider data, identity and model.
type nodePoolListResource struct{ *nodePoolResource }

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
	r.ListObjects(ctx, req, stream)
}
