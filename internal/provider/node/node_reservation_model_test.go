package node

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
	"github.com/berthhq/terraform-provider-berth/internal/capacity"
	"github.com/berthhq/terraform-provider-berth/internal/ledger"
	"github.com/berthhq/terraform-provider-berth/internal/nomadclient"
)

// A placement or annotations that cannot be decoded are reported at their
// attribute; before, they silently became "binpack on any node" and no
// annotations.
func TestNodeReservationRequest_decodeErrorsAreReported(t *testing.T) {
	ctx := context.Background()
	goodPlacement := types.ObjectValueMust(
		map[string]attr.Type{"datacenter": types.StringType, "node_pool": types.StringType, "node_class": types.StringType, "strategy": types.StringType},
		map[string]attr.Value{"datacenter": types.StringValue("dc2"), "node_pool": types.StringNull(), "node_class": types.StringNull(), "strategy": types.StringValue("spread")})
	// A shape the model cannot hold: strategy is a number, a field is missing.
	badPlacement := types.ObjectValueMust(
		map[string]attr.Type{"datacenter": types.StringType, "strategy": types.Int64Type},
		map[string]attr.Value{"datacenter": types.StringValue("dc2"), "strategy": types.Int64Value(1)})
	badAnnotations := types.MapValueMust(types.Int64Type, map[string]attr.Value{"owner": types.Int64Value(1)})

	base := func() nodeReservationModel {
		return nodeReservationModel{Name: types.StringValue("r"), NodeID: types.StringNull(), CPU: types.Int64Value(100),
			Memory: types.Int64Value(0), Disk: types.Int64Value(0), Annotations: types.MapNull(types.StringType), Placement: types.ObjectNull(nil)}
	}

	m := base()
	m.Placement = goodPlacement
	var diags diag.Diagnostics
	req := m.nodeReservationRequest(ctx, &diags)
	if diags.HasError() || req.Placement.Datacenter != "dc2" || req.Placement.Strategy != ledger.Spread {
		t.Fatalf("good placement: %+v, %v", req.Placement, diags)
	}

	for name, mod := range map[string]func(*nodeReservationModel){
		"placement":   func(m *nodeReservationModel) { m.Placement = badPlacement },
		"annotations": func(m *nodeReservationModel) { m.Annotations = badAnnotations },
	} {
		t.Run(name, func(t *testing.T) {
			m := base()
			mod(&m)
			var diags diag.Diagnostics
			m.nodeReservationRequest(ctx, &diags)
			errs := diags.Errors()
			if len(errs) != 1 {
				t.Fatalf("%d errors, want exactly one: %v", len(errs), diags)
			}
			if got := acctest.DiagPath(errs[0]); !strings.Contains(got, name) {
				t.Errorf("error at %q, want %q: %v", got, name, errs[0])
			}
		})
	}
}

// setFrom builds `used` with the schema's own object type (no hand-kept
// attribute map that could drift from it) and copies every ledger field.
func TestNodeReservationModel_setFrom(t *testing.T) {
	ctx := context.Background()
	created := time.Date(2026, 1, 2, 3, 4, 5, 0, time.FixedZone("x", 3600))
	res := &nomadclient.NodeReservationState{
		Reservation: ledger.Reservation{
			Request:   capacity.Resources{CPU: 500, MemoryMB: 256, DiskMB: 100},
			CreatedAt: created,
			Consumers: map[string]capacity.Resources{"instance:default/web": {CPU: 200, MemoryMB: 64}},
		},
		Name: "db", NodeID: "node-1", NodeName: "n1", Datacenter: "dc1", NodeStatus: "down", NodeGone: true,
	}
	m := nodeReservationModel{Annotations: types.MapNull(types.StringType)}
	var diags diag.Diagnostics
	m.setFrom(ctx, res, &diags)
	if diags.HasError() {
		t.Fatalf("setFrom: %v", diags)
	}
	if want := nodeReservationUsedAttribute().GetType(); !m.Used.Type(ctx).Equal(want) {
		t.Errorf("used has type %v, the schema says %v", m.Used.Type(ctx), want)
	}
	var used capacityModel
	if d := m.Used.As(ctx, &used, basetypes.ObjectAsOptions{}); d.HasError() {
		t.Fatalf("used.As: %v", d)
	}
	if used != newCapacityModel(capacity.Resources{CPU: 200, MemoryMB: 64}) {
		t.Errorf("used = %+v, want cpu 200, memory 64, disk 0", used)
	}
	got := []string{m.ID.ValueString(), m.CreatedAt.ValueString(), m.NodeStatus.ValueString(), m.NodeName.ValueString(), m.Datacenter.ValueString()}
	want := []string{"node-1/db", "2026-01-02T02:04:05Z", "gone", "n1", "dc1"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("id, created_at, node_status, node_name, datacenter = %q, want %q", got, want)
	}
	if m.CPU.ValueInt64() != 500 || m.Memory.ValueInt64() != 256 || m.Disk.ValueInt64() != 100 || !m.Annotations.IsNull() {
		t.Errorf("amounts or annotations wrong: %+v", m)
	}
}
