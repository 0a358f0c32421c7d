// Package lease is the Terraform layer's leases: berth_reservation (a
// workload that ends by itself at expiry, signed by the provider's key),
// the berth_reservation_result data source and the renew action. The domain
// package internal/lease, imported under the same name, builds and reads
// the lease jobs; this package converts models and reports diagnostics.
//
// Files: lease_resource.go (CRUD) with lease_resource_<topic>.go,
// lease_schema.go, lease_model.go, lease_trust_record.go,
// lease_result_data_source.go, lease_renew_action.go; lease.go lists what
// the family offers, its identity and its driver and budget checks.
package lease

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/action"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
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

// Resources are the family's managed resources, as the provider lists them.
func Resources() []func() resource.Resource {
	return []func() resource.Resource{NewLeaseResource}
}

// Actions are the family's actions.
func Actions() []func() action.Action {
	return []func() action.Action{NewLeaseRenewAction}
}

// DataSources are the family's data sources.
func DataSources() []func() datasource.DataSource {
	return []func() datasource.DataSource{NewLeaseResultDataSource}
}
