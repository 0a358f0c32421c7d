package provider

import (
	"context"

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

var _ resource.ResourceWithIdentity = &nodeReservationResource{}

func (r *nodeReservationResource) IdentitySchema(_ context.Context, _ resource.IdentitySchemaRequest, resp *resource.IdentitySchemaResponse) {
	resp.IdentitySchema = nodeReservationIdentity.Schema()
}

// nodePoolIdentity identifies a berth_node_pool.
var nodePoolIdentity = shared.SingleIdentity{Name: "name", Doc: "Node pool name."}

var _ resource.ResourceWithIdentity = &nodePoolResource{}

func (r *nodePoolResource) IdentitySchema(_ context.Context, _ resource.IdentitySchemaRequest, resp *resource.IdentitySchemaResponse) {
	resp.IdentitySchema = nodePoolIdentity.Schema()
}

func nodeIDPrefixValidator() validator.String {
	return shared.StringRule{Summary: "Invalid node ID", Desc: "must be " + names.NodeIDPrefixRule, Check: names.CheckNodeIDPrefix}
}
