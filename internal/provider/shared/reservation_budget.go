package shared

import (
	"context"
	"errors"
	"sync"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/berthhq/terraform-provider-berth/internal/capacity"
	"github.com/berthhq/terraform-provider-berth/internal/ledger"
	"github.com/berthhq/terraform-provider-berth/internal/nomadclient"
)

// PlannedReservations remembers the request each existing node
// reservation is planned to have, by ID, during one Terraform run (one
// provider process). Terraform plans a reservation before the work that
// refers to it, and applies a resize before that work, so the work's
// budget check counts the planned request: growing a reservation and what
// is placed into it in one plan is not refused.
type PlannedReservations struct {
	mu       sync.Mutex
	requests map[string]capacity.Resources
}

func NewPlannedReservations() *PlannedReservations {
	return &PlannedReservations{requests: map[string]capacity.Resources{}}
}

func (p *PlannedReservations) Record(id string, req capacity.Resources) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.requests[id] = req
}

// Planned returns the planned request of reservation id, or nil.
func (p *PlannedReservations) Planned(id string) *capacity.Resources {
	if p == nil {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if r, ok := p.requests[id]; ok {
		return &r
	}
	return nil
}

// CheckReservationBudget is the plan-time check that work placed into a
// node reservation fits in what the reservation has left, with the same
// rule as the charge at apply (the consumer's own charge is replaced). It
// adds at most one error, at node_reservation: the reservation is missing,
// or the budget and the request in the first short dimension, with fix
// saying what the user can change. When Nomad cannot answer it says
// nothing: apply checks again.
func CheckReservationBudget(ctx context.Context, data *ProviderData, reservation types.String, consumer string,
	amount capacity.Resources, fix string, diags *diag.Diagnostics) {
	if data == nil || reservation.IsNull() || reservation.IsUnknown() {
		return
	}
	id := reservation.ValueString()
	err := data.Nomad.CheckCharge(ctx, data.LedgerNamespace, nomadclient.ChargeCheck{
		ReservationID: id, Consumer: consumer, Amount: amount, PlannedRequest: data.Plans.Planned(id),
	})
	if err != nil && !budgetDiagnostic(err, fix, diags) {
		tflog.Debug(ctx, "Node reservation budget not checked at plan time; apply will check it",
			map[string]any{"reservation": id, "consumer": consumer, "error": err.Error()})
	}
}

// budgetDiagnostic reports a charge refused for the budget or a missing
// reservation, at node_reservation, with fix saying what the user can
// change; false for any other error. The plan's check and the charge at
// apply word it the same way.
func budgetDiagnostic(err error, fix string, diags *diag.Diagnostics) bool {
	var budget *ledger.BudgetError
	var missing *ledger.MissingReservationError
	switch {
	case errors.As(err, &budget):
		diags.AddAttributeError(path.Root("node_reservation"), "Not enough left in the node reservation",
			err.Error()+". "+fix+" The reservation's `used` attribute shows what is charged to it; work deleted "+
				"outside Terraform stays charged until the reservation is next resized or destroyed.")
	case errors.As(err, &missing):
		diags.AddAttributeError(path.Root("node_reservation"), "Node reservation not found",
			err.Error()+". Use the id of an existing berth_node_reservation (`<node_id>/<name>`), or create the reservation first.")
	default:
		return false
	}
	return true
}

// addChargeError reports a refused charge as the plan's budget check does,
// or any other failure under summary.
func addChargeError(diags *diag.Diagnostics, summary, fix string, err error) {
	if !budgetDiagnostic(err, fix, diags) {
		AddNodeReservationError(diags, summary, err)
	}
}
