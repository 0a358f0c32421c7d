package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/berthhq/terraform-provider-berth/internal/lease"
	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
)

var leaseIdentity = shared.ResourceIdentity{
	{Name: "namespace", Doc: "Nomad namespace of the lease job; default: the provider's namespace.", Optional: true},
	{Name: "name", Doc: "Lease name (its job ID)."},
}

var _ resource.ResourceWithIdentity = &leaseResource{}

func (r *leaseResource) IdentitySchema(_ context.Context, _ resource.IdentitySchemaRequest, resp *resource.IdentitySchemaResponse) {
	resp.IdentitySchema = leaseIdentity.Schema()
}

// leaseDrivers reads workload.driver.
func leaseDrivers(ctx context.Context, p tfsdk.Plan) map[string]shared.DriverAt {
	at := path.Root("workload").AtName("driver")
	var d types.String
	if diags := p.GetAttribute(ctx, at, &d); diags.HasError() {
		return nil
	}
	if v, ok := shared.KnownString(d); ok && v != "" {
		return map[string]shared.DriverAt{"workload": {At: at, Driver: v}}
	}
	return nil
}

var leaseBudgetFix = fmt.Sprintf("Lower the workload's cpu, memory or disk (the lease timer task adds %d MHz and %d MiB), or grow the node reservation.",
	lease.TimerCPU, lease.TimerMemoryMB)
