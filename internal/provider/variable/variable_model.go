package variable

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
	"github.com/berthhq/terraform-provider-berth/internal/variable"
)

type variableModel struct {
	ID          types.String `tfsdk:"id"`
	Path        types.String `tfsdk:"path"`
	Namespace   types.String `tfsdk:"namespace"`
	Items       types.Map    `tfsdk:"items"`
	ItemsWO     types.Map    `tfsdk:"items_wo"`
	ItemsWOVer  types.Int64  `tfsdk:"items_wo_version"`
	ItemsWOKeys types.Set    `tfsdk:"items_wo_keys"`
	InSync      types.Bool   `tfsdk:"items_wo_in_sync"`
	ModifyIndex types.Int64  `tfsdk:"modify_index"`
}

func (m *variableModel) ref() variable.Ref {
	return variable.Ref{Namespace: m.Namespace.ValueString(), Path: m.Path.ValueString()}
}

func refID(ref variable.Ref) string { return ref.Namespace + "/" + ref.Path }

// plainItems are the model's plain items (none when null).
func (m *variableModel) plainItems(ctx context.Context, diags *diag.Diagnostics) map[string]string {
	out := map[string]string{}
	if !m.Items.IsNull() && !m.Items.IsUnknown() {
		diags.Append(m.Items.ElementsAs(ctx, &out, false)...)
	}
	return out
}

// secretKeys are the keys of the write-only items the model records.
func (m *variableModel) secretKeys(ctx context.Context, diags *diag.Diagnostics) []string {
	var out []string
	if !m.ItemsWOKeys.IsNull() && !m.ItemsWOKeys.IsUnknown() {
		diags.Append(m.ItemsWOKeys.ElementsAs(ctx, &out, false)...)
	}
	return out
}

// keySet is keys as the items_wo_keys value: null when there are none.
func keySet(ctx context.Context, keys []string, diags *diag.Diagnostics) types.Set {
	if len(keys) == 0 {
		return types.SetNull(types.StringType)
	}
	v, d := types.SetValueFrom(ctx, types.StringType, keys)
	diags.Append(d...)
	return v
}

// fromNomad records the Variable as Nomad holds it and returns the keys
// whose values it withheld. Only an item m holds as plain with the same
// value keeps its value (variable.Classify); the keys m records as
// write-only, and every key berth cannot place (added in Nomad, a plain
// value changed, an import, a write whose reply was lost), go to
// items_wo_keys by key only, so no value berth did not have as plain
// reaches state or a plan. A state with no record of its write-only keys
// but a version (a move from nomad_variable, whose state does not say
// which keys were write-only) takes every key not among its plain items as
// write-only, without a warning. A newer modify index than berth's last
// write clears items_wo_in_sync while write-only items exist.
func (m *variableModel) fromNomad(ctx context.Context, v *variable.Variable, diags *diag.Diagnostics) (withheld []string) {
	known := m.secretKeys(ctx, diags)
	prior := m.plainItems(ctx, diags)
	if m.ItemsWOKeys.IsNull() && !m.ItemsWOVer.IsNull() {
		for k := range v.Items {
			if _, ok := prior[k]; !ok {
				known = append(known, k)
			}
		}
	}
	plain, secret, withheld := variable.Classify(v.Items, prior, known)
	ref := variable.Ref{Namespace: v.Namespace, Path: v.Path}
	m.ID, m.Namespace, m.Path = types.StringValue(refID(ref)), types.StringValue(ref.Namespace), types.StringValue(ref.Path)
	m.Items = shared.KeepEmptyMap(m.Items, shared.MapOrNull(ctx, plain, diags))
	priorKeys := m.ItemsWOKeys
	m.ItemsWOKeys = keySet(ctx, secret, diags)
	if m.ItemsWOKeys.IsNull() && !priorKeys.IsNull() && !priorKeys.IsUnknown() {
		m.ItemsWOKeys = types.SetValueMust(types.StringType, nil) // every write-only key is gone: show it
	}
	inSync := m.InSync.IsNull() || m.InSync.IsUnknown() || m.InSync.ValueBool()
	if len(secret) > 0 && !m.ModifyIndex.IsNull() && uint64(m.ModifyIndex.ValueInt64()) != v.ModifyIndex {
		inSync = false
	}
	m.InSync = types.BoolValue(inSync)
	m.ModifyIndex = types.Int64Value(int64(v.ModifyIndex))
	m.ItemsWO = types.MapNull(types.StringType)
	return withheld
}

// warnWithheld names, never with their values, the items a refresh or an
// import kept out of state.
func warnWithheld(diags *diag.Diagnostics, ref variable.Ref, keys []string) {
	if len(keys) == 0 {
		return
	}
	diags.AddWarning("Variable items kept out of state", fmt.Sprintf("Variable %s in namespace %q holds items berth did "+
		"not write as plain items, or whose values changed since it did: %s. berth records them by key in "+
		"items_wo_keys and never stores or shows their values: they may be secrets (an import, a write whose "+
		"reply was lost, or a change made in Nomad). Give each in items (plain) or items_wo (write-only) in the "+
		"configuration; the next apply writes the Variable as configured.", ref.Path, ref.Namespace, quoteAll(keys)))
}
