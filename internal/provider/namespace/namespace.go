// Package namespace is the Terraform layer of Nomad namespaces: the
// berth_namespace resource (with its list resource and the move from
// nomad_namespace) and the berth_namespace and berth_namespaces data
// sources.
//
// Files: namespace_resource.go (CRUD, import, delete refusals),
// namespace_resource_plan.go (validation and plan-time refusals),
// namespace_resource_move.go, namespace_schema.go and namespace_model.go
// (shared with the data source and the list resource),
// namespace_list_resource.go, namespace_data_source.go,
// namespaces_data_source.go; this file lists what the family offers and
// its identity.
package namespace

import (
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/ephemeral"
	"github.com/hashicorp/terraform-plugin-framework/list"
	"github.com/hashicorp/terraform-plugin-framework/resource"

	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
)

// namespaceIdentity identifies a berth_namespace.
var namespaceIdentity = shared.SingleIdentity{Name: "name", Doc: "Namespace name."}

// Resources are the family's managed resources, as the provider lists them.
func Resources() []func() resource.Resource {
	return []func() resource.Resource{NewNamespaceResource}
}

// DataSources are the family's data sources.
func DataSources() []func() datasource.DataSource {
	return []func() datasource.DataSource{NewNamespaceDataSource, NewNamespacesDataSource}
}

// ListResources are the family's list resources (terraform query).
func ListResources() []func() list.ListResource {
	return []func() list.ListResource{NewNamespaceListResource}
}

// EphemeralResources are the family's ephemeral resources.
func EphemeralResources() []func() ephemeral.EphemeralResource { return nil }
