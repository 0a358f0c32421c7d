package acctest

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
	for i := len(ownedAgents) - 1; i >= 0; i-- {
		if err := ownedAgents[i].Stop(ctx); err != nil {
			fmt.Fprintf(os.Stderr, "stopping test agent %s: %v\n", ownedAgents[i].Addr, err)
		}
	}
	ownedAgents = nil
}
