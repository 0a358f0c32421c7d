// Package instance is the Terraform layer's berth_instance: a service (or
// batch) job berth owns end to end, with its resource, data source, list
// resource and the restart, promote and revert actions. The domain package
// internal/instance, imported under the same name, builds and reads the
// Nomad job; this package converts models and reports diagnostics.
//
// Files: instance_resource.go (CRUD) with instance_resource_<topic>.go,
// instance_schema.go with instance_schema_<topic>.go, instance_model.go
// with instance_model_<topic>.go, instance_data_source.go,
// instance_list_resource.go, instance_<verb>_action.go; instance.go lists
// what the family offers, its identity and its driver and budget checks;
// shortcut_hooks.go is what the provider's plan and read shortcuts use.
package instance

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/action"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/list"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"

	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
)

var Identity = shared.ResourceIdentity{
	{Name: "namespace", Doc: "Nomad namespace of the job; default: the provider's namespace.", Optional: true},
	{Name: "name", Doc: "Job ID."},
}

var _ resource.ResourceWithIdentity = &instanceResource{}

// instanceDrivers reads services[*].driver.
func instanceDrivers(_ context.Context, p tfsdk.Plan) map[string]shared.DriverAt {
	services, ok := shared.RawElements(shared.RawAttr(p.Raw, "services"))
	if !ok {
		return nil
	}
	out := map[string]shared.DriverAt{}
	for name, svc := range services {
		if d, ok := shared.RawString(shared.RawAttr(svc, "driver")); ok && d != "" {
			out[name] = shared.DriverAt{At: path.Root("services").AtMapKey(name).AtName("driver"), Driver: d}
		}
	}
	return out
}

const instanceBudgetFix = "Lower replicas, the services' cpu and memory or policies.ephemeral_disk.size, or grow the node reservation."

// Resources are the family's managed resources, as the provider lists them.
func Resources() []func() resource.Resource {
	return []func() resource.Resource{NewInstanceResource}
}

// ListResources are the family's list resources (terraform query).
func ListResources() []func() list.ListResource {
	return []func() list.ListResource{NewInstanceListResource}
}

// Actions are the family's actions.
func Actions() []func() action.Action {
	return []func() action.Action{NewInstanceRestartAction, NewInstancePromoteAction, NewInstanceRevertAction}
}

// DataSources are the family's data sources.
func DataSources() []func() datasource.DataSource {
	return []func() datasource.DataSource{NewInstanceDataSource}
}
