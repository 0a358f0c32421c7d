package nomadclient

import (
	"context"

	"github.com/berthhq/terraform-provider-berth/internal/capacity"
	"github.com/berthhq/terraform-provider-berth/internal/ledger"
)

// ChargeCheck is a charge to try, at plan time, against a node reservation.
type ChargeCheck struct {
	// ReservationID is the node reservation, "<node_id>/<name>".
	ReservationID string
	// Consumer is the consumer key (InstanceConsumer, VolumeConsumer,
	// LeaseConsumer); its own charge there, if any, is replaced.
	Consumer string
	Amount   capacity.Resources
	// PlannedRequest, when set, is the reservation's request as the same
	// plan resizes it; it is checked against instead of the ledger's,
	// since the resize is applied before the consumer.
	PlannedRequest *capacity.Resources
}

// CheckCharge reports whether cc would fit in its node reservation now,
// without writing: nil, a *ledger.MissingReservationError or a
// *ledger.BudgetError, as Charge would at apply; any other error says the
// ledger could not be read. Charges of consumers gone from Nomad still
// count, as they do for Charge.
func (c *Client) CheckCharge(ctx context.Context, ns string, cc ChargeCheck) error {
	nodeID, name, err := ParseNodeReservationID(cc.ReservationID)
	if err != nil {
		return err
	}
	cur, err := c.ReadLedger(ctx, ns, nodeID)
	if err != nil {
		return err
	}
	l, err := ledger.Decode(nodeID, cur.Items)
	if err != nil {
		return err
	}
	if r, ok := l.Reservations[name]; ok && cc.PlannedRequest != nil {
		r.Request = *cc.PlannedRequest
		l.Reservations[name] = r
	}
	return l.Charge(name, cc.Consumer, cc.Amount)
}
