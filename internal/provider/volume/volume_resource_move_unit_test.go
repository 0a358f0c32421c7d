package volume

import (
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// move runs berth_volume's mover on the other provider's raw state.
func move(t *testing.T, provider, typeName, rawJSON string) (volumeModel, *resource.MoveStateResponse) {
	t.Helper()
	ctx := context.Background()
	s := volumeSchema(ctx)
	resp := &resource.MoveStateResponse{TargetState: tfsdk.State{Schema: s, Raw: tftypes.NewValue(s.Type().TerraformType(ctx), nil)}}
	// One mover per source type: tried in turn, as the framework does,
	// until one refuses or writes the state.
	for _, mover := range (&volumeResource{}).MoveState(ctx) {
		mover.StateMover(ctx, resource.MoveStateRequest{
			SourceProviderAddress: provider, SourceTypeName: typeName, SourceRawState: &tfprotov6.RawState{JSON: []byte(rawJSON)},
		}, resp)
		if resp.Diagnostics.HasError() || !resp.TargetState.Raw.IsNull() {
			break
		}
	}
	var m volumeModel
	if !resp.TargetState.Raw.IsNull() {
		resp.Diagnostics.Append(resp.TargetState.Get(ctx, &m)...)
	}
	return m, resp
}

const peerAddr = "registry.terraform.io/hashicorp/nomad"

// A size spelled in a way berth does not read moves as the bytes the
// other provider computed.
func TestVolumeMove_hostVolumeSettings(t *testing.T) {
	m, resp := move(t, peerAddr, "nomad_dynamic_host_volume", `{"id":"0b6d-id","name":"data","namespace":"prod","plugin_id":"mkdir",
		"node_id":"n1","node_pool":"default","capacity_min":"ten mebibytes","capacity_min_bytes":10485760,"capacity_max":"20MiB",
		"capacity_max_bytes":20971520,"state":"ready","host_path":"/v/data","parameters":{"mode":"0755"},
		"capability":[{"access_mode":"single-node-multi-writer","attachment_mode":"file-system"}],
		"constraint":[{"attribute":"${attr.kernel.name}","operator":"","value":"linux"}]}`)
	if resp.Diagnostics.HasError() {
		t.Fatalf("diagnostics: %v", resp.Diagnostics)
	}
	got := []string{m.ID.ValueString(), m.Name.ValueString(), m.Namespace.ValueString(), m.Type.ValueString(), m.PluginID.ValueString(),
		m.NodeID.ValueString(), m.AccessMode.ValueString(), m.AttachmentMode.ValueString(), m.CapacityMin.ValueString(), m.CapacityMax.ValueString()}
	want := []string{"0b6d-id", "data", "prod", "host", "mkdir", "n1", "single-node-multi-writer", "file-system", "10MiB", "20MiB"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("moved state:\n got %q\nwant %q", got, want)
	}
	if s := m.Constraints.String(); !strings.Contains(s, `"operator":"="`) || !strings.Contains(s, `"value":"linux"`) {
		t.Errorf("constraints %s: want the default operator filled in", s)
	}
	if !m.Capabilities.IsNull() || !m.MountOptions.IsNull() || !m.NodeReservation.IsNull() || m.ForceDestroy.ValueBool() {
		t.Errorf("CSI settings or berth-only settings set on a moved host volume: %+v", m)
	}
}

func TestVolumeMove_hostVolumeWithTwoCapabilitiesRefused(t *testing.T) {
	_, resp := move(t, peerAddr, "nomad_dynamic_host_volume", `{"id":"x","name":"data","plugin_id":"mkdir","capability":[
		{"access_mode":"single-node-writer","attachment_mode":"file-system"},
		{"access_mode":"single-node-reader-only","attachment_mode":"file-system"}]}`)
	if n := resp.Diagnostics.ErrorsCount(); n != 1 || !strings.Contains(resp.Diagnostics[0].Detail(), "2 capability blocks") {
		t.Fatalf("want one error naming the capability blocks, got %d: %v", n, resp.Diagnostics)
	}
	if !resp.TargetState.Raw.IsNull() {
		t.Error("a refused move set the target state")
	}
}

func TestVolumeMove_csiVolumeSecretsLeftBehind(t *testing.T) {
	const secret = "s3cr3t-value"
	m, resp := move(t, peerAddr, "nomad_csi_volume", `{"id":"db","volume_id":"db","name":"db","namespace":"default","plugin_id":"p",
		"external_id":"ext-1","capacity_min":"10MiB","capacity_min_bytes":10485760,"capacity":10485760,"schedulable":true,
		"secrets":{"token":"`+secret+`"},"parameters":{"gen":"1"},"clone_id":"","snapshot_id":"",
		"capability":[{"access_mode":"single-node-writer","attachment_mode":"file-system"}],
		"mount_options":[{"fs_type":"ext4","mount_flags":["noatime"]}],"topology_request":[],
		"timeouts":{"create":"20m","delete":null}}`)
	if resp.Diagnostics.HasError() {
		t.Fatalf("diagnostics: %v", resp.Diagnostics)
	}
	if strings.Contains(resp.TargetState.Raw.String(), secret) {
		t.Fatalf("the secret reached berth's state: %s", resp.TargetState.Raw)
	}
	if !m.SecretsWO.IsNull() {
		t.Errorf("secrets_wo = %s, want null", m.SecretsWO)
	}
	if m.Type.ValueString() != "csi" || m.ID.ValueString() != "db" || m.ExternalID.ValueString() != "ext-1" || m.State.ValueString() != "ready" {
		t.Errorf("moved state: type %s, id %s, external_id %s, state %s", m.Type, m.ID, m.ExternalID, m.State)
	}
	if s := m.MountOptions.String(); !strings.Contains(s, "ext4") || !strings.Contains(s, "noatime") {
		t.Errorf("mount_options %s: want the other provider's", s)
	}
	if s := m.Capabilities.String(); !strings.Contains(s, "single-node-writer") {
		t.Errorf("capabilities %s", s)
	}
	if s := m.Timeouts.String(); !strings.Contains(s, `"create":"20m"`) {
		t.Errorf("timeouts %s: want create carried over", s)
	}
	if !m.NodeID.IsNull() || !m.NodePool.IsNull() || !m.Constraints.IsNull() {
		t.Errorf("host settings on a moved CSI volume: node_id %s, node_pool %s, constraints %s", m.NodeID, m.NodePool, m.Constraints)
	}
}

func TestVolumeMove_csiVolumeUnheldSettingsRefused(t *testing.T) {
	_, resp := move(t, peerAddr, "nomad_csi_volume", `{"id":"db-0","volume_id":"db-0","name":"db","plugin_id":"p",
		"clone_id":"src-vol","snapshot_id":"","secrets":{"token":"x"},
		"topology_request":[{"required":[{"topology":[{"segments":{"rack":"r1"}}]}],"preferred":[]}]}`)
	if n := resp.Diagnostics.ErrorsCount(); n != 1 {
		t.Fatalf("want one error, got %d: %v", n, resp.Diagnostics)
	}
	detail := resp.Diagnostics[0].Detail()
	for _, name := range []string{"volume_id", "clone_id", "topology_request"} {
		if !strings.Contains(detail, name) {
			t.Errorf("the refusal does not name %s: %s", name, detail)
		}
	}
	if strings.Contains(detail, "snapshot_id") {
		t.Errorf("the refusal names snapshot_id, which is unset: %s", detail)
	}
	if !resp.TargetState.Raw.IsNull() {
		t.Error("a refused move set the target state")
	}
}

func TestVolumeMove_otherSourcesLeftToOthers(t *testing.T) {
	for _, c := range []struct{ provider, typeName string }{
		{peerAddr, "nomad_csi_volume_registration"},
		{"registry.terraform.io/example/nomad2", "nomad_csi_volume"},
	} {
		_, resp := move(t, c.provider, c.typeName, `{"id":"x","name":"x"}`)
		if resp.Diagnostics.HasError() || !resp.TargetState.Raw.IsNull() {
			t.Errorf("%s %s: took it (diags %v)", c.provider, c.typeName, resp.Diagnostics)
		}
	}
}
