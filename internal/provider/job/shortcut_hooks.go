package job

import (
	"encoding/json"

	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/berthhq/terraform-provider-berth/internal/jobspec"
)

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

// ReadRepeats reports whether Read of state, with raw private state (as
// the protocol carries it), answers the same again while the job keeps
// its modify index: its jobspec is JSON (decoded, never evaluated) or its
// parse is kept in private state, which only a jobspec that parses to the
// same job every time is (jobspec.Keep). A jobspec that calls uuidv4()
// parses to another job on every read.
func ReadRepeats(state tftypes.Value, private []byte) bool {
	var attrs map[string]tftypes.Value
	var format string
	if state.As(&attrs) != nil || attrs["format"].As(&format) != nil {
		return false
	}
	if format == jobspec.FormatJSON {
		return true
	}
	var keys map[string][]byte
	return len(private) > 0 && json.Unmarshal(private, &keys) == nil && len(keys[parseKey]) > 0
}
