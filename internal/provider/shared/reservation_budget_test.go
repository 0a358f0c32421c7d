package shared

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/berthhq/terraform-provider-berth/internal/capacity"
	"github.com/berthhq/terraform-provider-berth/internal/nomadclient"
)

func TestPlannedReservations(t *testing.T) {
	var none *PlannedReservations
	none.Record("n/r", capacity.Resources{CPU: 1})
	if none.Planned("n/r") != nil {
		t.Error("a nil set remembered a request")
	}
	p := NewPlannedReservations()
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
	data := &ProviderData{Nomad: client, LedgerNamespace: "default", Plans: NewPlannedReservations()}
	var diags diag.Diagnostics
	CheckReservationBudget(context.Background(), data, types.StringValue("00000000-0000-4000-8000-000000000000/r"),
		nomadclient.InstanceConsumer("default", "web"), capacity.Resources{CPU: 100}, "", &diags)
	if len(diags) != 0 {
		t.Errorf("diagnostics with Nomad unreachable: %v", diags)
	}
}
