package provider

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/berthhq/terraform-provider-berth/internal/devagent"
)

var (
	// mainAgent is the server the acceptance tests run against, when the
	// tests (or make) started it; nil against an existing cluster.
	mainAgent *devagent.Agent

	agentsMu sync.Mutex
	// ownedAgents are stopped when the test binary ends.
	ownedAgents []*devagent.Agent
)

func setMainTestAgent(a *devagent.Agent) {
	mainAgent = a
	trackAgent(a)
}

func trackAgent(a *devagent.Agent) {
	agentsMu.Lock()
	defer agentsMu.Unlock()
	ownedAgents = append(ownedAgents, a)
}

// stopTestAgents stops extra agents first, then the server.
func stopTestAgents() {
	agentsMu.Lock()
	defer agentsMu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for i := len(ownedAgents) - 1; i >= 0; i-- {
		if err := ownedAgents[i].Stop(ctx); err != nil {
			fmt.Fprintf(os.Stderr, "stopping test agent %s: %v\n", ownedAgents[i].Addr, err)
		}
	}
	ownedAgents = nil
}

// startExtraClient joins one more client agent to the test server and
// stops it when the test binary ends. nodeID, when set, is written as the
// client's ID before it starts (Nomad keeps its node ID in the data dir).
func startExtraClient(t *testing.T, o devagent.Options, nodeID string) *devagent.Agent {
	t.Helper()
	if mainAgent == nil {
		t.Skip("needs a Nomad server started by the tests or make (extra client agents join it); NOMAD_ADDR points at an existing cluster")
	}
	dir, err := os.MkdirTemp("", "berth-acc-client-")
	if err != nil {
		t.Fatal(err)
	}
	if nodeID != "" {
		if err := os.MkdirAll(filepath.Join(dir, "client"), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "client", "client-id"), []byte(nodeID), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	o.DataDir = dir
	o.Servers = []string{mainAgent.RPCAddr}
	o.Token = mainAgent.Token
	o.DieWithParent = true
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	a, err := devagent.Start(ctx, o)
	if err != nil {
		os.RemoveAll(dir)
		t.Fatalf("starting extra client %q: %v", o.Name, err)
	}
	trackAgent(a)
	// Start does not own a data dir it was given; remove it after Stop.
	t.Cleanup(func() {})
	return a
}
