package provider

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

// testAccProtoV6ProviderFactories runs the provider in the test process.
var testAccProtoV6ProviderFactories = map[string]func() (tfprotov6.ProviderServer, error){
	"berth": newServer("test", true),
}

// TestMain starts a throwaway Nomad agent for acceptance tests when
// NOMAD_ADDR is unset, so tests never touch a cluster they did not start
// unless told to, and stops it (and any extra agents) whatever the outcome.
func TestMain(m *testing.M) {
	os.Exit(runTests(m))
}

func runTests(m *testing.M) int {
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
	if state := os.Getenv("BERTH_TEST_AGENT_STATE"); state != "" {
		// make testacc started the agent; learn its RPC address so tests
		// can join extra clients to it. make stops it.
		agent, err := devagent.Load(state)
		if err != nil {
			fmt.Fprintf(os.Stderr, "loading the test agent state from BERTH_TEST_AGENT_STATE: %v\n", err)
			return 1
		}
		mainAgent = agent
	} else if os.Getenv("NOMAD_ADDR") == "" {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		agent, err := devagent.Start(ctx, devagent.Options{Name: "berth-acc", ChrootEnv: devagent.MinimalChrootEnv(), DieWithParent: true})
		if err != nil {
			fmt.Fprintf(os.Stderr, "starting a Nomad agent for acceptance tests: %v\n", err)
			return 1
		}
		setMainTestAgent(agent)
		for _, kv := range agent.Env() {
			k, v, _ := strings.Cut(kv, "=")
			os.Setenv(k, v)
		}
		fmt.Fprintf(os.Stderr, "acceptance tests use a throwaway Nomad agent at %s (data dir %s)\n", agent.Addr, agent.DataDir)
	}
	return m.Run()
}

// testAccPreCheck skips an acceptance test unless TF_ACC is set (as
// resource.Test does, so `make unit` runs without Nomad) and fails one that
// has no Nomad to talk to.
func testAccPreCheck(t *testing.T) {
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

// testNomad is an API client for asserting in Nomad itself, configured from
// the same environment the provider reads.
// One client is shared: every client has its own connection pool, and
// Nomad limits concurrent connections per client address.
func testNomad(t *testing.T) *api.Client {
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
