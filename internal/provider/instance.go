package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"

	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
)

var instanceIdentity = shared.ResourceIdentity{
	{Name: "namespace", Doc: "Nomad namespace of the job; default: the provider's namespace.", Optional: true},
	{Name: "name", Doc: "Job ID."},
}

var _ resource.ResourceWithIdentity = &instanceResource{}

func (r *instanceResource) IdentitySchema(_ context.Context, _ resource.IdentitySchemaRequest, resp *resource.IdentitySchemaResponse) {
	resp.IdentitySchema = instanceIdentity.Schema()
}

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
