package volume

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
	"github.com/berthhq/terraform-provider-berth/internal/volume"
)

var _ resource.ResourceWithMoveState = &volumeResource{}

// nomadModeState is one capability block of the other provider's volumes.
type nomadModeState struct {
	AccessMode     string `json:"access_mode"`
	AttachmentMode string `json:"attachment_mode"`
}

// nomadCapacityState is the capacity range both of the other provider's
// volumes record: as written, and in bytes.
type nomadCapacityState struct {
	CapacityMin      string `json:"capacity_min"`
	CapacityMax      string `json:"capacity_max"`
	CapacityMinBytes int64  `json:"capacity_min_bytes"`
	CapacityMaxBytes int64  `json:"capacity_max_bytes"`
}

// nomadHostVolumeState is what berth_volume takes from the state of the
// other Nomad provider's nomad_dynamic_host_volume (hashicorp/nomad 2.x).
// Sizes come with the byte counts it computed, which berth trusts when
// the size string is spelled in a way berth does not read.
type nomadHostVolumeState struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Namespace string `json:"namespace"`
	PluginID  string `json:"plugin_id"`
	NodeID    string `json:"node_id"`
	NodePool  string `json:"node_pool"`
	nomadCapacityState
	CapacityBytes int64             `json:"capacity_bytes"`
	HostPath      string            `json:"host_path"`
	State         string            `json:"state"`
	Parameters    map[string]string `json:"parameters"`
	Capability    []nomadModeState  `json:"capability"`
	Constraint    []struct {
		Attribute string `json:"attribute"`
		Operator  string `json:"operator"`
		Value     string `json:"value"`
	} `json:"constraint"`
}

// nomadCSIVolumeState is what berth_volume takes from the state of the
// other provider's nomad_csi_volume. Its `secrets` are not read: berth
// keeps secrets write-only, and Nomad already holds them for the delete.
type nomadCSIVolumeState struct {
	ID         string `json:"id"`
	VolumeID   string `json:"volume_id"`
	Name       string `json:"name"`
	Namespace  string `json:"namespace"`
	PluginID   string `json:"plugin_id"`
	ExternalID string `json:"external_id"`
	nomadCapacityState
	Capacity     int64             `json:"capacity"`
	Schedulable  bool              `json:"schedulable"`
	CloneID      string            `json:"clone_id"`
	SnapshotID   string            `json:"snapshot_id"`
	Parameters   map[string]string `json:"parameters"`
	Capability   []nomadModeState  `json:"capability"`
	MountOptions []struct {
		FSType     string   `json:"fs_type"`
		MountFlags []string `json:"mount_flags"`
	} `json:"mount_options"`
	TopologyRequest []struct {
		Required  []json.RawMessage `json:"required"`
		Preferred []json.RawMessage `json:"preferred"`
	} `json:"topology_request"`
	Timeouts *struct {
		Create *string `json:"create"`
		Delete *string `json:"delete"`
	} `json:"timeouts"`
}

// MoveState takes a nomad_dynamic_host_volume or a nomad_csi_volume over
// without touching Nomad: the settings become berth's state and the
// refresh that follows reads the rest, so the next plan is empty when the
// configuration says what the other provider's did. A setting berth_volume
// has no place for refuses the move, naming it, rather than being lost.
func (r *volumeResource) MoveState(context.Context) []resource.StateMover {
	return []resource.StateMover{
		shared.MoveFrom("nomad_dynamic_host_volume", func(ctx context.Context, src nomadHostVolumeState, diags *diag.Diagnostics) volumeModel {
			return r.defaultNamespace(src.model(ctx, diags))
		}),
		shared.MoveFrom("nomad_csi_volume", func(ctx context.Context, src nomadCSIVolumeState, diags *diag.Diagnostics) volumeModel {
			if refused := src.unheld(); len(refused) > 0 {
				diags.AddError("Cannot move this nomad_csi_volume to berth_volume",
					fmt.Sprintf("CSI volume %q sets %s, which berth_volume does not hold: after the move berth could neither "+
						"show nor keep them, and a replacement would create the volume without them. Remove the moved block and "+
						"keep managing this volume with nomad_csi_volume.", src.id(), strings.Join(refused, ", ")))
				return volumeModel{}
			}
			return r.defaultNamespace(src.model(ctx, diags))
		}),
	}
}

// defaultNamespace gives a moved volume with no namespace the provider's.
func (r *volumeResource) defaultNamespace(m volumeModel) volumeModel {
	if m.Namespace.ValueString() == "" && r.Data != nil {
		m.Namespace = types.StringValue(r.Data.Nomad.Namespace())
	}
	return m
}

// movedSize is a size from the other provider's state: its string when
// berth reads it as the bytes that provider computed, else those bytes.
func movedSize(s string, bytes int64) (sizeValue, int64) {
	v := sizeValue{StringValue: shared.StringOrNull(s)}
	if bytes == 0 {
		bytes = v.Bytes()
	}
	return keepSize(v, bytes), bytes
}

