package job

import "github.com/hashicorp/terraform-plugin-go/tftypes"

// What the provider's unchanged-plan shortcut (internal/provider's
// unchanged_plan_shortcut.go) needs from berth_job besides the resource
// itself: whether ModifyPlan would change the plan of a job whose
// configuration and state agree.

// PlanKeepsUnchanged reports whether ModifyPlan plans prior, a berth_job
// state that Terraform proposes unchanged, as that state. It does unless
// the last refresh found drift: the plan then clears drift and the apply
// registers the jobspec again (sameJobSettings). With an unchanged jobspec
// ModifyPlan parses nothing, dry-runs nothing and keeps the computed
// values and the scheduler plan from the state.
func PlanKeepsUnchanged(prior tftypes.Value) bool {
	var attrs map[string]tftypes.Value
	if prior.As(&attrs) != nil {
		return false
	}
	var drift []tftypes.Value
	d := attrs["drift"]
	return d.IsKnown() && !d.IsNull() && d.As(&drift) == nil && len(drift) == 0
}
