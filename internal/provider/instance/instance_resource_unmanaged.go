package instance

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
)

// Settings berth_instance does not manage that appear on a job it manages
// (added in Nomad behind Terraform's back) are never dropped silently:
// Read records them in the resource's private state, the next plan warns
// naming each one and plans an update (the job is rewritten from the
// configuration, which removes them), and Update rewrites the job even
// when nothing berth manages changed. The unchanged-plan shortcut leaves
// such plans to the framework.

// UnmanagedKey is the private state key holding the list (JSON strings).
const UnmanagedKey = "unmanaged"

// recordUnmanaged keeps found (nil: none) in private state.
func recordUnmanaged(ctx context.Context, private shared.PrivateData, found []string, diags *diag.Diagnostics) {
	var value []byte
	if len(found) > 0 {
		value, _ = json.Marshal(found) // a []string always marshals
	}
	diags.Append(private.SetKey(ctx, UnmanagedKey, value)...)
}

// recordedUnmanaged reads the list recordUnmanaged kept.
func recordedUnmanaged(ctx context.Context, private shared.PrivateData) []string {
	if private == nil {
		return nil
	}
	raw, d := private.GetKey(ctx, UnmanagedKey)
	var found []string
	if d.HasError() || len(raw) == 0 || json.Unmarshal(raw, &found) != nil {
		return nil
	}
	return found
}

// planUnmanaged plans the update that removes recorded unmanaged settings
// and says so.
func planUnmanaged(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.State.Raw.IsNull() || req.Plan.Raw.IsNull() {
		return
	}
	found := recordedUnmanaged(ctx, req.Private)
	if len(found) == 0 {
		return
	}
	var name types.String
	resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("name"), &name)...)
	resp.Diagnostics.AddWarning("Job has settings berth_instance does not manage",
		fmt.Sprintf("Job %q was changed outside Terraform; it now has settings berth_instance cannot represent:\n  - %s\n"+
			"This apply rewrites the job from the configuration, which removes them from Nomad. To keep them, "+
			"manage this job with another tool (terraform state rm, then import it there); to drop them, apply.",
			name.ValueString(), strings.Join(found, "\n  - ")))
	// The job is written again: what a write changes is unknown, as in any
	// update the framework plans.
	for attr, unknown := range map[string]any{
		"job_modify_index": types.Int64Unknown(), "job_version": types.Int64Unknown(),
		"deployment_id": types.StringUnknown(), "deployment_status": types.StringUnknown(),
	} {
		resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root(attr), unknown)...)
	}
}

// PrivateHasUnmanaged reports whether raw private state (as the protocol
// carries it: a JSON object of base64 values) records unmanaged settings.
func PrivateHasUnmanaged(raw []byte) bool {
	if len(raw) == 0 {
		return false
	}
	var m map[string][]byte
	if json.Unmarshal(raw, &m) != nil {
		return true // unreadable: let the framework decide
	}
	return len(m[UnmanagedKey]) > 0
}
