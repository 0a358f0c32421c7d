// Package acl is the Terraform layer of Nomad's ACL system: policies,
// roles, tokens (managed and ephemeral), auth methods, binding rules, the
// bootstrap, and their data sources and list resources.
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
