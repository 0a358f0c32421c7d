package acctest

import (
	"testing"

	"github.com/hashicorp/nomad/api"
)

// ReadyNodeID returns the ID of the client node in the agent the tests talk
// to, once it is ready and eligible. Never another test's own client: those
// come and go, and their owners fill them (a node reservation that holds a
// whole node), so a test that borrowed one would fail by their schedule.
func ReadyNodeID(t *testing.T) string {
	t.Helper()
	nomad := Nomad(t)
	self, err := nomad.Agent().Self()
	if err != nil {
		t.Fatalf("reading the agent's configuration: %v", err)
	}
	nodeID := self.Stats["client"]["node_id"]
	if nodeID == "" {
		t.Fatal("the agent the tests talk to runs no client")
	}
	n, _, err := nomad.Nodes().Info(nodeID, nil)
	if err != nil {
		t.Fatalf("reading node %s: %v", nodeID, err)
	}
	if n.Status != api.NodeStatusReady || n.SchedulingEligibility != api.NodeSchedulingEligible {
		t.Fatalf("the shared test node %s is %s and %s, want ready and eligible", nodeID, n.Status, n.SchedulingEligibility)
	}
	return nodeID
}
