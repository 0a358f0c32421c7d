// Package cluster is the Terraform layer's view of the Nomad cluster as a
// whole: the berth_cluster data source (servers, leader, health).
package cluster

import "github.com/hashicorp/terraform-plugin-framework/datasource"

// DataSources are the family's data sources, as the provider lists them.
func DataSources() []func() datasource.DataSource {
	return []func() datasource.DataSource{NewClusterDataSource}
}
