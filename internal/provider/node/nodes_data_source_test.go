package node

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
	"github.com/berthhq/terraform-provider-berth/internal/capacity"
	"github.com/berthhq/terraform-provider-berth/internal/nomadclient"
)

func TestAccNodesDataSource_basic(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	c := acctest.Nomad(t)
	node := acctest.MainNode(t, c)
	cpu, mem, disk := acctest.AllocatableOf(node)
	name := node.Name

	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: fmt.Sprintf(`
data "berth_nodes" "one" {
  filter = %q
}`, fmt.Sprintf("Name == %q", name)),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("data.berth_nodes.one", tfjsonpath.New("nodes"), knownvalue.ListSizeExact(1)),
				statecheck.ExpectKnownValue("data.berth_nodes.one", tfjsonpath.New("nodes").AtSliceIndex(0).AtMapKey("id"), knownvalue.StringExact(node.ID)),
				statecheck.ExpectKnownValue("data.berth_nodes.one", tfjsonpath.New("nodes").AtSliceIndex(0).AtMapKey("status"), knownvalue.StringExact("ready")),
				statecheck.ExpectKnownValue("data.berth_nodes.one", tfjsonpath.New("nodes").AtSliceIndex(0).AtMapKey("ready"), knownvalue.Bool(true)),
				statecheck.ExpectKnownValue("data.berth_nodes.one", tfjsonpath.New("nodes").AtSliceIndex(0).AtMapKey("datacenter"), knownvalue.StringExact(node.Datacenter)),
				statecheck.ExpectKnownValue("data.berth_nodes.one", tfjsonpath.New("nodes").AtSliceIndex(0).AtMapKey("node_pool"), knownvalue.StringExact(node.NodePool)),
				statecheck.ExpectKnownValue("data.berth_nodes.one", tfjsonpath.New("nodes").AtSliceIndex(0).AtMapKey("meta"), knownvalue.Null()),
			},
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckTypeSetElemAttr("data.berth_nodes.one", "nodes.0.drivers.*", "raw_exec"),
				resource.TestCheckTypeSetElemAttr("data.berth_nodes.one", "nodes.0.drivers.*", "exec"),
				func(s *terraform.State) error {
					for key, want := range map[string]int64{"cpu": cpu, "memory": mem, "disk": disk} {
						if err := acctest.CheckAttrInt(s, "data.berth_nodes.one", "nodes.0.allocatable."+key, want); err != nil {
							return err
						}
					}
					return nil
				},
			),
		}},
	})
}

func TestAccNodesDataSource_filters(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	node := acctest.MainNode(t, acctest.Nomad(t))
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				// Nomad evaluates the raw filter; a broken one reports
				// Nomad's own parse error.
				Config:      `data "berth_nodes" "bad" { filter = "Name ==" }`,
				ExpectError: regexp.MustCompile(`(?s)Could not list Nomad nodes.*Nomad said:.*filter`),
			},
			{
				Config:      `data "berth_nodes" "bad" { status = "sleeping" }`,
				ExpectError: regexp.MustCompile(`(?s)Attribute status value must be one of`),
			},
			{
				Config:      `data "berth_nodes" "bad" { min_free = { cpu = -1 } }`,
				ExpectError: regexp.MustCompile(`(?s)min_free.cpu.*at least 0`),
			},
			{
				Config: fmt.Sprintf(`
data "berth_nodes" "dc"       { datacenter = %[1]q }
data "berth_nodes" "no_dc"    { datacenter = "no-such-dc" }
data "berth_nodes" "pool"     { node_pool = %[2]q }
data "berth_nodes" "no_class" { node_class = "no-such-class" }
data "berth_nodes" "status"   { status = "ready" }
data "berth_nodes" "ready"    { ready = true }
data "berth_nodes" "expr"     { filter = "Name == \"%[3]s\"" }
data "berth_nodes" "combined" {
  datacenter = %[1]q
  filter     = "Name == \"%[3]s\""
  ready      = true
}
data "berth_nodes" "with_meta" {
  filter       = "Name == \"%[3]s\""
  include_meta = true
}
`, node.Datacenter, node.NodePool, node.Name),
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr("data.berth_nodes.no_dc", "nodes.#", "0"),
					resource.TestCheckResourceAttr("data.berth_nodes.no_class", "nodes.#", "0"),
					resource.TestCheckResourceAttr("data.berth_nodes.expr", "nodes.#", "1"),
					resource.TestCheckResourceAttr("data.berth_nodes.expr", "nodes.0.id", node.ID),
					resource.TestCheckResourceAttr("data.berth_nodes.combined", "nodes.#", "1"),
					resource.TestCheckResourceAttr("data.berth_nodes.with_meta", "nodes.0.meta.%", fmt.Sprint(len(node.Meta))),
					checkNodeListed("data.berth_nodes.dc", node.ID, true),
					checkNodeListed("data.berth_nodes.pool", node.ID, true),
					checkNodeListed("data.berth_nodes.status", node.ID, true),
					checkNodeListed("data.berth_nodes.ready", node.ID, true),
					checkAllNodes("data.berth_nodes.dc", "datacenter", node.Datacenter),
					checkAllNodes("data.berth_nodes.status", "status", "ready"),
					checkAllNodes("data.berth_nodes.ready", "ready", "true"),
				),
			},
		},
	})
}

