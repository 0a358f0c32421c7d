package acctest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/nomad/api"

	"github.com/berthhq/terraform-provider-berth/internal/devagent"
)

var (
	// MainAgent is the server the acceptance tests run against, when the
	// tests (or make) started it; nil against an existing cluster.
	MainAgent *devagent.Agent

	agentsMu sync.Mutex
	// ownedAgents are stopped when the test binary ends.
	ownedAgents []*devagent.Agent
)

func TrackAgent(a *devagent.Agent) {
	agentsMu.Lock()
	defer agentsMu.Unlock()
	ownedAgents = append(ownedAgents, a)
}

// RemoveAtExit registers a directory the test binary removes when it ends
// (after the agents that may use it are stopped).
func RemoveAtExit(dir string) {
	agentsMu.Lock()
	defer agentsMu.Unlock()
	exitDirs = append(exitDirs, dir)
}

var exitDirs []string

// StartClient joins one more client agent to the test server; it is
// stopped when the test binary ends.
func StartClient(o devagent.Options) (*devagent.Agent, error) {
	if MainAgent == nil {
		return nil, errors.New("no test-started Nomad server to join")
	}
	o.Servers = []string{MainAgent.RPCAddr}
	o.Token = MainAgent.Token
	o.DieWithParent = true
	if o.ChrootEnv == nil {
		// Hold jobs run with the exec driver: a small chroot keeps each
		// one quick to start.
		o.ChrootEnv = devagent.MinimalChrootEnv()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	a, err := devagent.Start(ctx, o)
	if err != nil {
		return nil, fmt.Errorf("starting extra client %q: %w", o.Name, err)
	}
	TrackAgent(a)
	return a, nil
}

func setMainTestAgent(a *devagent.Agent) {
	MainAgent = a
	TrackAgent(a)
}

// stopTestAgents stops extra agents first, then the server, then removes
// the directories registered with removeAtExit.
func stopTestAgents() {
	agentsMu.Lock()
	defer agentsMu.Unlock()
	defer func() {
		for _, d := range exitDirs {
			os.RemoveAll(d)
		}
		exitDirs = nil
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var gone []string
	for i := len(ownedAgents) - 1; i >= 0; i-- {
		a := ownedAgents[i]
		if err := a.Stop(ctx); err != nil {
			fmt.Fprintf(os.Stderr, "stopping test agent %s: %v\n", a.Addr, err)
		}
		if a != MainAgent && a.NodeID != "" {
			gone = append(gone, a.NodeID)
		}
	}
	ownedAgents = nil
	purgeNodes(gone)
}

// purgeNodes removes the nodes of this binary's stopped clients from a
// server that outlives it (make testacc's agent, shared by every test
// binary): Nomad still places host volumes on down nodes, so a later
// binary's volumes would land on them ("No path to node"). Nodes another
// server holds (private clusters) are not found there, which is fine.
func purgeNodes(ids []string) {
	if len(ids) == 0 || MainAgent == nil || os.Getenv("BERTH_TEST_AGENT_STATE") == "" {
		return
	}
	c, err := api.NewClient(api.DefaultConfig())
	if err != nil {
		fmt.Fprintf(os.Stderr, "purging stopped test clients: %v\n", err)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	q := (&api.QueryOptions{}).WithContext(ctx)
	for _, id := range ids {
		if _, _, err := c.Nodes().Purge(id, q); err != nil &&
			!strings.Contains(err.Error(), "404") {
			fmt.Fprintf(os.Stderr, "purging stopped test client node %s: %v\n", id, err)
		}
	}
}
