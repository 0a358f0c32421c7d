package node

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/list"
	listschema "github.com/hashicorp/terraform-plugin-framework/list/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/berthhq/terraform-provider-berth/internal/nomadclient"
	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
)

var _ list.ListResourceWithConfigure = &nodeReservationListResource{}

// NewNodeReservationListResource builds the berth_node_reservation list
// resource for `terraform query` (Terraform 1.14+).
func NewNodeReservationListResource() list.ListResource {
	return &nodeReservationListResource{newNodeReservationResource()}
}

// It embeds the resource: its name, provider data, identity and model.
type nodeReservationListResource struct{ *nodeReservationResource }

// nodeReservationListModel is the list block's configuration.
type nodeReservationListModel struct {
	NodeID     types.String `tfsdk:"node_id"`
	NamePrefix types.String `tfsdk:"name_prefix"`
}

func (r *nodeReservationListResource) ListResourceConfigSchema(_ context.Context, _ list.ListResourceSchemaRequest, resp *list.ListResourceSchemaResponse) {
	resp.Schema = listschema.Schema{
		MarkdownDescription: "Node reservations in the provider's `ledger_namespace`, for `terraform query` (Terraform 1.14 and later).",
		Attributes: map[string]listschema.Attribute{
			"node_id": listschema.StringAttribute{Optional: true,
				MarkdownDescription: "Only reservations on this node (its full ID); reads one ledger instead of all."},
			"name_prefix": listschema.StringAttribute{Optional: true, MarkdownDescription: "Only reservations whose name starts with this."},
		},
	}
}

func (r *nodeReservationListResource) List(ctx context.Context, req list.ListRequest, stream *list.ListResultsStream) {
	ctx, cfg, ok := shared.OpenList[nodeReservationListModel](ctx, r.Data, req, stream)
	if !ok {
		return
	}
	refs, err := r.Data.Nomad.ListNodeReservations(ctx, r.Data.LedgerNamespace, cfg.NodeID.ValueString(), cfg.NamePrefix.ValueString())
	if err != nil {
		shared.ListFailed(stream, "Could not list node reservations", err)
		return
	}
	stream.Results = shared.ListStream(refs, req.Limit, func(ref nomadclient.NodeReservationRef) (list.ListResult, bool) {
		result := req.NewListResult(ctx)
		result.DisplayName = ref.NodeID + "/" + ref.Name
		nodeReservationIdentity.Record(ctx, result.Identity, ref.NodeID, ref.Name, &result.Diagnostics)
		if !req.IncludeResource {
			return result, true
		}
		m, d := shared.NullResourceModel[nodeReservationModel](ctx, nodeReservationSchema(ctx))
		result.Diagnostics.Append(d...)
		m.NodeID, m.Name = types.StringValue(ref.NodeID), types.StringValue(ref.Name)
		m.ID = types.StringValue(ref.NodeID + "/" + ref.Name)
		switch r.refresh(ctx, &m, &result.Diagnostics) {
		case shared.ObjectGone:
			return result, false // released since the listing
		case shared.ObjectRead:
			result.Diagnostics.Append(result.Resource.Set(ctx, &m)...)
		}
		return result, true
	})
}
