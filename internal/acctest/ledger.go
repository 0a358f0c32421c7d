package acctest

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/berthhq/terraform-provider-berth/internal/ledger"
	"github.com/berthhq/terraform-provider-berth/internal/nomadclient"
)

// ReadLedger reads a node's ledger straight from Nomad Variables.
func ReadLedger(t *testing.T, nodeID string) (ledger.Ledger, uint64) {
	t.Helper()
	v, _, err := Nomad(t).Variables().Read(nomadclient.LedgerPath(nodeID), nil)
	if err != nil {
		return ledger.Ledger{NodeID: nodeID, Reservations: map[string]ledger.Reservation{}}, 0
	}
	l, err := ledger.Decode(nodeID, v.Items)
	if err != nil {
		t.Fatalf("ledger of %s in Nomad does not decode: %v", nodeID, err)
	}
	return l, v.ModifyIndex
}

func CheckLedger(t *testing.T, nodeID string, f func(ledger.Ledger) error) resource.TestCheckFunc {
	return func(*terraform.State) error {
		l, _ := ReadLedger(t, nodeID)
		return f(l)
	}
}
