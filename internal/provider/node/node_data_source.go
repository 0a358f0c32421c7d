package node

import (
	"context"
	"errors"

	"github.com/hashicorp/terraform-plugin-framework-validators/datasourcevalidator"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/berthhq/terraform-provider-berth/internal/nomadclient"
	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
)

// berth_node keeps its own Read rather than shared.DataSource: its model
// holds nested objects by value, which cannot take the configuration's
// nulls, so it reads id and name alone.
var _ datasource.DataSourceWithConfigValidators = &nodeDataSource{}

// NewNodeDataSource builds the berth_node data source.
func NewNodeDataSource() datasource.DataSource {
	return &nodeDataSource{shared.NewDataSourceBase("node")}
}

type nodeDataSource struct{ shared.DataSourceBase }

func (d *nodeDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = nodeDataSourceSchema()
}

func (d *nodeDataSource) ConfigValidators(context.Context) []datasource.ConfigValidator {
	return []datasource.ConfigValidator{
		datasourcevalidator.ExactlyOneOf(path.MatchRoot("id"), path.MatchRoot("name")),
	}
}

func (d *nodeDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	// Only id and name come from configuration; everything else is
	// computed, so read just those two.
	var id, name types.String
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("id"), &id)...)
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("name"), &name)...)
	if resp.Diagnostics.HasError() {
		return
	}
	node, err := d.Data.Nomad.FindNode(ctx, id.ValueString(), name.ValueString(), d.Data.LedgerNamespace)
	if err != nil {
		var notFound *nomadclient.NodeNotFoundError
		var ambiguous *nomadclient.AmbiguousNodeError
		at := path.Root("name")
		if !id.IsNull() {
			at = path.Root("id")
		}
		switch {
		case errors.As(err, &notFound):
			resp.Diagnostics.AddAttributeError(at, "Nomad node not found",
				err.Error()+". List the cluster's nodes with the berth_nodes data source or `nomad node status`.")
		case errors.As(err, &ambiguous):
			resp.Diagnostics.AddAttributeError(at, "Nomad node lookup is ambiguous", err.Error())
		default:
			shared.AddNomadError(&resp.Diagnostics, "Could not read Nomad node", err)
		}
		return
	}

	out := newNodeDataSourceModel(node)
	resp.Diagnostics.Append(resp.State.Set(ctx, &out)...)
}
