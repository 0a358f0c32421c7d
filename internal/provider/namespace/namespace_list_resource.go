package namespace

import (
	"github.com/hashicorp/terraform-plugin-framework/list"

	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
)

// NewNamespaceListResource builds the berth_namespace list resource for
// `terraform query` (Terraform 1.14+).
func NewNamespaceListResource() list.ListResource {
	return shared.NewNamedObjectList(newNamespaceResource(),
		"Namespaces, whoever created them, for `terraform query` (Terraform 1.14 and later), Nomad's "+
			"`default` namespace included (importing it manages its settings; destroying it leaves it in Nomad).",
		"Only namespaces whose name starts with this.")
}
