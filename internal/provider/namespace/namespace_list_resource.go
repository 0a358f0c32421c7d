package namespace

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/list"
	listschema "github.com/hashicorp/terraform-plugin-framework/list/schema"
)

var _ list.ListResourceWithConfigure = &namespaceListResource{}

// NewNamespaceListResource builds the berth_namespace list resource for
// `terraform query` (Terraform 1.14+).
func NewNamespaceListResource() list.ListResource {
	return &namespaceListResource{newNamespaceResource()}
}

// It embeds the resource: its name, provider data, identity and model.
type namespaceListResource struct{ *namespaceResource }

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
	r.ListObjects(ctx, req, stream)
}
