package acctest

import (
	"context"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"

	"github.com/berthhq/terraform-provider-berth/internal/devagent"
)

// StartPrivateAgent starts a server+client agent only this test uses: fault
// tests break their agent, so they never touch the shared one.
func StartPrivateAgent(t *testing.T, name string) (*devagent.Agent, *api.Client) {
	t.Helper()
	return startPrivateAgent(t, devagent.Options{Name: name, ChrootEnv: devagent.MinimalChrootEnv(), DieWithParent: true})
}

// StartPrivateUnbootstrappedACLAgent starts a server+client agent only
// this test uses, with ACL enabled and NOT bootstrapped: for tests of the
// ACL bootstrap. The client it returns has no token; the agent's readiness
// is a leader only (every other check needs a token).
func StartPrivateUnbootstrappedACLAgent(t *testing.T, name string) (*devagent.Agent, *api.Client) {
	t.Helper()
	return startPrivateAgent(t, devagent.Options{Name: name, ACL: true, ACLSkipBootstrap: true,
		ChrootEnv: devagent.MinimalChrootEnv(), DieWithParent: true})
}

func startPrivateAgent(t *testing.T, o devagent.Options) (*devagent.Agent, *api.Client) {
	t.Helper()
	requireNomadBinary(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	begin := time.Now()
	a, err := devagent.Start(ctx, o)
	if err != nil {
		t.Fatalf("starting a private Nomad agent: %v", err)
	}
	t.Cleanup(func() {
		if err := a.Stop(context.Background()); err != nil {
			t.Errorf("stopping the private agent: %v", err)
		}
	})
	t.Logf("private agent %s (node %s) ready in %s", a.Addr, a.NodeID, time.Since(begin).Round(100*time.Millisecond))
	c, err := a.Client()
	if err != nil {
		t.Fatal(err)
	}
	return a, c
}

// requireNomadBinary skips a fault test only when the tests run against an
// existing cluster (nothing started by the tests) and no nomad binary is at
// hand; when the tests started Nomad themselves the binary must be there.
func requireNomadBinary(t *testing.T) {
	t.Helper()
	if _, err := devagent.FindBinary(""); err != nil {
		if MainAgent == nil {
			t.Skipf("fault tests start private Nomad agents and need the nomad binary: %v", err)
		}
		t.Fatal(err)
	}
}
