package node

import (
	"context"
	"fmt"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
	"github.com/berthhq/terraform-provider-berth/internal/capacity"
	"github.com/berthhq/terraform-provider-berth/internal/devagent"
	"github.com/berthhq/terraform-provider-berth/internal/nomadclient"
)

// scaleNodes is how many client nodes TestAccNodesDataSource_scale lists.
const scaleNodes = 20

// TestAccNodesDataSource_scale lists one node, five nodes and at least
// twenty, each with reservations and their hold jobs on some nodes, and
// requires the same three requests every time. It starts a dozen client
// agents, so it runs only when asked: `make test-scale` (BERTH_SCALE_TEST=1).
func TestAccNodesDataSource_scale(t *testing.T) {
	if os.Getenv("BERTH_SCALE_TEST") == "" {
		t.Skip("starts a dozen client agents; run it with make test-scale")
	}
	acctest.PreCheck(t)
	f := acctest.SharedFleet(t)
	proxy, addr := startCountingProxy(t)
	client, err := nomadclient.New(nomadclient.Config{Address: addr, Token: os.Getenv("NOMAD_TOKEN")})
	if err != nil {
		t.Fatal(err)
	}
	all, err := client.ListNodes(t.Context(), nomadclient.NodeFilter{}, false, "default")
	if err != nil {
		t.Fatal(err)
	}
	sfx := acctest.RandomHex(3)
	five, rest := "berth-acc-five-"+sfx, "berth-acc-rest-"+sfx
	var fiveIDs []string
	for i := 0; i < 5 || len(all)+i < scaleNodes; i++ {
		pool := rest
		if i < 5 {
			pool = five
		}
		a, err := acctest.StartClient(devagent.Options{Name: fmt.Sprintf("%s-%d", pool, i), NodePool: pool})
		if err != nil {
			t.Fatal(err)
		}
		if i < 5 {
			fiveIDs = append(fiveIDs, a.NodeID)
		}
	}
	// Reservations, with their holds, on three of the five.
	name := "scale-" + sfx
	for _, node := range fiveIDs[:3] {
		if err := client.ReserveOn(t.Context(), "default", node, nomadclient.NodeReservationRequest{
			Name: name, Request: capacity.Resources{CPU: 10, MemoryMB: 16}, Create: true,
		}); err != nil {
			t.Fatal(err)
		}
		if _, err := client.SyncHold(t.Context(), "default", node, name); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			if err := client.ReleaseNodeReservation(ctx, "default", node, name, time.Time{}); err != nil {
				t.Error(err)
			}
			if _, err := client.SyncHold(ctx, "default", node, name); err != nil {
				t.Error(err)
			}
		})
	}

	for _, c := range []struct {
		filter nomadclient.NodeFilter
		want   func(n int) bool
		what   string
	}{
		{nomadclient.NodeFilter{NodePool: f.HoldPoolA}, func(n int) bool { return n == 1 }, "1 node"},
		{nomadclient.NodeFilter{NodePool: five}, func(n int) bool { return n == 5 }, "5 nodes"},
		{nomadclient.NodeFilter{}, func(n int) bool { return n >= scaleNodes }, fmt.Sprintf("at least %d nodes", scaleNodes)},
	} {
		before := len(proxy.snapshot())
		nodes, err := client.ListNodes(t.Context(), c.filter, false, "default")
		if err != nil {
			t.Fatal(err)
		}
		calls := proxy.snapshot()[before:]
		if !c.want(len(nodes)) {
			t.Fatalf("listed %d nodes, want %s", len(nodes), c.what)
		}
		if want := []string{"/v1/nodes", "/v1/allocations", "/v1/jobs"}; !slices.Equal(calls, want) {
			t.Fatalf("listing %d nodes made calls %v, want %v", len(nodes), calls, want)
		}
		if c.filter.NodePool == five {
			held := 0
			for _, n := range nodes {
				for _, r := range n.Reservations {
					if r.Name == name && r.Request.MemoryMB == 16 {
						held++
					}
				}
			}
			if held != 3 {
				t.Fatalf("the five-node pool lists %d reservations named %s, want 3", held, name)
			}
		}
		t.Logf("%s: %d nodes, calls %v", c.what, len(nodes), calls)
	}
}
