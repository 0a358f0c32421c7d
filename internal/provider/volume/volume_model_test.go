package volume

import (
	"reflect"
	"slices"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
	"github.com/berthhq/terraform-provider-berth/internal/volume"
)

// fullVolumeModel sets every attribute, so zeroing any one changes it.
func fullVolumeModel(t *testing.T) volumeModel {
	t.Helper()
	ctx := t.Context()
	var diags diag.Diagnostics
	to, d := types.ObjectValueFrom(ctx, volumeSchema(ctx).Attributes["timeouts"].GetType().(timeouts.Type).AttrTypes,
		struct {
			Create types.String `tfsdk:"create"`
			Update types.String `tfsdk:"update"`
			Delete types.String `tfsdk:"delete"`
		}{types.StringValue("1m"), types.StringNull(), types.StringNull()})
	diags.Append(d...)
	m := volumeModel{
		ID: types.StringValue("0b4e3c6e-0000-4000-8000-000000000001"), Name: types.StringValue("data"),
		Namespace: types.StringValue("default"), PluginID: types.StringValue("mkdir"),
		CapacityMin: newSizeValue(10 << 20), CapacityMax: newSizeValue(20 << 20),
		AccessMode: types.StringValue(volume.DefaultAccessMode), AttachmentMode: types.StringValue(volume.DefaultAttachmentMode),
		NodeID: types.StringValue("node"), NodePool: types.StringValue("default"), NodeReservation: types.StringValue("res"),
		Constraints:  constraintsValue(ctx, []volume.Constraint{{Attribute: "${attr.kernel.name}", Operator: "=", Value: "linux"}}, &diags),
		Parameters:   shared.MapOrNull(ctx, map[string]string{"mode": "0755"}, &diags),
		ForceDestroy: types.BoolValue(true), Timeouts: timeouts.Value{Object: to},
		NodeName: types.StringValue("n1"), HostPath: types.StringValue("/srv"), CapacityBytes: types.Int64Value(1),
		State: types.StringValue("ready"), Allocations: shared.ListOf(ctx, []string{"a1"}, &diags),
		Type: types.StringValue(volume.TypeHost), ExternalID: types.StringValue("ext-1"),
		Capabilities: csiCapabilities(ctx, &diags, "single-node-writer"),
		MountOptions: csiMountOptions(ctx, &diags, "ext4", "noatime"),
		SecretsWO:    shared.MapOrNull(ctx, map[string]string{"token": "s"}, &diags),
	}
	if diags.HasError() {
		t.Fatal(diags)
	}
	return m
}

// Every attribute of volumeModel is either a setting sameSettings compares
// or listed as computed: adding an attribute cannot silently skip the
// comparison (which Terraform reports as "Provider produced invalid plan").
func TestVolumeSameSettings_everyFieldCounts(t *testing.T) {
	t.Parallel()
	state := fullVolumeModel(t)
	if !sameSettings(state, state, volumeComputed) {
		t.Fatal("a model differs from itself")
	}
	typ := reflect.TypeOf(state)
	var tags []string
	for i := range typ.NumField() {
		f := typ.Field(i)
		tag := f.Tag.Get("tfsdk")
		tags = append(tags, tag)
		if v := reflect.ValueOf(state).Field(i).Interface().(attr.Value); v.IsNull() || v.IsUnknown() {
			t.Fatalf("fullVolumeModel leaves %s unset; set it so this test covers it", tag)
		}
		plan := state
		reflect.ValueOf(&plan).Elem().Field(i).Set(reflect.Zero(f.Type)) // null
		computed := slices.Contains(volumeComputed, tag)
		if got := sameSettings(plan, state, volumeComputed); got != computed {
			t.Errorf("%s changed: sameSettings = %v, want %v (computed: %v)", tag, got, computed, computed)
		}
	}
	for _, c := range volumeComputed {
		if !slices.Contains(tags, c) {
			t.Errorf("volumeComputed names %q, which volumeModel does not have", c)
		}
	}
	// And every schema attribute is in the model, and volumeComputed names
	// exactly those only Nomad sets.
	for name, a := range volumeSchema(t.Context()).Attributes {
		if !slices.Contains(tags, name) {
			t.Errorf("schema attribute %q missing from volumeModel", name)
		}
		if onlyNomad := a.IsComputed() && !a.IsOptional(); onlyNomad != slices.Contains(volumeComputed, name) {
			t.Errorf("schema attribute %q: computed only = %v, but volumeComputed lists it = %v", name, onlyNomad, !onlyNomad)
		}
	}
}

