package lease

import (
	"context"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/berthhq/terraform-provider-berth/internal/nomadclient"
	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
)

// leasePlan is what time and tampering mean for the plan of an existing
// lease; decideLeasePlan computes it without reading the clock itself, so
// the decisions are unit-tested at chosen instants.
type leasePlan struct {
	// replace says why the lease is replaced; "" when it is not.
	replace string
	// newEnd is the new expires_at of an in-place duration change; zero
	// when the duration does not change.
	newEnd time.Time
	// tooLate explains why the new duration is rejected: it would already
	// have ended. "" when it is acceptable.
	tooLate string
}

// decideLeasePlan decides at now: a lease that has ended (as last read, or
// by the clock since, e.g. with -refresh=false) and renews is replaced; a
// lease that failed verification is replaced; a new duration must end
// after now.
func decideLeasePlan(plan, state leaseModel, now time.Time) leasePlan {
	ended := state.Expired.ValueBool()
	if end, ok := timeOf(state.ExpiresAt); ok && !now.Before(end) {
		ended = true
	}
	switch {
	case ended && plan.Renew.ValueBool():
		return leasePlan{replace: "expired, renew = true"}
	case !state.Verified.IsNull() && !state.Verified.IsUnknown() && !state.Verified.ValueBool():
		return leasePlan{replace: "the job in Nomad carries no valid signature"}
	case plan.Duration.IsUnknown() || plan.Duration.Equal(state.Duration):
		return leasePlan{}
	}
	d, diags := plan.Duration.ValueGoDuration()
	created, ok := timeOf(state.CreatedAt)
	if diags.HasError() || !ok {
		return leasePlan{} // reported by the duration type, or nothing to go on
	}
	end := created.Add(d).UTC()
	if !end.After(now) {
		return leasePlan{tooLate: fmt.Sprintf("The lease was created at %s; a duration of %s ends at %s, which is in the past. "+
			"Use a longer duration, or replace the lease.", created.UTC().Format(time.RFC3339), plan.Duration.ValueString(), end.Format(time.RFC3339))}
	}
	return leasePlan{newEnd: end}
}

// ModifyPlan applies decideLeasePlan, fills the namespace of a new lease
// from the provider's so the plan shows it, and warns when a new lease's
// driver is missing from the cluster or it does not fit in its node
// reservation (apply refuses both before writing; plan_advice.go). (A
// lease's charge changes only with a new lease: every attribute it depends
// on replaces it, and Terraform plans a replacement as a new lease.)
func (r *leaseResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	var found diag.Diagnostics
	shared.CheckDrivers(ctx, r.Data, req.Plan, req.State, &found, leaseDrivers)
	shared.WarnAtPlan(&resp.Diagnostics, found)
	if req.Plan.Raw.IsNull() || r.Data == nil {
		return
	}
	if req.State.Raw.IsNull() {
		var ns types.String
		resp.Diagnostics.Append(req.Plan.GetAttribute(ctx, path.Root("namespace"), &ns)...)
		if ns.IsUnknown() && shared.ConfigNull(ctx, req.Config, "namespace", &resp.Diagnostics) {
			resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("namespace"), r.Data.Nomad.Namespace())...)
		}
		if !resp.Diagnostics.HasError() {
			var found diag.Diagnostics
			r.checkBudget(ctx, resp, &found)
			shared.WarnAtPlan(&resp.Diagnostics, found)
		}
		return
	}
	var plan, state leaseModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	unknown := func(attrs ...string) {
		for _, p := range attrs {
			resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root(p), unknownOf(p))...)
		}
	}
	d := decideLeasePlan(plan, state, r.clock())
	switch {
	case d.replace != "":
		resp.RequiresReplace = append(resp.RequiresReplace, path.Root("expires_at"))
		unknown("expires_at", "created_at", "signature", "user", "verified", "expired", "result", "job_modify_index")
		tflog.Info(ctx, "Lease will be replaced", map[string]any{"reason": d.replace})
	case d.tooLate != "":
		// By the clock: a warning (plan_advice.go); Update refuses it.
		var found diag.Diagnostics
		found.AddAttributeError(path.Root("duration"), "Lease would already have ended", d.tooLate)
		shared.WarnAtPlan(&resp.Diagnostics, found)
	case !d.newEnd.IsZero():
		resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("expires_at"), timeValue(d.newEnd))...)
		unknown("signature", "user", "verified", "result", "job_modify_index")
	}
}

// checkBudget checks that a new lease's footprint (workload and timer)
// fits in its node reservation.
func (r *leaseResource) checkBudget(ctx context.Context, resp *resource.ModifyPlanResponse, diags *diag.Diagnostics) {
	var plan leaseModel
	diags.Append(resp.Plan.Get(ctx, &plan)...)
	if diags.HasError() || plan.NodeReservation.IsNull() || plan.NodeReservation.IsUnknown() || shared.AnyUnknown(plan.Name, plan.Namespace, plan.Workload) {
		return
	}
	var quiet diag.Diagnostics // conversion problems are reported by validation
	l := plan.toLease(ctx, r.Data.Nomad.Namespace(), &quiet)
	if quiet.HasError() {
		return
	}
	shared.CheckReservationBudget(ctx, r.Data, plan.NodeReservation, nomadclient.LeaseConsumer(l.Namespace, l.Name), l.Footprint(), leaseBudgetFix, diags)
}
