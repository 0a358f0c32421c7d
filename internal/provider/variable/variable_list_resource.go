package variable

import (
	"context"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/list"
	listschema "github.com/hashicorp/terraform-plugin-framework/list/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/berthhq/terraform-provider-berth/internal/nomadclient"
	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
	"github.com/berthhq/terraform-provider-berth/internal/variable"
)

var _ list.ListResourceWithConfigure = &variableListResource{}

// NewVariableListResource builds the berth_variable list resource for
// `terraform query` (Terraform 1.14+).
func NewVariableListResource() list.ListResource {
	return &variableListResource{newVariableResource()}
}

// It embeds the resource: its name, provider data, identity and model.
type variableListResource struct{ *variableResource }

// variableListModel is the list block's configuration.
type variableListModel struct {
	Namespace  types.String `tfsdk:"namespace"`
	PathPrefix types.String `tfsdk:"path_prefix"`
}

func (r *variableListResource) ListResourceConfigSchema(_ context.Context, _ list.ListResourceSchemaRequest, resp *list.ListResourceSchemaResponse) {
	resp.Schema = listschema.Schema{
		MarkdownDescription: "Nomad Variables, whoever wrote them, for `terraform query` (Terraform 1.14 and later), " +
			"listed from Nomad's metadata (no values). With `-generate-config-out` each one is read as an import " +
			"reads it: every item as a plain `items` entry, so the generated configuration (and the state of its " +
			"import) holds the values; move secret ones to `items_wo` first. berth's own node reservation ledgers " +
			"are left out.",
		Attributes: map[string]listschema.Attribute{
			"namespace": listschema.StringAttribute{Optional: true,
				MarkdownDescription: "Namespace to list; `*` lists every namespace the token can read. Default `default`."},
			"path_prefix": listschema.StringAttribute{Optional: true, MarkdownDescription: "Only Variables whose path starts with this."},
		},
	}
}

func (r *variableListResource) List(ctx context.Context, req list.ListRequest, stream *list.ListResultsStream) {
	ctx, cfg, ok := shared.OpenList[variableListModel](ctx, r.Data, req, stream)
	if !ok {
		return
	}
	ns := cfg.Namespace.ValueString()
	if ns == "" {
		ns = variable.DefaultNamespace
	}
	metas, err := r.Data.Nomad.ListVariables(ctx, ns, cfg.PathPrefix.ValueString())
	if err != nil {
		shared.ListFailed(stream, "Could not list Variables", err)
		return
	}
	stream.Results = shared.ListStream(metas, req.Limit, func(meta variable.Meta) (list.ListResult, bool) {
		if meta.Namespace == r.Data.LedgerNamespace && strings.HasPrefix(meta.Path, nomadclient.LedgerPrefix) {
			return list.ListResult{}, false // a node reservation ledger: berth_node_reservation manages it
		}
		ref := variable.Ref{Namespace: meta.Namespace, Path: meta.Path}
		result := req.NewListResult(ctx)
		result.DisplayName = refID(ref)
		variableIdentity.Record(ctx, result.Identity, ref.Namespace, ref.Path, &result.Diagnostics)
		if !req.IncludeResource {
			return result, true
		}
		v, err := r.Data.Nomad.GetVariable(ctx, ref.Namespace, ref.Path)
		if err != nil || v == nil {
			if err != nil {
				shared.AddNomadError(&result.Diagnostics, "Could not read Variable "+refID(ref), err)
			}
			return list.ListResult{Diagnostics: result.Diagnostics}, err != nil // gone since the listing
		}
		m, d := shared.NullResourceModel[variableModel](ctx, variableSchema())
		result.Diagnostics.Append(d...)
		m.fromNomad(ctx, v, &result.Diagnostics)
		if !result.Diagnostics.HasError() {
			result.Diagnostics.Append(result.Resource.Set(ctx, &m)...)
		}
		return result, true
	})
}
