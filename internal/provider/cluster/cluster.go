// Package cluster is the Terraform layer's view of the Nomad cluster as a
// whole: the berth_cluster data source (servers, leader, health), the
// region's scheduler configuration (berth_scheduler_settings, resource and
// data source), and the read-only views of what runs in it (listings, and
// one CSI plugin or scaling policy by ID).
//
// Files: <thing>_resource.go, <thing>_schema.go (the resource's and the
// data source's), <thing>_model.go, <thing>_data_source.go,
// <thing>_list_resource.go; views.go holds what the read-only views share
// (their computed attributes are shared.Computed*).
package cluster

import (
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/list"
	"github.com/hashicorp/terraform-plugin-framework/resource"
)

// Resources are the family's managed resources.
func Resources() []func() resource.Resource {
	return []func() resource.Resource{NewSchedulerSettingsResource}
}

// ListResources are the family's list resources (terraform query).
func ListResources() []func() list.ListResource {
	return []func() list.ListResource{NewSchedulerSettingsListResource}
}

// DataSources are the family's data sources, as the provider lists them.
func DataSources() []func() datasource.DataSource {
	return []func() datasource.DataSource{NewClusterDataSource, NewSchedulerSettingsDataSource, NewAllocationsDataSource,
		NewJWKSDataSource, NewRegionsDataSource, NewDatacentersDataSource, NewDeploymentsDataSource,
		NewScalingPoliciesDataSource, NewCSIPluginsDataSource, NewCSIPluginDataSource, NewScalingPolicyDataSource}
}
