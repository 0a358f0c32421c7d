// Package node is the Terraform layer's client nodes and what is carved
// out of them: berth_node_settings, berth_node_reservation (with its list
// resource and ledger of charges), berth_node_pool (with its list
// resource), the berth_node, berth_nodes, berth_node_pool and
// berth_node_pools data sources, and the ephemeral berth_node_intro_token
// (Nomad 1.11+, its own file node_intro_token_ephemeral.go: schema, model
// and Open).
//
// Files: <thing>_resource.go (CRUD), <thing>_schema.go, <thing>_model.go,
// <thing>_list_resource.go for node_settings, node_reservation and
// node_pool; node_schema.go and node_model.go serve both node data
// sources, capacity_model.go the capacity objects; node.go lists what the
// family offers and its identities. When this package grows past about
// 3,000 lines, node pools and node reservations split out cleanly.
package node

import (
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/ephemeral"
	"github.com/hashicorp/terraform-plugin-framework/list"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"

	"github.com/berthhq/terraform-provider-berth/internal/names"
	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
)

// nodeReservationIdentity identifies a berth_node_reservation.
var nodeReservationIdentity = shared.ResourceIdentity{
	{Name: "node_id", Doc: "Node ID, or a unique prefix of it."},
	{Name: "name", Doc: "Reservation name."},
}

// nodePoolIdentity identifies a berth_node_pool.
var nodePoolIdentity = shared.SingleIdentity{Name: "name", Doc: "Node pool name."}

func nodeIDPrefixValidator() validator.String {
	return shared.StringRule{Summary: "Invalid node ID", Desc: "must be " + names.NodeIDPrefixRule, Check: names.CheckNodeIDPrefix}
}

// Resources are the family's managed resources, as the provider lists them.
func Resources() []func() resource.Resource {
	return []func() resource.Resource{NewNodeSettingsResource, NewNodeReservationResource, NewNodePoolResource}
}

// ListResources are the family's list resources (terraform query).
func ListResources() []func() list.ListResource {
	return []func() list.ListResource{NewNodeReservationListResource, NewNodePoolListResource}
}

// DataSources are the family's data sources.
func DataSources() []func() datasource.DataSource {
	return []func() datasource.DataSource{NewNodesDataSource, NewNodeDataSource, NewNodePoolsDataSource, NewNodePoolDataSource}
}

// EphemeralResources are the family's ephemeral resources.
func EphemeralResources() []func() ephemeral.EphemeralResource {
	return []func() ephemeral.EphemeralResource{NewNodeIntroTokenEphemeral}
}
