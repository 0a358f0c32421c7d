package shared

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/list"
	listschema "github.com/hashicorp/terraform-plugin-framework/list/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource"
)

// namedLister is a resource that embeds NamedObject (and a ResourceBase).
type namedLister interface {
	Metadata(context.Context, resource.MetadataRequest, *resource.MetadataResponse)
	Configure(context.Context, resource.ConfigureRequest, *resource.ConfigureResponse)
	ListObjects(context.Context, list.ListRequest, *list.ListResultsStream)
}

// namedObjectList is the list resource of a NamedObject resource: it
// embeds the resource (its name, provider data, identity and listing) and
// adds the list block, a name_prefix.
type namedObjectList struct {
	namedLister
	doc, prefixDoc string
}

var _ list.ListResourceWithConfigure = &namedObjectList{}

// NewNamedObjectList is the list resource of r for `terraform query`
// (Terraform 1.14+); doc describes what it lists, prefixDoc its
// name_prefix.
func NewNamedObjectList(r namedLister, doc, prefixDoc string) list.ListResource {
	return &namedObjectList{namedLister: r, doc: doc, prefixDoc: prefixDoc}
}

func (l *namedObjectList) ListResourceConfigSchema(_ context.Context, _ list.ListResourceSchemaRequest, resp *list.ListResourceSchemaResponse) {
	resp.Schema = listschema.Schema{
		MarkdownDescription: l.doc,
		Attributes: map[string]listschema.Attribute{
			"name_prefix": listschema.StringAttribute{Optional: true, MarkdownDescription: l.prefixDoc},
		},
	}
}

func (l *namedObjectList) List(ctx context.Context, req list.ListRequest, stream *list.ListResultsStream) {
	l.ListObjects(ctx, req, stream)
}
