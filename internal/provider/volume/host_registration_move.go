package volume

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
	"github.com/berthhq/terraform-provider-berth/internal/volume"
)

// nomadHostRegistrationState is what berth takes from the state of the
// other Nomad provider's nomad_dynamic_host_volume_registration
// (hashicorp/nomad).
type nomadHostRegistrationState struct {
	ID         string            `json:"id"`
	Name       string            `json:"name"`
	Namespace  string            `json:"namespace"`
	NodeID     string            `json:"node_id"`
	HostPath   string            `json:"host_path"`
	Capacity   string            `json:"capacity"`
	CapMin     int64             `json:"capacity_min_bytes"`
	CapMax     int64             `json:"capacity_max_bytes"`
	PluginID   string            `json:"plugin_id"`
	Parameters map[string]string `json:"parameters"`
	Capability []struct {
		AccessMode     string `json:"access_mode"`
		AttachmentMode string `json:"attachment_mode"`
	} `json:"capability"`
	Constraint []struct {
		Attribute string `json:"attribute"`
		Operator  string `json:"operator"`
		Value     string `json:"value"`
	} `json:"constraint"`
}

// MoveState takes a nomad_dynamic_host_volume_registration over without
// touching Nomad: the settings move, the refresh that follows reads the
// rest, so the next plan is empty when the configuration says what the
// other provider's did. A volume with a plugin is refused, as by import.
func (r *hostRegistrationResource) MoveState(context.Context) []resource.StateMover {
	return []resource.StateMover{shared.MoveFrom("nomad_dynamic_host_volume_registration",
		func(ctx context.Context, src nomadHostRegistrationState, diags *diag.Diagnostics) hostRegistrationModel {
			if src.PluginID != "" {
				diags.AddError("Host volume has a plugin",
					fmt.Sprintf("Host volume %s has plugin %q: deleting it would ask the plugin to delete its data, so "+
						"berth_host_volume_registration does not take it over. Move it to berth_volume instead.", src.ID, src.PluginID))
				return hostRegistrationModel{}
			}
			m := src.model(ctx, diags)
			if m.Namespace.ValueString() == "" && r.data != nil {
				m.Namespace = types.StringValue(r.data.Nomad.Namespace())
			}
			return m
		})}
}

// model is src as berth's state, before the refresh.
func (src nomadHostRegistrationState) model(ctx context.Context, diags *diag.Diagnostics) hostRegistrationModel {
	m := hostRegistrationModel{
		ID: types.StringValue(src.ID), Name: types.StringValue(src.Name), Namespace: types.StringValue(src.Namespace),
		NodeID: types.StringValue(src.NodeID), HostPath: types.StringValue(src.HostPath),
		Capacity:    sizeValue{StringValue: shared.StringOrNull(src.Capacity)},
		CapacityMin: keepSize(sizeValue{StringValue: types.StringNull()}, src.CapMin),
		CapacityMax: keepSize(sizeValue{StringValue: types.StringNull()}, src.CapMax),
		Parameters:  shared.MapOrNull(ctx, src.Parameters, diags),
		Timeouts:    timeouts.Value{Object: types.ObjectNull(map[string]attr.Type{"create": types.StringType, "update": types.StringType, "delete": types.StringType})},
		NodePool:    types.StringNull(), State: types.StringNull(), Allocations: types.ListNull(types.StringType),
	}
	capElem := hostRegistrationElem(ctx, "capabilities")
	caps := make([]attr.Value, 0, len(src.Capability))
	for _, c := range src.Capability {
		caps = append(caps, types.ObjectValueMust(capElem.AttrTypes, map[string]attr.Value{
			"access_mode": types.StringValue(c.AccessMode), "attachment_mode": types.StringValue(c.AttachmentMode)}))
	}
	m.Capabilities = types.SetValueMust(capElem, caps)
	cons := make([]volume.Constraint, 0, len(src.Constraint))
	for _, c := range src.Constraint {
		cons = append(cons, volume.Constraint{Attribute: c.Attribute, Operator: c.Operator, Value: c.Value})
	}
	m.Constraints = constraintsValue(ctx, cons, diags)
	return m
}