func TestVolumeSameSettings_cases(t *testing.T) {
	t.Parallel()
	base := fullVolumeModel(t)
	cases := []struct {
		name   string
		change func(*volumeModel)
		want   bool
	}{
		{"computed values differ", func(m *volumeModel) {
			m.State, m.HostPath, m.CapacityBytes = types.StringUnknown(), types.StringValue("/other"), types.Int64Unknown()
		}, true},
		{"capacity_max grows", func(m *volumeModel) { m.CapacityMax = newSizeValue(30 << 20) }, false},
		{"a parameter changes", func(m *volumeModel) {
			m.Parameters = shared.MapOrNull(t.Context(), map[string]string{"mode": "0700"}, nil)
		}, false},
		{"parameters unknown", func(m *volumeModel) { m.Parameters = types.MapUnknown(types.StringType) }, false},
		{"a constraint changes", func(m *volumeModel) {
			m.Constraints = constraintsValue(t.Context(), []volume.Constraint{{Attribute: "a", Operator: "=", Value: "b"}}, nil)
		}, false},
		{"force_destroy flips", func(m *volumeModel) { m.ForceDestroy = types.BoolValue(false) }, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			plan := base
			c.change(&plan)
			if got := sameSettings(plan, base, volumeComputed); got != c.want {
				t.Errorf("sameSettings = %v, want %v", got, c.want)
			}
		})
	}
}

// A model goes to a volume and back unchanged, constraints included (their
// object type comes from the schema).
func TestVolumeModel_roundTrip(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	var diags diag.Diagnostics
	m := fullVolumeModel(t)
	// A host volume: no CSI settings, and write-only secrets never read back.
	m.ExternalID, m.SecretsWO = types.StringNull(), types.MapNull(types.StringType)
	m.Capabilities, m.MountOptions = types.ListNull(capabilityType(ctx)), types.ObjectNull(mountOptionsTypes())
	m.Constraints = constraintsValue(ctx, []volume.Constraint{
		{Attribute: "${attr.kernel.name}", Operator: "=", Value: "linux"}, {Attribute: "${meta.x}", Operator: "is_set"}}, &diags)
	v := m.toVolume(ctx, &diags)
	want := &volume.Volume{
		ID: m.ID.ValueString(), Name: "data", Namespace: "default", PluginID: "mkdir", NodeID: "node", NodePool: "default",
		CapacityMinBytes: 10 << 20, CapacityMaxBytes: 20 << 20, AccessMode: volume.DefaultAccessMode, AttachmentMode: volume.DefaultAttachmentMode,
		Constraints: []volume.Constraint{{Attribute: "${attr.kernel.name}", Operator: "=", Value: "linux"}, {Attribute: "${meta.x}", Operator: "is_set"}},
		Parameters:  map[string]string{"mode": "0755"}, Type: volume.TypeHost,
	}
	if !reflect.DeepEqual(v, want) {
		t.Fatalf("toVolume = %+v\nwant %+v", v, want)
	}
	v.HostPath, v.CapacityBytes, v.State = "/srv", 1, "ready"
	v.Allocations = []volume.Allocation{{ID: "a1", ClientStatus: "running"}, {ID: "gone", ClientStatus: "complete"}}
	back := volumeModel{CapacityMin: m.CapacityMin, CapacityMax: m.CapacityMax, ForceDestroy: m.ForceDestroy,
		NodeReservation: m.NodeReservation, Timeouts: m.Timeouts}
	back.fromVolume(ctx, v, "n1", &diags)
	if diags.HasError() {
		t.Fatal(diags)
	}
	if !reflect.DeepEqual(back, m) {
		t.Errorf("fromVolume(toVolume(m)) =\n%+v\nwant\n%+v", back, m)
	}
	// A value-less constraint reads back as null, as the schema's optional value.
	if got := back.Constraints.Elements()[1].(types.Object).Attributes()["value"]; !got.IsNull() {
		t.Errorf("constraint without value reads back as %v, want null", got)
	}
}

// Unknown computed values in a plan are not sent to Nomad.
func TestVolumeModel_toVolumeLeavesUnknownToNomad(t *testing.T) {
	t.Parallel()
	m := fullVolumeModel(t)
	m.ID, m.NodeID, m.NodePool = types.StringUnknown(), types.StringUnknown(), types.StringUnknown()
	var diags diag.Diagnostics
	v := m.toVolume(t.Context(), &diags)
	if v.ID != "" || v.NodeID != "" || v.NodePool != "" || diags.HasError() {
		t.Errorf("toVolume sent unknowns: id %q node %q pool %q (%v)", v.ID, v.NodeID, v.NodePool, diags)
	}
}
