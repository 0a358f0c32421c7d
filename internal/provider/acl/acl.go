// Package acl is the Terraform layer of Nomad's ACL system: policies,
// roles, tokens (managed and ephemeral), auth methods, binding rules, the
// bootstrap, and their data sources and list resources.
//
// Files: <thing>_resource.go, <thing>_schema.go, <thing>_model.go (shared
// with the list resource and the data source, whose token model reads
// through the resource's), <thing>_list_resource.go, and
// <thing>_data_source.go and <things>_data_source.go for policy, role and
// token; acl_list_stream.go is what every list resource does (list, name,
// identify, read in full), acl_data_source.go what every data source's
// Read does; this file lists what the family offers.
package acl

import (
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/ephemeral"
	"github.com/hashicorp/terraform-plugin-framework/list"
	"github.com/hashicorp/terraform-plugin-framework/resource"
)

// Resources are the family's managed resources, as the provider lists them.
func Resources() []func() resource.Resource {
	return []func() resource.Resource{
		NewACLPolicyResource, NewACLRoleResource, NewACLAuthMethodResource, NewACLBindingRuleResource,
		NewACLTokenResource, NewACLBootstrapResource,
	}
}

// DataSources are the family's data sources.
func DataSources() []func() datasource.DataSource {
	return []func() datasource.DataSource{
		NewACLPolicyDataSource, NewACLPoliciesDataSource, NewACLRoleDataSource, NewACLRolesDataSource,
		NewACLTokenDataSource, NewACLTokensDataSource,
	}
}

// ListResources are the family's list resources.
func ListResources() []func() list.ListResource {
	return []func() list.ListResource{
		NewACLPolicyListResource, NewACLRoleListResource, NewACLAuthMethodListResource,
		NewACLBindingRuleListResource, NewACLTokenListResource,
	}
}

// EphemeralResources are the family's ephemeral resources.
func EphemeralResources() []func() ephemeral.EphemeralResource {
	return []func() ephemeral.EphemeralResource{NewACLTokenEphemeral}
}
