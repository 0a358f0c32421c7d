package volume

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/list"
	listschema "github.com/hashicorp/terraform-plugin-framework/list/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
	"github.com/berthhq/terraform-provider-berth/internal/volume"
)

// The list half of the registration core: a registration's list
// resource (`terraform query`, Terraform 1.14+) embeds its resource, whose
// registration lists and whose base answers Metadata and Configure.

var (
	_ list.ListResourceWithConfigure = &csiRegistrationListResource{}
	_ list.ListResourceWithConfigure = &hostRegistrationListResource{}
)

// registrationListModel is the list block's configuration.
type registrationListModel struct {
	Namespace  types.String `tfsdk:"namespace"`
	NamePrefix types.String `tfsdk:"name_prefix"`
}

func (r *registration[M, R, PM]) ListResourceConfigSchema(_ context.Context, _ list.ListResourceSchemaRequest, resp *list.ListResourceSchemaResponse) {
	resp.Schema = listschema.Schema{
		MarkdownDescription: r.kind.listDoc,
		Attributes: map[string]listschema.Attribute{
			"namespace": listschema.StringAttribute{Optional: true,
				MarkdownDescription: "Namespace to list; `*` lists every namespace the token can read. Default: the provider's `namespace`."},
			"name_prefix": listschema.StringAttribute{Optional: true, MarkdownDescription: "Only volumes whose name starts with this."},
		},
	}
}

func (r *registration[M, R, PM]) List(ctx context.Context, req list.ListRequest, stream *list.ListResultsStream) {
	ctx, cfg, ok := shared.OpenList[registrationListModel](ctx, r.Data, req, stream)
	if !ok {
		return
	}
	ns := cfg.Namespace.ValueString()
	if ns == "" {
		ns = r.Data.Nomad.Namespace()
	}
	vols, err := r.kind.list(r.Data.Nomad, ctx, ns, cfg.NamePrefix.ValueString())
	if err != nil {
		shared.ListFailed(stream, "Could not list "+r.kind.what+"s", err)
		return
	}
	stream.Results = shared.ListStream(vols, req.Limit, func(s volume.Summary) (list.ListResult, bool) {
		result := req.NewListResult(ctx)
		result.DisplayName = r.kind.displayName(s)
		r.ids.Record(ctx, result.Identity, s.Namespace, s.ID, &result.Diagnostics)
		if !req.IncludeResource {
			return result, true
		}
		reg, err := r.kind.get(r.Data.Nomad, ctx, s.Namespace, s.ID)
		if err != nil || reg == nil {
			if err != nil {
				shared.AddNomadError(&result.Diagnostics, "Could not read "+r.kind.what+" "+s.ID, err)
			}
			return result, err != nil // nil: gone since the listing
		}
		m, d := shared.NullResourceModel[M](ctx, r.kind.schema(ctx))
		result.Diagnostics.Append(d...)
		PM(&m).fromRegistration(ctx, reg, &result.Diagnostics)
		if r.kind.checkListed != nil {
			r.kind.checkListed(s.ID, reg, &result.Diagnostics)
		}
		if !result.Diagnostics.HasError() {
			result.Diagnostics.Append(result.Resource.Set(ctx, &m)...)
		}
		return result, true
	})
}
