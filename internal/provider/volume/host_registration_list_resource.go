package volume

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/list"
	listschema "github.com/hashicorp/terraform-plugin-framework/list/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
	"github.com/berthhq/terraform-provider-berth/internal/volume"
)

var _ list.ListResourceWithConfigure = &hostRegistrationListResource{}

// NewHostRegistrationListResource builds the
// berth_host_volume_registration list resource for `terraform query`
// (Terraform 1.14+).
func NewHostRegistrationListResource() list.ListResource {
	return &hostRegistrationListResource{NewHostRegistrationResource().(*hostRegistrationResource)}
}

type hostRegistrationListResource struct{ *hostRegistrationResource }

type hostRegistrationListModel struct {
	Namespace  types.String `tfsdk:"namespace"`
	NamePrefix types.String `tfsdk:"name_prefix"`
}

func (r *hostRegistrationListResource) ListResourceConfigSchema(_ context.Context, _ list.ListResourceSchemaRequest, resp *list.ListResourceSchemaResponse) {
	resp.Schema = listschema.Schema{
		MarkdownDescription: "Host volumes Nomad knows that have no plugin (registered, not created), whoever registered them, for " +
			"`terraform query` (Terraform 1.14 and later). Volumes created by a plugin are left out: list them with `berth_volume`.",
		Attributes: map[string]listschema.Attribute{
			"namespace": listschema.StringAttribute{Optional: true,
				MarkdownDescription: "Namespace to list; `*` lists every namespace the token can read. Default: the provider's `namespace`."},
			"name_prefix": listschema.StringAttribute{Optional: true, MarkdownDescription: "Only volumes whose name starts with this."},
		},
	}
}

func (r *hostRegistrationListResource) List(ctx context.Context, req list.ListRequest, stream *list.ListResultsStream) {
	ctx, cfg, ok := shared.OpenList[hostRegistrationListModel](ctx, r.Data, req, stream)
	if !ok {
		return
	}
	ns := cfg.Namespace.ValueString()
	if ns == "" {
		ns = r.Data.Nomad.Namespace()
	}
	vols, err := r.Data.Nomad.ListHostRegistrations(ctx, ns, cfg.NamePrefix.ValueString())
	if err != nil {
		shared.ListFailed(stream, "Could not list host volumes", err)
		return
	}
	stream.Results = shared.ListStream(vols, req.Limit, func(s volume.Summary) (list.ListResult, bool) {
		result := req.NewListResult(ctx)
		result.DisplayName = s.Namespace + "/" + s.Name + " (" + s.ID + ")"
		hostRegistrationIdentity.Record(ctx, result.Identity, s.Namespace, s.ID, &result.Diagnostics)
		if !req.IncludeResource {
			return result, true
		}
		reg, err := r.Data.Nomad.GetHostRegistration(ctx, s.Namespace, s.ID)
		if err != nil || reg == nil {
			if err != nil {
				shared.AddNomadError(&result.Diagnostics, "Could not read host volume "+s.ID, err)
			}
			return result, err != nil // nil: gone since the listing
		}
		m, d := shared.NullResourceModel[hostRegistrationModel](ctx, hostRegistrationSchema(ctx))
		result.Diagnostics.Append(d...)
		m.fromRegistration(ctx, reg, &result.Diagnostics)
		if !result.Diagnostics.HasError() {
			result.Diagnostics.Append(result.Resource.Set(ctx, &m)...)
		}
		return result, true
	})
}
