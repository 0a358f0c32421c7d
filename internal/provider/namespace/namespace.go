// Package namespace is the Terraform layer of Nomad namespaces: the
// berth_namespace resource, its data sources and list resource.
package namespace

import (
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/ephemeral"
	"github.com/hashicorp/terraform-plugin-framework/list"
	"github.com/hashicorp/terraform-plugin-framework/resource"
)

// Resources are the family's managed resources, as the provider lists them.
func Resources() []func() resource.Resource { return nil }

// DataSources are the family's data sources.
func DataSources() []func() datasource.DataSource { return nil }

// ListResources are the family's list resources.
func ListResources() []func() list.ListResource { return nil }

// EphemeralResources are the family's ephemeral resources.
func EphemeralResources() []func() ephemeral.EphemeralResource { return nil }
