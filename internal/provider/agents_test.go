package provider

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
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

// removeAtExit registers a directory the test binary removes when it ends
// (after the agents that may use it are stopped).
func removeAtExit(dir string) {
	agentsMu.Lock()
	defer agentsMu.Unlock()
	exitDirs = append(exitDirs, dir)
}

var exitDirs []string

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
	for i := len(ownedAgents) - 1; i >= 0; i-- {
		if err := ownedAgents[i].Stop(ctx); err != nil {
			fmt.Fprintf(os.Stderr, "stopping test agent %s: %v\n", ownedAgents[i].Addr, err)
		}
	}
	ownedAgents = nil
}

// startClient joins one more client agent to the test server; it is
// stopped when the test binary ends.
func startClient(o devagent.Options) (*devagent.Agent, error) {
	if mainAgent == nil {
		return nil, errors.New("no test-started Nomad server to join")
	}
	o.Servers = []string{mainAgent.RPCAddr}
	o.Token = mainAgent.Token
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
	trackAgent(a)
	return a, nil
}
