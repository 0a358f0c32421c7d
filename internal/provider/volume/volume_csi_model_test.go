package volume

import (
	"context"
	"reflect"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
	"github.com/berthhq/terraform-provider-berth/internal/volume"
)

func csiCapabilities(ctx context.Context, diags *diag.Diagnostics, modes ...string) types.List {
	models := make([]capabilityModel, 0, len(modes))
	for _, m := range modes {
		models = append(models, capabilityModel{AccessMode: types.StringValue(m), AttachmentMode: types.StringValue(volume.AttachmentModeFilesystem)})
	}
	l, d := types.ListValueFrom(ctx, capabilityType(ctx), models)
	diags.Append(d...)
	return l
}

func csiMountOptions(ctx context.Context, diags *diag.Diagnostics, fsType string, flags ...string) types.Object {
	o, d := types.ObjectValueFrom(ctx, mountOptionsTypes(), mountOptionsModel{FSType: types.StringValue(fsType), MountFlags: shared.ListOf(ctx, flags, diags)})
	diags.Append(d...)
	return o
}

// A CSI model goes to a volume with its capabilities and mount options,
// and back from what Nomad reports: mount options (whose flags Nomad
// redacts) keep the configured value, secrets are never read back, and
// the host volume placement is null.
func TestVolumeModel_csiRoundTrip(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	var diags diag.Diagnostics
	m := fullVolumeModel(t)
	m.Type, m.ID, m.PluginID = types.StringValue(volume.TypeCSI), types.StringValue("data"), types.StringValue("csi-plug")
	m.Capabilities = csiCapabilities(ctx, &diags, "single-node-writer", "multi-node-reader-only")
	v := m.toVolume(ctx, &diags)
	if diags.HasError() {
		t.Fatal(diags)
	}
	wantCaps := []volume.Capability{{AccessMode: "single-node-writer", AttachmentMode: "file-system"}, {AccessMode: "multi-node-reader-only", AttachmentMode: "file-system"}}
	if !v.IsCSI() || !reflect.DeepEqual(v.Capabilities, wantCaps) || v.MountOptions == nil ||
		v.MountOptions.FSType != "ext4" || !reflect.DeepEqual(v.MountOptions.MountFlags, []string{"noatime"}) {
		t.Fatalf("toVolume = %+v (mount options %+v)", v, v.MountOptions)
	}
	// What Nomad reports back, as nomadclient maps it (its
	// TestCSIVolume_roundTrip): no secrets, mount flags hidden,
	// schedulable, with an external ID.
	back := *v
	back.Secrets, back.State, back.ExternalID = nil, volume.StateReady, "ext-1"
	back.MountOptions = &volume.MountOptions{FSType: v.MountOptions.FSType}
	got := volumeModel{CapacityMin: m.CapacityMin, CapacityMax: m.CapacityMax, ForceDestroy: m.ForceDestroy, MountOptions: m.MountOptions,
		AccessMode: m.AccessMode, AttachmentMode: m.AttachmentMode, NodeReservation: m.NodeReservation, Timeouts: m.Timeouts,
		Constraints: m.Constraints}
	got.fromVolume(ctx, &back, "", &diags)
	if diags.HasError() {
		t.Fatal(diags)
	}
	if !got.Capabilities.Equal(m.Capabilities) || !got.MountOptions.Equal(m.MountOptions) || !got.SecretsWO.IsNull() ||
		got.State.ValueString() != volume.StateReady || got.ExternalID.ValueString() != "ext-1" || !got.NodeID.IsNull() ||
		!got.HostPath.IsNull() || got.ID.ValueString() != "data" || got.Type.ValueString() != volume.TypeCSI {
		t.Errorf("fromVolume = %+v", got)
	}
}
