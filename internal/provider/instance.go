package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
)

var instanceIdentity = resourceIdentity{
	{name: "namespace", doc: "Nomad namespace of the job; default: the provider's namespace.", optional: true},
	{name: "name", doc: "Job ID."},
}

var _ resource.ResourceWithIdentity = &instanceResource{}

func (r *instanceResource) IdentitySchema(_ context.Context, _ resource.IdentitySchemaRequest, resp *resource.IdentitySchemaResponse) {
	resp.IdentitySchema = instanceIdentity.Schema()
}

// instanceDrivers reads services[*].driver.
func instanceDrivers(_ context.Context, p tfsdk.Plan) map[string]driverAt {
	services, ok := rawElements(rawAttr(p.Raw, "services"))
	if !ok {
		return nil
	}
	out := map[string]driverAt{}
	for name, svc := range services {
		if d, ok := rawString(rawAttr(svc, "driver")); ok && d != "" {
			out[name] = driverAt{at: path.Root("services").AtMapKey(name).AtName("driver"), driver: d}
		}
	}
	return out
}

const instanceBudgetFix = "Lower replicas, the services' cpu and memory or policies.ephemeral_disk.size, or grow the node reservation."
