package cluster

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
	"github.com/berthhq/terraform-provider-berth/internal/devagent"
)

// autopilotHealth reads /v1/operator/autopilot/health from addr. Nomad
// answers 429 (with the same report) when something is unhealthy, which
// the api package turns into an error, so the test reads it over HTTP.
func autopilotHealth(ctx context.Context, addr string) (*api.OperatorHealthReply, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, addr+"/v1/operator/autopilot/health", nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusTooManyRequests {
		return nil, fmt.Errorf("autopilot health: HTTP %d", resp.StatusCode)
	}
	var out api.OperatorHealthReply
	return &out, json.NewDecoder(resp.Body).Decode(&out)
}

// versionRe matches a Nomad version as servers advertise it.
var versionRe = regexp.MustCompile(`^\d+\.\d+\.\d+`)

func healthyServers(h *api.OperatorHealthReply) int {
	n := 0
	for _, s := range h.Servers {
		if s.Healthy {
			n++
		}
	}
	return n
}

// TestAccClusterDataSource_threeServersOneDown reads berth_cluster from a
// private cluster of three servers: all healthy with a leader first; then
// one follower is killed, and once autopilot reports it unhealthy the data
// source still reads, reporting what Nomad's own API says.
func TestAccClusterDataSource_threeServersOneDown(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	cl, nomad := acctest.StartPrivateCluster(t, "berth-cluster-ds")
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	defer cancel()
	addr := cl.Client.Addr
	// Autopilot removes a failed server from Raft shortly after it fails
	// (cleanup_dead_servers); then it reports 2 of 2 healthy. Keep the
	// dead server a peer, so the step after the kill sees what Nomad says
	// about a server that is down rather than one already removed.
	apc, _, err := nomad.Operator().AutopilotGetConfiguration(nil)
	if err != nil {
		t.Fatal(err)
	}
	apc.CleanupDeadServers = false
	if _, err := nomad.Operator().AutopilotSetConfiguration(apc, nil); err != nil {
		t.Fatal(err)
	}
	// Autopilot calls a new server healthy once it has been stable a while.
	acctest.WaitFor(t, "autopilot to report every server healthy", 2*time.Minute, func() (bool, error) {
		h, err := autopilotHealth(ctx, addr)
		return err == nil && h.Healthy && healthyServers(h) == 3, err
	})
	leader, err := cl.Leader(ctx, 30*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	var victim *devagent.Agent
	for _, s := range cl.Servers {
		if s != leader {
			victim = s
			break
		}
	}
	const ds = "data.berth_cluster.c"
	config := fmt.Sprintf(`
provider "berth" {
  address = %q
}

data "berth_cluster" "c" {}
`, addr)

	// Leadership may move while berth reads, above all on a starved
	// machine, so the data source is compared with what Nomad says at the
	// same moment: the leader Nomad named just before the step (PreConfig)
	// or just after it (the check); berth's leader must be one of them and
	// the only server it flags.
	var leaderBefore string
	// leaderNow waits out an election in progress (no leader yet).
	leaderNow := func() (leader string) {
		acctest.WaitFor(t, "Nomad to name a leader", time.Minute, func() (bool, error) {
			l, err := nomad.Status().Leader()
			leader = l
			return err == nil && l != "", nil
		})
		return leader
	}
	noteLeader := func() { leaderBefore = leaderNow() }
	// asNomadSays compares the data source with autopilot's report, read
	// through the API right after the read.
	asNomadSays := func(s *terraform.State) error {
		h, err := autopilotHealth(ctx, addr)
		if err != nil {
			return err
		}
		leaderAfter := leaderNow()
		got := s.RootModule().Resources[ds].Primary.Attributes["leader_address"]
		if got != leaderBefore && got != leaderAfter {
			return fmt.Errorf("leader_address %q: Nomad named %q before the read and %q after it", got, leaderBefore, leaderAfter)
		}
		return resource.ComposeTestCheckFunc(
			resource.TestCheckResourceAttr(ds, "healthy", fmt.Sprint(h.Healthy)),
			resource.TestCheckResourceAttr(ds, "failure_tolerance", fmt.Sprint(h.FailureTolerance)),
			resource.TestCheckResourceAttr(ds, "healthy_server_count", fmt.Sprint(healthyServers(h))),
			checkOneLeader(ds, got),
		)(s)
	}

	// t.Parallel ran above, before the cluster started.
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				PreConfig: noteLeader,
				Config:    config,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(ds, tfjsonpath.New("server_count"), knownvalue.Int64Exact(3)),
					statecheck.ExpectKnownValue(ds, tfjsonpath.New("healthy_server_count"), knownvalue.Int64Exact(3)),
					statecheck.ExpectKnownValue(ds, tfjsonpath.New("healthy"), knownvalue.Bool(true)),
					statecheck.ExpectKnownValue(ds, tfjsonpath.New("failure_tolerance"), knownvalue.Int64Exact(1)),
					statecheck.ExpectKnownValue(ds, tfjsonpath.New("region"), knownvalue.StringExact("global")),
					statecheck.ExpectKnownValue(ds, tfjsonpath.New("regions"), knownvalue.ListExact([]knownvalue.Check{knownvalue.StringExact("global")})),
					statecheck.ExpectKnownValue(ds, tfjsonpath.New("datacenters"), knownvalue.ListExact([]knownvalue.Check{knownvalue.StringExact(devagent.DefaultDatacenter)})),
					statecheck.ExpectKnownValue(ds, tfjsonpath.New("servers"), knownvalue.ListSizeExact(3)),
					// Every server advertises the pinned version; the client agent is healthy and runs no server.
					statecheck.ExpectKnownValue(ds, tfjsonpath.New("servers").AtSliceIndex(0).AtMapKey("version"), knownvalue.StringRegexp(versionRe)),
					statecheck.ExpectKnownValue(ds, tfjsonpath.New("agent_health").AtMapKey("client_ok"), knownvalue.Bool(true)),
					statecheck.ExpectKnownValue(ds, tfjsonpath.New("agent_health").AtMapKey("server_ok"), knownvalue.Null()),
				},
				Check: asNomadSays,
			},
			{
				PreConfig: func() {
					t.Logf("killing follower %s (%s)", victim.Name, victim.RPCAddr)
					if err := victim.Kill(); err != nil {
						t.Fatal(err)
					}
					acctest.WaitFor(t, "autopilot to report the killed server unhealthy", 2*time.Minute, func() (bool, error) {
						h, err := autopilotHealth(ctx, addr)
						if err != nil {
							return false, err
						}
						for _, s := range h.Servers {
							if s.Address == victim.RPCAddr {
								return !s.Healthy, nil
							}
						}
						return false, fmt.Errorf("autopilot does not list %s", victim.RPCAddr)
					})
					noteLeader()
				},
				Config: config,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(ds, tfjsonpath.New("server_count"), knownvalue.Int64Exact(3)),
					statecheck.ExpectKnownValue(ds, tfjsonpath.New("healthy_server_count"), knownvalue.Int64Exact(2)),
				},
				Check: resource.ComposeTestCheckFunc(asNomadSays,
					func(s *terraform.State) error {
						attrs := s.RootModule().Resources[ds].Primary.Attributes
						if attrs["healthy"] != "false" && attrs["failure_tolerance"] != "0" {
							return fmt.Errorf("with one of three servers down: healthy=%s failure_tolerance=%s; want healthy=false or no failure tolerance left",
								attrs["healthy"], attrs["failure_tolerance"])
						}
						for i := range 3 {
							if attrs[fmt.Sprintf("servers.%d.address", i)] == victim.RPCAddr {
								if attrs[fmt.Sprintf("servers.%d.healthy", i)] != "false" {
									return fmt.Errorf("the killed server %s is reported healthy", victim.RPCAddr)
								}
								return nil
							}
						}
						return fmt.Errorf("the killed server %s is not listed: %v", victim.RPCAddr, attrs)
					}),
			},
		},
	})
}

// checkOneLeader requires exactly one server flagged leader, at addr.
func checkOneLeader(ds, addr string) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		attrs := s.RootModule().Resources[ds].Primary.Attributes
		var leaders []string
		for i := range 3 {
			if attrs[fmt.Sprintf("servers.%d.leader", i)] == "true" {
				leaders = append(leaders, attrs[fmt.Sprintf("servers.%d.address", i)])
			}
		}
		if len(leaders) != 1 || leaders[0] != addr {
			return fmt.Errorf("servers flagged leader: %v, want only %s", leaders, addr)
		}
		return nil
	}
}
