package node

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/objectplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

func TestPlacementChanged(t *testing.T) {
	types4 := map[string]attr.Type{"datacenter": types.StringType, "node_pool": types.StringType, "node_class": types.StringType, "strategy": types.StringType}
	placement := func(pool, strategy string) types.Object {
		return types.ObjectValueMust(types4, map[string]attr.Value{"datacenter": types.StringNull(), "node_pool": types.StringValue(pool),
			"node_class": types.StringNull(), "strategy": types.StringValue(strategy)})
	}
	tests := []struct {
		name        string
		state, plan types.Object
		replace     bool
	}{
		{"only the strategy", placement("p", "binpack"), placement("p", "spread"), false},
		{"unchanged", placement("p", "binpack"), placement("p", "binpack"), false},
		{"another node pool", placement("p", "binpack"), placement("q", "binpack"), true},
		{"pool and strategy", placement("p", "binpack"), placement("q", "spread"), true},
		{"placement removed", placement("p", "binpack"), types.ObjectNull(types4), true},
		{"placement not known yet", placement("p", "binpack"), types.ObjectUnknown(types4), true},
		{"added to an imported reservation", types.ObjectNull(types4), placement("p", "spread"), false},
	}
	for _, tt := range tests {
		var resp objectplanmodifier.RequiresReplaceIfFuncResponse
		placementChanged(context.Background(), planmodifier.ObjectRequest{StateValue: tt.state, PlanValue: tt.plan}, &resp)
		if resp.RequiresReplace != tt.replace {
			t.Errorf("%s: replace = %v, want %v", tt.name, resp.RequiresReplace, tt.replace)
		}
	}
}
