package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
)

var instanceIdentity = ResourceIdentity{
	{Name: "namespace", Doc: "Nomad namespace of the job; default: the provider's namespace.", Optional: true},
	{Name: "name", Doc: "Job ID."},
}

var _ resource.ResourceWithIdentity = &instanceResource{}

func (r *instanceResource) IdentitySchema(_ context.Context, _ resource.IdentitySchemaRequest, resp *resource.IdentitySchemaResponse) {
	resp.IdentitySchema = instanceIdentity.Schema()
}

// instanceDrivers reads services[*].driver.
func instanceDrivers(_ context.Context, p tfsdk.Plan) map[string]DriverAt {
	services, ok := RawElements(RawAttr(p.Raw, "services"))
	if !ok {
		return nil
	}
	out := map[string]DriverAt{}
	for name, svc := range services {
		if d, ok := RawString(RawAttr(svc, "driver")); ok && d != "" {
			out[name] = DriverAt{At: path.Root("services").AtMapKey(name).AtName("driver"), Driver: d}
		}
	}
	return out
}

const instanceBudgetFix = "Lower replicas, the services' cpu and memory or policies.ephemeral_disk.size, or grow the node reservation."