// checkNodeListed asserts whether the node with id is in the data source.
func checkNodeListed(addr, id string, want bool) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		rs, ok := s.RootModule().Resources[addr]
		if !ok {
			return fmt.Errorf("%s not in state", addr)
		}
		found := false
		for k, v := range rs.Primary.Attributes {
			if strings.HasPrefix(k, "nodes.") && strings.HasSuffix(k, ".id") && v == id {
				found = true
			}
		}
		if found != want {
			return fmt.Errorf("%s: node %s listed = %v, want %v", addr, id, found, want)
		}
		return nil
	}
}

// checkAllNodes asserts that every listed node has attr == want.
func checkAllNodes(addr, attr, want string) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		rs, ok := s.RootModule().Resources[addr]
		if !ok {
			return fmt.Errorf("%s not in state", addr)
		}
		for k, v := range rs.Primary.Attributes {
			if strings.HasPrefix(k, "nodes.") && strings.HasSuffix(k, "."+attr) && strings.Count(k, ".") == 2 && v != want {
				return fmt.Errorf("%s: %s = %q, want %q", addr, k, v, want)
			}
		}
		return nil
	}
}

// countingProxy forwards to the real agent and counts requests by path.
type countingProxy struct {
	mu    sync.Mutex
	paths []string
}

func (p *countingProxy) record(path string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.paths = append(p.paths, path)
}

func (p *countingProxy) snapshot() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.paths...)
}

func startCountingProxy(t *testing.T) (*countingProxy, string) {
	t.Helper()
	target, err := url.Parse(os.Getenv("NOMAD_ADDR"))
	if err != nil {
		t.Fatal(err)
	}
	if target.Scheme != "http" {
		t.Skip("the counting proxy forwards plain HTTP only")
	}
	p := &countingProxy{}
	rp := httputil.NewSingleHostReverseProxy(target)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.record(r.URL.Path)
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return p, srv.URL
}

