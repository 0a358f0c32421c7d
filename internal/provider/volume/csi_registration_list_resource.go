package volume

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/list"
	listschema "github.com/hashicorp/terraform-plugin-framework/list/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
	"github.com/berthhq/terraform-provider-berth/internal/volume"
)

var _ list.ListResourceWithConfigure = &csiRegistrationListResource{}

// NewCSIRegistrationListResource builds the berth_csi_volume_registration
// list resource for `terraform query` (Terraform 1.14+).
func NewCSIRegistrationListResource() list.ListResource {
	return &csiRegistrationListResource{NewCSIRegistrationResource().(*csiRegistrationResource)}
}

type csiRegistrationListResource struct{ *csiRegistrationResource }

type csiRegistrationListModel struct {
	Namespace  types.String `tfsdk:"namespace"`
	NamePrefix types.String `tfsdk:"name_prefix"`
}

func (r *csiRegistrationListResource) ListResourceConfigSchema(_ context.Context, _ list.ListResourceSchemaRequest, resp *list.ListResourceSchemaResponse) {
	resp.Schema = listschema.Schema{
		MarkdownDescription: "CSI volumes Nomad knows, whoever registered or created them, as registrations for `terraform query` " +
			"(Terraform 1.14 and later): adopted this way, destroy only deregisters them. Secrets are not read back (Nomad redacts " +
			"them): add `secrets_wo` to a generated configuration when the volume has some.",
		Attributes: map[string]listschema.Attribute{
			"namespace": listschema.StringAttribute{Optional: true,
				MarkdownDescription: "Namespace to list; `*` lists every namespace the token can read. Default: the provider's `namespace`."},
			"name_prefix": listschema.StringAttribute{Optional: true, MarkdownDescription: "Only volumes whose name starts with this."},
		},
	}
}

func (r *csiRegistrationListResource) List(ctx context.Context, req list.ListRequest, stream *list.ListResultsStream) {
	ctx, cfg, ok := shared.OpenList[csiRegistrationListModel](ctx, r.Data, req, stream)
	if !ok {
		return
	}
	ns := cfg.Namespace.ValueString()
	if ns == "" {
		ns = r.Data.Nomad.Namespace()
	}
	vols, err := r.Data.Nomad.ListCSIVolumes(ctx, ns, cfg.NamePrefix.ValueString())
	if err != nil {
		shared.ListFailed(stream, "Could not list CSI volumes", err)
		return
	}
	stream.Results = shared.ListStream(vols, req.Limit, func(s volume.Summary) (list.ListResult, bool) {
		result := req.NewListResult(ctx)
		result.DisplayName = s.Namespace + "/" + s.ID + " (" + s.Name + ")"
		csiRegistrationIdentity.Record(ctx, result.Identity, s.Namespace, s.ID, &result.Diagnostics)
		if !req.IncludeResource {
			return result, true
		}
		reg, err := r.Data.Nomad.GetCSIRegistration(ctx, s.Namespace, s.ID)
		if err != nil || reg == nil {
			if err != nil {
				shared.AddNomadError(&result.Diagnostics, "Could not read CSI volume "+s.ID, err)
			}
			return result, err != nil // nil: gone since the listing
		}
		m, d := shared.NullResourceModel[csiRegistrationModel](ctx, csiRegistrationSchema(ctx))
		result.Diagnostics.Append(d...)
		m.fromRegistration(ctx, reg, &result.Diagnostics)
		if reg.MountFlagsRedacted {
			result.Diagnostics.AddWarning("Mount flags not read back",
				"CSI volume "+s.ID+" has mount flags, which Nomad redacts: add them to mount_options in the generated configuration.")
		}
		if !result.Diagnostics.HasError() {
			result.Diagnostics.Append(result.Resource.Set(ctx, &m)...)
		}
		return result, true
	})
}
