package instance

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/berthhq/terraform-provider-berth/internal/instance"
	"github.com/berthhq/terraform-provider-berth/internal/nomadclient"
	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
)

// ValidateConfig runs berth's own checks at validate/plan time, each at
// its attribute path, so nothing invalid is ever sent to Nomad.
func (r *instanceResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var m instanceModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() || shared.AnyInvalidValue(ctx, m.Update, m.Services, m.Policies) {
		return // invalid values are reported by the framework, at their attribute
	}
	validateJobTypeConfig(&m, &resp.Diagnostics)
	validateSecretEnvConfig(ctx, req.Config, &resp.Diagnostics)
	if !shared.RawFullyKnown(req.Config.Raw, "services", "update", "volumes", "policies") {
		// toSpec would read an unknown policy field as unset (Nomad's
		// default), and the cross-field checks would judge that default.
		return // checked again at apply, when every value is known
	}
	spec, diags, err := m.toSpec(ctx)
	resp.Diagnostics.Append(diags...)
	if err != nil || diags.HasError() {
		return // unknown values: checked again when they are known
	}
	for _, fe := range instance.Validate(spec) {
		resp.Diagnostics.AddAttributeError(fieldPath(fe.Path), fe.Summary, fe.Detail)
	}
}

// ModifyPlan warns when the services' drivers are missing from the cluster
// or the instance does not fit in its node reservation (apply refuses
// both; see plan_advice.go), and fills the namespace and ID of a new
// instance from the provider's namespace so the plan shows them.
func (r *instanceResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	var found diag.Diagnostics
	shared.CheckDrivers(ctx, r.Data, req.Plan, req.State, &found, instanceDrivers)
	shared.WarnAtPlan(&resp.Diagnostics, found)
	if req.Plan.Raw.IsNull() {
		return
	}
	planJobType(ctx, req, resp)
	planUnmanaged(ctx, req, resp)
	if r.Data == nil {
		return
	}
	if req.State.Raw.IsNull() {
		r.planNamespace(ctx, req, resp)
	}
	if !resp.Diagnostics.HasError() {
		r.checkBudget(ctx, req, resp)
	}
}

// checkBudget warns at plan time when what the instance will be charged
// (replicas × its services' resources) does not fit in its node
// reservation, whenever the reservation or the charge changes; the charge
// at apply refuses it before anything is written.
func (r *instanceResource) checkBudget(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if reservation := shared.RawAttr(resp.Plan.Raw, "node_reservation"); reservation.IsNull() || !reservation.IsKnown() {
		return // not placed into a node reservation: nothing to check
	}
	var plan instanceModel
	resp.Diagnostics.Append(resp.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() || plan.NodeReservation.IsNull() || plan.NodeReservation.IsUnknown() {
		return
	}
	want, ok := plannedCharge(ctx, &plan)
	if !ok {
		return // unknown values: apply checks
	}
	if !req.State.Raw.IsNull() {
		var state instanceModel
		resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
		if had, ok := plannedCharge(ctx, &state); ok && state.NodeReservation.Equal(plan.NodeReservation) && had == want {
			return // charged that already
		}
	}
	ns := plan.Namespace.ValueString()
	if plan.Namespace.IsUnknown() || ns == "" {
		ns = r.Data.Nomad.Namespace()
	}
	var found diag.Diagnostics
	shared.CheckReservationBudget(ctx, r.Data, plan.NodeReservation, nomadclient.InstanceConsumer(ns, plan.Name.ValueString()), want,
		instanceBudgetFix, &found)
	shared.WarnAtPlan(&resp.Diagnostics, found)
}

// planNamespace fills the namespace and ID of a new instance.
func (r *instanceResource) planNamespace(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	var ns, name types.String
	resp.Diagnostics.Append(req.Plan.GetAttribute(ctx, path.Root("namespace"), &ns)...)
	resp.Diagnostics.Append(req.Plan.GetAttribute(ctx, path.Root("name"), &name)...)
	set := map[string]tftypes.Value{}
	if ns.IsUnknown() && shared.ConfigNull(ctx, req.Config, "namespace", &resp.Diagnostics) {
		ns = types.StringValue(r.Data.Nomad.Namespace())
		set["namespace"] = tftypes.NewValue(tftypes.String, ns.ValueString())
	}
	if !ns.IsUnknown() && !name.IsUnknown() {
		set["id"] = tftypes.NewValue(tftypes.String, instanceID(ns.ValueString(), name.ValueString()))
	}
	resp.Diagnostics.Append(shared.SetPlanRoot(&resp.Plan, set)...)
}