// model is src as berth's state, before the refresh. A volume asking for
// more than one capability is refused: berth's host volumes ask for one.
func (src nomadHostVolumeState) model(ctx context.Context, diags *diag.Diagnostics) volumeModel {
	m, d := shared.NullResourceModel[volumeModel](ctx, volumeSchema(ctx))
	diags.Append(d...)
	if len(src.Capability) > 1 {
		diags.AddError("Cannot move this nomad_dynamic_host_volume to berth_volume",
			fmt.Sprintf("Host volume %q (%s) asks for %d capability blocks; berth_volume holds one access_mode and "+
				"attachment_mode, so the others would be lost at berth's next update. Remove the moved block and keep "+
				"managing it with nomad_dynamic_host_volume, or reduce it to one capability there first.", src.Name, src.ID, len(src.Capability)))
		return m
	}
	v := &volume.Volume{
		Type: volume.TypeHost, ID: src.ID, Name: src.Name, Namespace: src.Namespace, PluginID: src.PluginID,
		NodeID: src.NodeID, NodePool: src.NodePool, HostPath: src.HostPath, CapacityBytes: src.CapacityBytes,
		State: src.State, Parameters: src.Parameters,
		AccessMode: volume.DefaultAccessMode, AttachmentMode: volume.DefaultAttachmentMode,
	}
	m.CapacityMin, v.CapacityMinBytes = movedSize(src.CapacityMin, src.CapacityMinBytes)
	m.CapacityMax, v.CapacityMaxBytes = movedSize(src.CapacityMax, src.CapacityMaxBytes)
	if len(src.Capability) == 1 {
		v.AccessMode, v.AttachmentMode = src.Capability[0].AccessMode, src.Capability[0].AttachmentMode
	}
	for _, c := range src.Constraint {
		op := c.Operator
		if op == "" {
			op = volume.DefaultConstraintOperator
		}
		v.Constraints = append(v.Constraints, volume.Constraint{Attribute: c.Attribute, Operator: op, Value: c.Value})
	}
	m.fromVolume(ctx, v, "", diags)
	m.NodeName = types.StringNull() // the refresh reads it
	return m
}

func (src nomadCSIVolumeState) id() string {
	if src.VolumeID != "" {
		return src.VolumeID
	}
	return src.ID
}

// unheld names the settings of src berth_volume has no place for. A
// volume ID other than the name is one: berth creates a CSI volume under
// its name, so a replacement would move it to another ID than jobs use.
func (src nomadCSIVolumeState) unheld() []string {
	var out []string
	if src.id() != src.Name {
		out = append(out, fmt.Sprintf("volume_id %q (berth_volume's CSI volume ID is its name, %q)", src.id(), src.Name))
	}
	if src.CloneID != "" {
		out = append(out, "clone_id")
	}
	if src.SnapshotID != "" {
		out = append(out, "snapshot_id")
	}
	for _, t := range src.TopologyRequest {
		if len(t.Required) > 0 || len(t.Preferred) > 0 {
			out = append(out, "topology_request")
			break
		}
	}
	return out
}

// model is src as berth's state, before the refresh. Mount flags move as
// the other provider recorded them: Nomad redacts them, so like berth it
// can only keep the configured ones. Its timeouts are berth's.
func (src nomadCSIVolumeState) model(ctx context.Context, diags *diag.Diagnostics) volumeModel {
	m, d := shared.NullResourceModel[volumeModel](ctx, volumeSchema(ctx))
	diags.Append(d...)
	v := &volume.Volume{
		Type: volume.TypeCSI, ID: src.id(), Name: src.Name, Namespace: src.Namespace, PluginID: src.PluginID,
		ExternalID: src.ExternalID, CapacityBytes: src.Capacity, Parameters: src.Parameters, State: volume.StateUnavailable,
	}
	if src.Schedulable {
		v.State = volume.StateReady
	}
	m.CapacityMin, v.CapacityMinBytes = movedSize(src.CapacityMin, src.CapacityMinBytes)
	m.CapacityMax, v.CapacityMaxBytes = movedSize(src.CapacityMax, src.CapacityMaxBytes)
	for _, c := range src.Capability {
		v.Capabilities = append(v.Capabilities, volume.Capability{AccessMode: c.AccessMode, AttachmentMode: c.AttachmentMode})
	}
	if len(src.MountOptions) > 0 {
		o := src.MountOptions[0]
		flags := types.ListNull(types.StringType)
		if len(o.MountFlags) > 0 {
			flags = shared.ListOf(ctx, o.MountFlags, diags)
		}
		m.MountOptions = types.ObjectValueMust(mountOptionsTypes(), map[string]attr.Value{"fs_type": shared.StringOrNull(o.FSType), "mount_flags": flags})
	}
	m.fromVolume(ctx, v, "", diags)
	if t := src.Timeouts; t != nil && (t.Create != nil || t.Delete != nil) {
		m.Timeouts = timeouts.Value{Object: types.ObjectValueMust(m.Timeouts.AttributeTypes(ctx), map[string]attr.Value{
			"create": types.StringPointerValue(t.Create), "update": types.StringNull(), "delete": types.StringPointerValue(t.Delete),
		})}
	}
	return m
}
