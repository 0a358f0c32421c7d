package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"

	"github.com/berthhq/terraform-provider-berth/internal/names"
)

// nodeReservationIdentity identifies a berth_node_reservation.
var nodeReservationIdentity = resourceIdentity{
	{name: "node_id", doc: "Node ID, or a unique prefix of it."},
	{name: "name", doc: "Reservation name."},
}

var _ resource.ResourceWithIdentity = &nodeReservationResource{}

func (r *nodeReservationResource) IdentitySchema(_ context.Context, _ resource.IdentitySchemaRequest, resp *resource.IdentitySchemaResponse) {
	resp.IdentitySchema = nodeReservationIdentity.Schema()
}

// nodePoolIdentity identifies a berth_node_pool.
var nodePoolIdentity = singleIdentity{name: "name", doc: "Node pool name."}

var _ resource.ResourceWithIdentity = &nodePoolResource{}

func (r *nodePoolResource) IdentitySchema(_ context.Context, _ resource.IdentitySchemaRequest, resp *resource.IdentitySchemaResponse) {
	resp.IdentitySchema = nodePoolIdentity.Schema()
}

func nodeIDPrefixValidator() validator.String {
	return stringRule{summary: "Invalid node ID", desc: "must be " + names.NodeIDPrefixRule, check: names.CheckNodeIDPrefix}
}
