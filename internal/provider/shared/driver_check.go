package shared

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"
)

// driverCheckTimeout bounds the driver check: a slow Nomad must not hold up
// a plan or an apply for long.
const driverCheckTimeout = 15 * time.Second

// CheckDrivers reports an error at each task driver that plan sets (and
// prior, the state, does not already have at the same place) and no node
// of the cluster has detected: Nomad would register the job and then never
// place it, so the apply would only time out. ModifyPlan shows these as
// warnings (warnAtPlan); Create and Update refuse them before writing.
// When Nomad cannot be asked, or has no nodes yet, nothing is reported.
func CheckDrivers(ctx context.Context, data *ProviderData, plan tfsdk.Plan, prior tfsdk.State, diags *diag.Diagnostics,
	drivers func(context.Context, tfsdk.Plan) map[string]DriverAt) {
	if data == nil || plan.Raw.IsNull() {
		return
	}
	planned := drivers(ctx, plan)
	if !prior.Raw.IsNull() {
		for key, was := range drivers(ctx, tfsdk.Plan(prior)) {
			if now, ok := planned[key]; ok && now.Driver == was.Driver {
				delete(planned, key)
			}
		}
	}
	if len(planned) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, driverCheckTimeout)
	defer cancel()
	known, nodes, err := data.Nomad.DetectedDrivers(ctx)
	if err != nil || nodes == 0 {
		tflog.Debug(ctx, "Task drivers not checked at plan time", map[string]any{"error": fmt.Sprint(err), "nodes": nodes})
		return
	}
	offered := make([]string, 0, len(known))
	for d := range known {
		offered = append(offered, "`"+d+"`")
	}
	slices.Sort(offered)
	keys := make([]string, 0, len(planned))
	for k := range planned {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		u := planned[k]
		if known[u.Driver] {
			continue
		}
		diags.AddAttributeError(u.At, "Unknown task driver",
			fmt.Sprintf("No node of the Nomad cluster has detected the %q driver, so Nomad would accept the job and never place it. "+
				"Drivers the nodes offer: %s. Check the spelling, or install and enable the driver plugin on the Nomad clients.",
				u.Driver, strings.Join(offered, ", ")))
	}
}

// DriverAt is a known driver name and the attribute that sets it.
type DriverAt struct {
	At     path.Path
	Driver string
}

func KnownString(v attr.Value) (string, bool) {
	s, ok := v.(types.String)
	if !ok || s.IsNull() || s.IsUnknown() {
		return "", false
	}
	return s.ValueString(), true
}