// TestAccNodesDataSource_constantAPICalls: listing nodes costs the same
// three calls (nodes, allocations, berth's lease and hold jobs) for one
// node or for every node, with reservations on some of them, and reads no
// ledger; only meta costs one read per node.
func TestAccNodesDataSource_constantAPICalls(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	f := acctest.SharedFleet(t) // at least four nodes
	// Its reservations would upset the exact numbers of the node reservation tests.
	acctest.UseNodeAlone(t, f.ResvA, f.ResvB)
	proxy, addr := startCountingProxy(t)
	client, err := nomadclient.New(nomadclient.Config{Address: addr, Token: os.Getenv("NOMAD_TOKEN")})
	if err != nil {
		t.Fatal(err)
	}
	// Reservations on two nodes, each with its hold job.
	suffix := acctest.RandomHex(3)
	for _, node := range []string{f.ResvA.NodeID, f.ResvB.NodeID} {
		name := "count-" + suffix
		if err := client.ReserveOn(t.Context(), "default", node, nomadclient.NodeReservationRequest{
			Name: name, Request: capacity.Resources{CPU: 10, MemoryMB: 16}, Create: true,
		}); err != nil {
			t.Fatal(err)
		}
		if _, err := client.SyncHold(t.Context(), "default", node, name); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			if err := client.ReleaseNodeReservation(context.Background(), "default", node, name, time.Time{}); err != nil {
				t.Error(err)
			}
			if _, err := client.SyncHold(context.Background(), "default", node, name); err != nil {
				t.Error(err)
			}
		})
	}
	list := func(filter nomadclient.NodeFilter, meta bool) ([]nomadclient.NodeInfo, []string) {
		before := len(proxy.snapshot())
		nodes, err := client.ListNodes(t.Context(), filter, meta, "default")
		if err != nil {
			t.Fatal(err)
		}
		return nodes, proxy.snapshot()[before:]
	}
	all, allCalls := list(nomadclient.NodeFilter{}, false)
	one, oneCalls := list(nomadclient.NodeFilter{NodePool: f.HoldPoolA}, false)
	resv, resvCalls := list(nomadclient.NodeFilter{NodePool: f.ResvPool}, false)
	if len(all) < 4 || len(one) != 1 || len(resv) != 2 {
		t.Fatalf("listed %d, %d and %d nodes; want at least 4, 1 and 2", len(all), len(one), len(resv))
	}
	for _, calls := range [][]string{allCalls, oneCalls, resvCalls} {
		if want := []string{"/v1/nodes", "/v1/allocations", "/v1/jobs"}; !slices.Equal(calls, want) {
			t.Fatalf("listing made calls %v, want %v whatever the node count (%d, 1, 2 nodes)", calls, want, len(all))
		}
	}
	for _, n := range resv {
		found := false
		for _, r := range n.Reservations {
			found = found || r.Name == "count-"+suffix && r.Request.MemoryMB == 16
		}
		if !found || n.Capacity.Reserved.MemoryMB < 16 {
			t.Fatalf("node %s lists reservations %+v (reserved %v), want count-%s", n.Name, n.Reservations, n.Capacity.Reserved, suffix)
		}
	}
	withMeta, metaCalls := list(nomadclient.NodeFilter{}, true)
	if got, want := len(metaCalls), 3+len(withMeta); got != want {
		t.Fatalf("listing %d nodes with meta made %d calls, want %d", len(withMeta), got, want)
	}
	before := len(proxy.snapshot())

	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: fmt.Sprintf(`
provider "berth" {
  address = %q
}
data "berth_nodes" "all" {}
`, addr),
			Check: func(s *terraform.State) error {
				perPath := map[string]int{}
				for _, p := range proxy.snapshot()[before:] {
					perPath[p]++
					if strings.HasPrefix(p, "/v1/node/") {
						return fmt.Errorf("berth_nodes read a single node (%s): the listing must not cost a call per node", p)
					}
				}
				// The provider reads the cluster's version once per process,
				// before its first request.
				if n := perPath["/v1/agent/self"]; n > 1 {
					return fmt.Errorf("the cluster's version was read %d times, want once per provider process", n)
				}
				delete(perPath, "/v1/agent/self")
				if perPath["/v1/nodes"] == 0 || perPath["/v1/nodes"] != perPath["/v1/allocations"] || perPath["/v1/nodes"] != perPath["/v1/jobs"] ||
					len(perPath) != 3 {
					return fmt.Errorf("want one allocation list and one job list per node list and nothing else, got %v", perPath)
				}
				return nil
			},
		}},
	})
}
