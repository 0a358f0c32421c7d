package variable

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
	"github.com/berthhq/terraform-provider-berth/internal/variable"
)

// ValidateConfig checks what Nomad would refuse, where the values are
// (the write-only ones are in the configuration only): a key both plain
// and write-only, write-only items without their version (or a version
// without them), no items at all, more than 64 KiB. One diagnostic each,
// at the attribute; none names a write-only value.
func (r *variableResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var cfg variableModel
	if resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...); resp.Diagnostics.HasError() {
		return
	}
	if shared.AnyUnknown(cfg.Items, cfg.ItemsWO) {
		if !cfg.ItemsWO.IsNull() && !cfg.ItemsWO.IsUnknown() && cfg.ItemsWOVer.IsNull() {
			addVersionMissing(resp)
		}
		return
	}
	plain := cfg.plainItems(ctx, &resp.Diagnostics)
	secret := map[string]string{}
	if !cfg.ItemsWO.IsNull() {
		resp.Diagnostics.Append(cfg.ItemsWO.ElementsAs(ctx, &secret, false)...)
	}
	if resp.Diagnostics.HasError() {
		return
	}
	switch both := variable.Overlap(plain, secret); {
	case len(both) > 0:
		resp.Diagnostics.AddAttributeError(path.Root("items_wo"), "Item both plain and write-only",
			fmt.Sprintf("The keys %s are in both items and items_wo. A key of the Variable is either plain (stored in state) "+
				"or write-only (never stored): remove it from one of the two.", quoteAll(both)))
	case !cfg.ItemsWO.IsNull() && cfg.ItemsWOVer.IsNull():
		addVersionMissing(resp)
	case cfg.ItemsWO.IsNull() && !cfg.ItemsWOVer.IsNull() && !cfg.ItemsWOVer.IsUnknown():
		resp.Diagnostics.AddAttributeError(path.Root("items_wo_version"), "items_wo_version without items_wo",
			"items_wo_version versions the write-only items, and items_wo is not set. Set items_wo (Terraform 1.11 or "+
				"later), or remove items_wo_version.")
	case len(plain)+len(secret) == 0:
		resp.Diagnostics.AddAttributeError(path.Root("items"), "Variable without items",
			"Nomad refuses a Variable with no items (\"empty variables are invalid\"). Give at least one item in items or "+
				"items_wo, or remove the resource.")
	case variable.Size(plain, secret) > variable.MaxSize:
		resp.Diagnostics.AddAttributeError(path.Root("items"), "Variable too large",
			fmt.Sprintf("The items' keys and values (plain and write-only) add up to %d bytes; Nomad keeps at most %d bytes "+
				"in one Variable. Split them over several paths.", variable.Size(plain, secret), variable.MaxSize))
	}
}

func addVersionMissing(resp *resource.ValidateConfigResponse) {
	resp.Diagnostics.AddAttributeError(path.Root("items_wo_version"), "items_wo needs items_wo_version",
		"items_wo is write-only: berth never sees its old values, so it cannot tell when they change. Set "+
			"items_wo_version (for example 1), and change it whenever the values change; berth writes them again then.")
}

func quoteAll(keys []string) string {
	q := make([]string, len(keys))
	for i, k := range keys {
		q[i] = fmt.Sprintf("%q", k)
	}
	return strings.Join(q, ", ")
}

// ModifyPlan plans what the apply records: the write-only keys the
// configuration gives, in sync, and a new modify index when anything is
// written. A plan equal to the state (no drift, no change) keeps the
// index, so it is empty.
func (r *variableResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() {
		return // destroy
	}
	var plan variableModel
	if resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...); resp.Diagnostics.HasError() {
		return
	}
	var wo types.Map
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("items_wo"), &wo)...)
	switch {
	case wo.IsUnknown():
		plan.ItemsWOKeys = types.SetUnknown(types.StringType)
	case wo.IsNull():
		plan.ItemsWOKeys = types.SetNull(types.StringType)
	default:
		keys := make([]string, 0, len(wo.Elements()))
		for k := range wo.Elements() {
			keys = append(keys, k)
		}
		plan.ItemsWOKeys = keySet(ctx, keys, &resp.Diagnostics)
	}
	plan.InSync = types.BoolValue(true)
	if !plan.Path.IsUnknown() && !plan.Namespace.IsUnknown() {
		plan.ID = types.StringValue(refID(plan.ref()))
	}
	plan.ModifyIndex = types.Int64Unknown()
	if !req.State.Raw.IsNull() {
		var state variableModel
		if resp.Diagnostics.Append(req.State.Get(ctx, &state)...); resp.Diagnostics.HasError() {
			return
		}
		plan.ModifyIndex = state.ModifyIndex
		if !shared.SameModel(&plan, &state) {
			plan.ModifyIndex = types.Int64Unknown()
		}
	}
	resp.Diagnostics.Append(resp.Plan.Set(ctx, &plan)...)
}
