package volume

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
)

// nomadCSIRegistrationState is what berth takes from the state of the
// other Nomad provider's nomad_csi_volume_registration (hashicorp/nomad).
// Its `secrets` are left behind: berth's secrets are write-only.
type nomadCSIRegistrationState struct {
	VolumeID    string            `json:"volume_id"`
	Name        string            `json:"name"`
	Namespace   string            `json:"namespace"`
	ExternalID  string            `json:"external_id"`
	PluginID    string            `json:"plugin_id"`
	CapacityMin string            `json:"capacity_min"`
	CapacityMax string            `json:"capacity_max"`
	Parameters  map[string]string `json:"parameters"`
	Context     map[string]string `json:"context"`
	Capability  []struct {
		AccessMode     string `json:"access_mode"`
		AttachmentMode string `json:"attachment_mode"`
	} `json:"capability"`
	MountOptions []struct {
		FSType     string   `json:"fs_type"`
		MountFlags []string `json:"mount_flags"`
	} `json:"mount_options"`
	TopologyRequest []struct {
		Required []struct {
			Topology []struct {
				Segments map[string]string `json:"segments"`
			} `json:"topology"`
		} `json:"required"`
	} `json:"topology_request"`
}

// MoveState takes a nomad_csi_volume_registration over without touching
// Nomad: the settings move, the refresh that follows reads the rest, so
// the next plan is empty when the configuration says what the other
// provider's did (its secrets move into secrets_wo in the configuration).
func (r *csiRegistrationResource) MoveState(context.Context) []resource.StateMover {
	return []resource.StateMover{shared.MoveFrom("nomad_csi_volume_registration",
		func(ctx context.Context, src nomadCSIRegistrationState, diags *diag.Diagnostics) csiRegistrationModel {
			m := src.model(ctx, diags)
			if m.Namespace.ValueString() == "" && r.data != nil {
				m.Namespace = types.StringValue(r.data.Nomad.Namespace())
			}
			return m
		})}
}

// model is src as berth's state, before the refresh.
func (src nomadCSIRegistrationState) model(ctx context.Context, diags *diag.Diagnostics) csiRegistrationModel {
	size := func(s string) sizeValue {
		if s == "" {
			return sizeValue{StringValue: types.StringNull()}
		}
		return sizeValue{StringValue: types.StringValue(s)}
	}
	m := csiRegistrationModel{
		ID: types.StringValue(src.VolumeID), VolumeID: types.StringValue(src.VolumeID), Name: types.StringValue(src.Name),
		Namespace: types.StringValue(src.Namespace), ExternalID: types.StringValue(src.ExternalID), PluginID: types.StringValue(src.PluginID),
		CapacityMin: size(src.CapacityMin), CapacityMax: size(src.CapacityMax),
		Parameters: shared.MapOrNull(ctx, src.Parameters, diags), Context: shared.MapOrNull(ctx, src.Context, diags),
		MountOptions: types.ObjectNull(mountOptionsTypes()), SecretsWO: types.MapNull(types.StringType), SecretsWOVersion: types.Int64Null(),
		Timeouts:      timeouts.Value{Object: types.ObjectNull(map[string]attr.Type{"create": types.StringType, "update": types.StringType, "delete": types.StringType})},
		CapacityBytes: types.Int64Null(), State: types.StringNull(), Allocations: types.ListNull(types.StringType),
		Topologies: types.ListNull(csiRegistrationElem(ctx, "topologies")),
	}
	capElem := csiRegistrationElem(ctx, "capabilities")
	caps := make([]attr.Value, 0, len(src.Capability))
	for _, c := range src.Capability {
		caps = append(caps, types.ObjectValueMust(capElem.AttrTypes, map[string]attr.Value{
			"access_mode": types.StringValue(c.AccessMode), "attachment_mode": types.StringValue(c.AttachmentMode)}))
	}
	m.Capabilities = types.SetValueMust(capElem, caps)
	if len(src.MountOptions) > 0 {
		o := src.MountOptions[0]
		flags := types.ListNull(types.StringType)
		if len(o.MountFlags) > 0 {
			flags = shared.ListOf(ctx, o.MountFlags, diags)
		}
		m.MountOptions = types.ObjectValueMust(mountOptionsTypes(), map[string]attr.Value{"fs_type": shared.StringOrNull(o.FSType), "mount_flags": flags})
	}
	topElem := csiRegistrationElem(ctx, "topologies")
	var tops []attr.Value
	for _, tr := range src.TopologyRequest {
		for _, req := range tr.Required {
			for _, t := range req.Topology {
				tops = append(tops, types.ObjectValueMust(topElem.AttrTypes, map[string]attr.Value{"segments": shared.MapOrNull(ctx, t.Segments, diags)}))
			}
		}
	}
	if len(tops) > 0 {
		m.Topologies = types.ListValueMust(topElem, tops)
	}
	return m
}
