package node

import (
	"github.com/hashicorp/terraform-plugin-framework/list"

	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
)

// NewNodePoolListResource builds the berth_node_pool list resource for
// `terraform query` (Terraform 1.14+).
func NewNodePoolListResource() list.ListResource {
	return shared.NewNamedObjectList(newNodePoolResource(),
		"Node pools, whoever created them, for `terraform query` (Terraform 1.14 and later). Nomad's "+
			"built-in pools `all` and `default` are left out: they cannot be managed.",
		"Only pools whose name starts with this.")
}
