package acctest

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
)

// APINode reads one node with its resources.
func APINode(t *testing.T, c *api.Client, id string) *api.Node {
	t.Helper()
	n, _, err := c.Nodes().Info(id, nil)
	if err != nil {
		t.Fatalf("reading node %s from Nomad: %v", id, err)
	}
	return n
}

// MainNode is the node of the agent the tests run against (or, against an
// existing cluster, the first ready node by name).
func MainNode(t *testing.T, c *api.Client) *api.Node {
	t.Helper()
	if MainAgent != nil && MainAgent.NodeID != "" {
		return APINode(t, c, MainAgent.NodeID)
	}
	stubs, _, err := c.Nodes().List(&api.QueryOptions{Filter: `Status == "ready"`})
	if err != nil || len(stubs) == 0 {
		t.Fatalf("no ready node in Nomad (err %v)", err)
	}
	sort.Slice(stubs, func(i, j int) bool { return stubs[i].Name < stubs[j].Name })
	return APINode(t, c, stubs[0].ID)
}

// AllocatableOf computes a node's allocatable capacity from Nomad's raw
// fields: fingerprinted resources minus the agent's reserved block.
func AllocatableOf(n *api.Node) (cpu, mem, disk int64) {
	cpu, mem, disk = n.NodeResources.Cpu.CpuShares, n.NodeResources.Memory.MemoryMB, n.NodeResources.Disk.DiskMB
	if r := n.ReservedResources; r != nil {
		cpu -= int64(r.Cpu.CpuShares)
		mem -= int64(r.Memory.MemoryMB)
		disk -= int64(r.Disk.DiskMB)
	}
	return
}

// CheckAttrInt compares a state attribute with an integer.
func CheckAttrInt(s *terraform.State, addr, key string, want int64) error {
	rs, ok := s.RootModule().Resources[addr]
	if !ok {
		return fmt.Errorf("%s not in state", addr)
	}
	got := rs.Primary.Attributes[key]
	if got != strconv.FormatInt(want, 10) {
		return fmt.Errorf("%s.%s = %q, Nomad says %d", addr, key, got, want)
	}
	return nil
}

// WaitFor polls cond until it holds or the timeout passes, logging what it
// waits for.
func WaitFor(t *testing.T, what string, timeout time.Duration, cond func() (bool, error)) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	start := time.Now()
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	lastLog := start
	for {
		ok, err := cond()
		if ok {
			return
		}
		if time.Since(lastLog) > 10*time.Second {
			t.Logf("still waiting for %s (%s so far, last error: %v)", what, time.Since(start).Round(time.Second), err)
			lastLog = time.Now()
		}
		select {
		case <-ctx.Done():
			t.Fatalf("timed out after %s waiting for %s (last error: %v)", timeout, what, err)
		case <-tick.C:
		}
	}
}
