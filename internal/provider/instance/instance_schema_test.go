package instance

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

func TestReservationUnknownAtPlan(t *testing.T) {
	one, two := types.StringValue("n1/one"), types.StringValue("n2/two")
	tests := []struct {
		name        string
		state, plan types.String
		replace     bool
	}{
		{"to another existing reservation", one, two, false},
		{"out of a reservation", one, types.StringNull(), false},
		{"into an existing reservation", types.StringNull(), two, false},
		{"into one created in the same apply", types.StringNull(), types.StringUnknown(), false},
		{"to one known only at apply", one, types.StringUnknown(), true},
	}
	for _, tt := range tests {
		var resp stringplanmodifier.RequiresReplaceIfFuncResponse
		reservationUnknownAtPlan(context.Background(), planmodifier.StringRequest{StateValue: tt.state, PlanValue: tt.plan}, &resp)
		if resp.RequiresReplace != tt.replace {
			t.Errorf("%s: replace = %v, want %v", tt.name, resp.RequiresReplace, tt.replace)
		}
	}
}
