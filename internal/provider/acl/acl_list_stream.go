package acl

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/list"
	listschema "github.com/hashicorp/terraform-plugin-framework/list/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
)

// namePrefixListModel is the configuration of the family's list blocks
// that filter by name.
type namePrefixListModel struct {
	NamePrefix types.String `tfsdk:"name_prefix"`
}

func namePrefixListSchema(what string) listschema.Schema {
	return listschema.Schema{
		MarkdownDescription: what + ", whoever created them, for `terraform query` (Terraform 1.14 and later).",
		Attributes: map[string]listschema.Attribute{
			"name_prefix": listschema.StringAttribute{Optional: true, MarkdownDescription: "Only those whose name starts with this."},
		},
	}
}

// listing is what differs between the family's list resources: every
// one lists (C is its list block's configuration, S a listed item),
// names and identifies each item from the listing, and with
// include_resource reads the object (O) and sets its resource model.
type listing[C, S, O any] struct {
	kind, kinds string // "ACL policy", "ACL policies": for the errors
	identity    shared.SingleIdentity
	list        func(ctx context.Context, cfg C) ([]S, error)
	// show is the result's display name and the item's identity value.
	show func(s S) (display, id string)
	// read is the object in full; nil when it was deleted since listed.
	read  func(ctx context.Context, s S) (*O, error)
	model func(ctx context.Context, o *O, diags *diag.Diagnostics) any
}

// stream answers a List call: one result per listed item, up to the
// request's limit; an object deleted between the listing and its read is
// left out, one that cannot be read carries the error.
func (l listing[C, S, O]) stream(ctx context.Context, data *shared.ProviderData, req list.ListRequest, stream *list.ListResultsStream) {
	ctx, cfg, ok := shared.OpenList[C](ctx, data, req, stream)
	if !ok {
		return
	}
	items, err := l.list(ctx, cfg)
	if err != nil {
		shared.ListFailed(stream, "Could not list "+l.kinds, err)
		return
	}
	stream.Results = shared.ListStream(items, req.Limit, func(s S) (list.ListResult, bool) {
		result := req.NewListResult(ctx)
		display, id := l.show(s)
		result.DisplayName = display
		l.identity.Record(ctx, result.Identity, id, &result.Diagnostics)
		if !req.IncludeResource {
			return result, true
		}
		o, err := l.read(ctx, s)
		if err != nil {
			shared.AddNomadError(&result.Diagnostics, "Could not read "+l.kind+" "+id, err)
			return result, true
		}
		if o == nil {
			return list.ListResult{}, false
		}
		m := l.model(ctx, o, &result.Diagnostics)
		if !result.Diagnostics.HasError() {
			result.Diagnostics.Append(result.Resource.Set(ctx, m)...)
		}
		return result, true
	})
}
