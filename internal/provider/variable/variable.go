// Package variable is the Terraform layer of Nomad Variables: the
// berth_variable resource (plain items in state, write-only secret items,
// check-and-set writes, move from nomad_variable), its ephemeral resource
// (items for one run, never stored), its data source (metadata and keys,
// never values) and its list resource. The domain package
// internal/variable holds the rules; this package converts models and
// reports diagnostics.
//
// Files: variable_resource.go (CRUD) with variable_resource_<topic>.go
// (plan, import, move), variable_schema.go, variable_model.go,
// variable_ephemeral.go, variable_data_source.go,
// variable_list_resource.go; variable.go lists what the family offers.
package variable

import (
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/ephemeral"
	"github.com/hashicorp/terraform-plugin-framework/list"
	"github.com/hashicorp/terraform-plugin-framework/resource"
)

// Resources are the family's managed resources, as the provider lists them.
func Resources() []func() resource.Resource {
	return []func() resource.Resource{NewVariableResource}
}

// DataSources are the family's data sources.
func DataSources() []func() datasource.DataSource {
	return []func() datasource.DataSource{NewVariableDataSource}
}

// ListResources are the family's list resources.
func ListResources() []func() list.ListResource {
	return []func() list.ListResource{NewVariableListResource}
}

// EphemeralResources are the family's ephemeral resources.
func EphemeralResources() []func() ephemeral.EphemeralResource {
	return []func() ephemeral.EphemeralResource{NewVariableEphemeral}
}
