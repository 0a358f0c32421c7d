// Package acctest is the acceptance tests' support, shared by every
// package of the Terraform layer: the Nomad agents (the one make testacc
// starts, shared through BERTH_TEST_AGENT_STATE, and extra clients), the
// Terraform CLI drivers, plan checks, and checks in Nomad itself. It
// imports nothing under internal/provider: each package's TestMain hands
// Run the provider's verify-mode server, since the provider imports the
// families whose tests use this package.
package acctest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"

	"github.com/berthhq/terraform-provider-berth/internal/devagent"
)

// ProtoV6ProviderFactories runs the provider in the test process.
var ProtoV6ProviderFactories = map[string]func() (tfprotov6.ProviderServer, error){
	"berth": NewServer,
}

// testServer builds the provider server the tests run in process: the
// verify-mode server, handed in by the package's TestMain, because test
// support cannot import the provider (the provider imports the families
// whose tests use it).
var testServer func() (tfprotov6.ProviderServer, error)

// NewServer is the server Run was given.
func NewServer() (tfprotov6.ProviderServer, error) {
	if testServer == nil {
		return nil, fmt.Errorf("no provider server: the package's TestMain must call acctest.Run")
	}
	return testServer()
}

// PreCheck skips an acceptance test unless TF_ACC is set (as
// resource.Test does, so `make unit` runs without Nomad) and fails one that
// has no Nomad to talk to.
func PreCheck(t *testing.T) {
	t.Helper()
	// Without TF_ACC this is a unit run (make unit), where resource.Test
	// skips acceptance tests too; make test always sets TF_ACC=1, so no
	// acceptance test is ever skipped there.
	if os.Getenv("TF_ACC") == "" {
		t.Skip("acceptance test: set TF_ACC=1 (make testacc) to run it against a Nomad agent")
	}
	if os.Getenv("NOMAD_ADDR") == "" {
		t.Fatal("NOMAD_ADDR must be set for acceptance tests (TestMain sets it when it starts its own agent)")
	}
}

// Nomad is an API client for asserting in Nomad itself, configured from
// the same environment the provider reads.
// One client is shared: every client has its own connection pool, and
// Nomad limits concurrent connections per client address.
func Nomad(t *testing.T) *api.Client {
	t.Helper()
	testNomadOnce.Do(func() { testNomadClient, testNomadErr = api.NewClient(api.DefaultConfig()) })
	if testNomadErr != nil {
		t.Fatalf("nomad api client: %v", testNomadErr)
	}
	return testNomadClient
}

var (
	testNomadOnce   sync.Once
	testNomadClient *api.Client
	testNomadErr    error
)

// Run runs the package's tests with server as the provider (see
// testServer), against the Nomad agent make testacc started, the one at
// NOMAD_ADDR, or one of its own.
func Run(m *testing.M, server func() (tfprotov6.ProviderServer, error)) int {
	return run(m, server, false)
}

// RunACL is Run against a Nomad with ACL enabled and bootstrapped: the
// second agent make testacc starts (BERTH_TEST_ACL_AGENT_STATE), an
// existing cluster given by NOMAD_ADDR with NOMAD_TOKEN, or one of its own.
// It sets NOMAD_ADDR and NOMAD_TOKEN (the management token) for the whole
// binary, so the provider and Nomad(t) both talk to it.
func RunACL(m *testing.M, server func() (tfprotov6.ProviderServer, error)) int {
	return run(m, server, true)
}

func run(m *testing.M, server func() (tfprotov6.ProviderServer, error), acl bool) int {
	testServer = server
	if os.Getenv("TF_ACC") == "" {
		return m.Run()
	}
	if os.Getenv("TF_ACC_TERRAFORM_PATH") == "" {
		if _, err := exec.LookPath("terraform"); err != nil {
			fmt.Fprintln(os.Stderr, "acceptance tests need the terraform CLI on PATH (or TF_ACC_TERRAFORM_PATH); "+
				"berth cannot download it here. Install Terraform 1.11 or later.")
			return 1
		}
	}
	defer stopTestAgents()
	stateVar := "BERTH_TEST_AGENT_STATE"
	if acl {
		stateVar = "BERTH_TEST_ACL_AGENT_STATE"
	}
	external := os.Getenv("NOMAD_ADDR") != "" && (!acl || os.Getenv("NOMAD_TOKEN") != "")
	if state := os.Getenv(stateVar); state != "" {
		// make testacc started the agent; learn its RPC address so tests
		// can join extra clients to it. make stops it.
		agent, err := devagent.Load(state)
		if err != nil {
			fmt.Fprintf(os.Stderr, "loading the test agent state from %s: %v\n", stateVar, err)
			return 1
		}
		MainAgent = agent
		if acl {
			setAgentEnv(agent)
		}
	} else if !external {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		name := "berth-acc"
		if acl {
			name = "berth-acc-acl"
		}
		agent, err := devagent.Start(ctx, devagent.Options{Name: name, ACL: acl, ChrootEnv: devagent.MinimalChrootEnv(), DieWithParent: true})
		if err != nil {
			fmt.Fprintf(os.Stderr, "starting a Nomad agent for acceptance tests: %v\n", err)
			return 1
		}
		setMainTestAgent(agent)
		setAgentEnv(agent)
		fmt.Fprintf(os.Stderr, "acceptance tests use a throwaway Nomad agent at %s (data dir %s)\n", agent.Addr, agent.DataDir)
	}
	return m.Run()
}

// setAgentEnv points this process (the provider and Nomad(t)) at agent.
func setAgentEnv(agent *devagent.Agent) {
	for _, kv := range agent.Env() {
		k, v, _ := strings.Cut(kv, "=")
		os.Setenv(k, v)
	}
	if agent.TLS == nil {
		os.Unsetenv("NOMAD_CACERT")
	}
}
