package provider

import (
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/berthhq/terraform-provider-berth/internal/ledger"
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
			if got := diagPath(errs[0]); !strings.Contains(got, name) {
				t.Errorf("error at %q, want %q: %v", got, name, errs[0])
			}
		})
	}
}
