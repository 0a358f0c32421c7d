package volume

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/list"
	listschema "github.com/hashicorp/terraform-plugin-framework/list/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/berthhq/terraform-provider-berth/internal/nomadclient"
	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
	"github.com/berthhq/terraform-provider-berth/internal/volume"
)

var _ list.ListResourceWithConfigure = &volumeListResource{}

// NewVolumeListResource builds the berth_volume list resource for
// `terraform query` (Terraform 1.14+).
func NewVolumeListResource() list.ListResource {
	return &volumeListResource{newVolumeResource()}
}

type volumeListResource struct{ *volumeResource }

// volumeListModel is the list block's configuration.
type volumeListModel struct {
	Namespace  types.String `tfsdk:"namespace"`
	NamePrefix types.String `tfsdk:"name_prefix"`
	NodeID     types.String `tfsdk:"node_id"`
	NodePool   types.String `tfsdk:"node_pool"`
	Type       types.String `tfsdk:"type"`
}

func (r *volumeListResource) ListResourceConfigSchema(_ context.Context, _ list.ListResourceSchemaRequest, resp *list.ListResourceSchemaResponse) {
	resp.Schema = listschema.Schema{
		MarkdownDescription: "Dynamic host volumes and CSI volumes, whoever created them, for `terraform query` (Terraform 1.14 and " +
			"later). A volume listed here and imported as `berth_volume` is berth's to delete: for a volume berth should only " +
			"register, list `berth_csi_volume_registration` or `berth_host_volume_registration` instead.",
		Attributes: map[string]listschema.Attribute{
			"namespace": listschema.StringAttribute{Optional: true,
				MarkdownDescription: "Namespace to list; `*` lists every namespace the token can read. Default: the provider's `namespace`."},
			"name_prefix": listschema.StringAttribute{Optional: true, MarkdownDescription: "Only volumes whose name starts with this."},
			"node_id":     listschema.StringAttribute{Optional: true, MarkdownDescription: "Only host volumes on this node (its full ID)."},
			"node_pool":   listschema.StringAttribute{Optional: true, MarkdownDescription: "Only host volumes on nodes of this node pool."},
			"type": listschema.StringAttribute{Optional: true,
				MarkdownDescription: "Only volumes of this type: `host` or `csi`. Default: both (host volumes only when `node_id` or `node_pool` is set).",
				Validators:          []validator.String{stringvalidator.OneOf(volumeTypes...)}},
		},
	}
}

func (r *volumeListResource) List(ctx context.Context, req list.ListRequest, stream *list.ListResultsStream) {
	ctx, cfg, ok := shared.OpenList[volumeListModel](ctx, r.Data, req, stream)
	if !ok {
		return
	}
	filter := nomadclient.VolumeFilter{
		Namespace: cfg.Namespace.ValueString(), NamePrefix: cfg.NamePrefix.ValueString(),
		NodeID: cfg.NodeID.ValueString(), NodePool: cfg.NodePool.ValueString(), Type: cfg.Type.ValueString(),
	}
	if filter.Namespace == "" {
		filter.Namespace = r.Data.Nomad.Namespace()
	}
	vols, err := r.Data.Nomad.ListAllVolumes(ctx, filter)
	if err != nil {
		shared.ListFailed(stream, "Could not list volumes", err)
		return
	}
	stream.Results = shared.ListStream(vols, req.Limit, func(s volume.Summary) (list.ListResult, bool) {
		result := req.NewListResult(ctx)
		result.DisplayName = s.Namespace + "/" + s.Name + " (" + s.Type + " " + s.ID + ")"
		volumeIdentity.Record(ctx, result.Identity, s.Namespace, s.ID, &result.Diagnostics)
		if !req.IncludeResource {
			return result, true
		}
		get := r.Data.Nomad.GetVolume
		if s.Type == volume.TypeCSI {
			get = r.Data.Nomad.GetCSIVolume
		}
		v, err := get(ctx, s.Namespace, s.ID)
		if err != nil || v == nil {
			if err != nil {
				shared.AddNomadError(&result.Diagnostics, "Could not read "+s.Type+" volume "+s.ID, err)
			}
			return result, err != nil // nil: gone since the listing
		}
		m, d := shared.NullResourceModel[volumeModel](ctx, volumeSchema(ctx))
		result.Diagnostics.Append(d...)
		m.Namespace, m.ID = types.StringValue(s.Namespace), types.StringValue(s.ID)
		r.record(ctx, v, &m, &result.Diagnostics)
		if v.IsCSI() {
			// Host volume settings a generated configuration must not
			// carry for a CSI volume (import reads their defaults back).
			m.AccessMode, m.AttachmentMode = types.StringNull(), types.StringNull()
		}
		if !result.Diagnostics.HasError() {
			result.Diagnostics.Append(result.Resource.Set(ctx, &m)...)
		}
		return result, true
	})
}
