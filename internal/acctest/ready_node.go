package acctest

import (
	"testing"

	"github.com/hashicorp/nomad/api"
)

// ReadyNodeID returns the ID of a ready node of the test cluster.
func ReadyNodeID(t *testing.T) string {
	t.Helper()
	nodes, _, err := Nomad(t).Nodes().List(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range nodes {
		if n.Status == api.NodeStatusReady && n.SchedulingEligibility == api.NodeSchedulingEligible {
			return n.ID
		}
	}
	t.Fatal("no ready node in the test cluster")
	return ""
}
