package provider

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/objectplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/berthhq/terraform-provider-berth/internal/capacity"
	"github.com/berthhq/terraform-provider-berth/internal/nomadclient"
	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
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

func TestPlannedReservations(t *testing.T) {
	var none *shared.PlannedReservations
	none.Record("n/r", capacity.Resources{CPU: 1})
	if none.Planned("n/r") != nil {
		t.Error("a nil set remembered a request")
	}
	p := shared.NewPlannedReservations()
	if p.Planned("n/r") != nil {
		t.Error("an empty set has a request")
	}
	p.Record("n/r", capacity.Resources{CPU: 500})
	if got := p.Planned("n/r"); got == nil || got.CPU != 500 {
		t.Errorf("planned = %v, want cpu 500", got)
	}
}

// TestCheckReservationBudget_quietWhenNomadUnreachable: a plan is not
// refused because Nomad could not be asked; apply checks the budget.
func TestCheckReservationBudget_quietWhenNomadUnreachable(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := "http://" + l.Addr().String()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	client, err := nomadclient.New(nomadclient.Config{Address: addr, RequestTimeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	data := &shared.ProviderData{Nomad: client, LedgerNamespace: "default", Plans: shared.NewPlannedReservations()}
	var diags diag.Diagnostics
	shared.CheckReservationBudget(context.Background(), data, types.StringValue("00000000-0000-4000-8000-000000000000/r"),
		nomadclient.InstanceConsumer("default", "web"), capacity.Resources{CPU: 100}, "", &diags)
	if len(diags) != 0 {
		t.Errorf("diagnostics with Nomad unreachable: %v", diags)
	}
}
