package variable

import (
	"context"
	"encoding/json"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
	"github.com/berthhq/terraform-provider-berth/internal/variable"
)

var _ resource.ResourceWithMoveState = &variableResource{}

// nomadVariableState is what berth_variable takes from the state of the
// other Nomad provider's nomad_variable (hashicorp/nomad 2.6), for
// `moved { from = nomad_variable.x to = berth_variable.x }`.
type nomadVariableState struct {
	Path           string            `json:"path"`
	Namespace      string            `json:"namespace"`
	Items          map[string]string `json:"items"`
	ItemsWOVersion *json.Number      `json:"items_wo_version"`
}

// MoveState takes a nomad_variable over without writing to Nomad: path,
// namespace, plain items and the write-only version move; the refresh that
// follows reads the rest. nomad_variable's state does not say which keys
// its items_wo wrote, so with a version every key in Nomad that is not a
// plain item is taken as write-only (its value stays out of state).
func (r *variableResource) MoveState(context.Context) []resource.StateMover {
	return []resource.StateMover{shared.MoveFrom("nomad_variable", func(ctx context.Context, src nomadVariableState, diags *diag.Diagnostics) variableModel {
		ns := src.Namespace
		if ns == "" {
			ns = variable.DefaultNamespace
		}
		ref := variable.Ref{Namespace: ns, Path: src.Path}
		m := variableModel{ID: types.StringValue(refID(ref)), Path: types.StringValue(ref.Path), Namespace: types.StringValue(ns),
			ItemsWO: types.MapNull(types.StringType), ItemsWOVer: types.Int64Null(), ItemsWOKeys: types.SetNull(types.StringType),
			InSync: types.BoolNull(), ModifyIndex: types.Int64Null()}
		m.Items = types.MapNull(types.StringType)
		if len(src.Items) > 0 {
			m.Items, _ = types.MapValueFrom(ctx, types.StringType, src.Items)
		}
		if src.ItemsWOVersion != nil {
			v, err := src.ItemsWOVersion.Int64()
			if err != nil {
				diags.AddError("Could not read the nomad_variable state", "items_wo_version is not a whole number: "+err.Error())
				return m
			}
			m.ItemsWOVer = types.Int64Value(v)
		}
		return m
	})}
}
