package provider

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/berthhq/terraform-provider-berth/internal/devagent"
)

// testFleet is a set of extra client agents several node tests share, so
// the suite pays for starting them once.
type testFleet struct {
	// capacity sits alone in its own node pool: only the capacity test
	// places work there, so its numbers are exact.
	capacity *devagent.Agent
	capPool  string
	// twins share a name and an ID prefix, for ambiguous lookups.
	twins      [2]*devagent.Agent
	twinName   string
	twinPrefix string
	// resvA and resvB share a node pool for the node reservation tests;
	// conc sits alone in another for the concurrency test.
	resvA, resvB *devagent.Agent
	resvPool     string
	conc         *devagent.Agent
	concPool     string
	// holdA and holdB are for scheduler hold tests: each sits alone in its
	// own node pool (holdPoolA, holdPoolB) with the fixed size holdCPU,
	// holdMemoryMB and holdDiskMB, all of it allocatable, so every number is
	// exact. Tests that count capacity on one of them take it with
	// useNodeAlone first.
	holdA, holdB         *devagent.Agent
	holdPoolA, holdPoolB string
}

// The fixed size of the hold nodes (holdA, holdB).
const (
	holdCPU      = 1000 // MHz
	holdMemoryMB = 1024
	holdDiskMB   = 2048
)

// nodeLocks serialize the tests that need a fleet node to themselves.
var nodeLocks sync.Map // node ID -> *sync.Mutex

// useNodeAlone gives the test exclusive use of the nodes among the tests
// that call it, until the test and its cleanups end: parallel tests that
// count capacity on the same node wait for each other instead of
// disturbing each other's numbers. Nodes are taken in node ID order, so
// two tests taking the same nodes cannot deadlock. Call it before
// registering any cleanup that must run while the node is still held.
func useNodeAlone(t *testing.T, nodes ...*devagent.Agent) {
	t.Helper()
	ids := make([]string, 0, len(nodes))
	for _, n := range nodes {
		if !slices.Contains(ids, n.NodeID) {
			ids = append(ids, n.NodeID)
		}
	}
	slices.Sort(ids)
	for _, id := range ids {
		mu, _ := nodeLocks.LoadOrStore(id, &sync.Mutex{})
		mu.(*sync.Mutex).Lock()
		t.Cleanup(mu.(*sync.Mutex).Unlock)
	}
}

var (
	fleetOnce sync.Once
	fleet     *testFleet
	fleetErr  error
)

// sharedFleet starts the fleet on first use.
func sharedFleet(t *testing.T) *testFleet {
	t.Helper()
	if mainAgent == nil {
		t.Skip("needs a Nomad server started by the tests or make (extra client agents join it); NOMAD_ADDR points at an existing cluster")
	}
	fleetOnce.Do(func() {
		sfx := randomHex(4)
		f := &testFleet{capPool: "berth-acc-cap-" + sfx, twinName: "berth-acc-twin-" + sfx, twinPrefix: randomHex(4)}
		var err error
		if f.capacity, err = startClient(devagent.Options{Name: "berth-acc-cap-" + sfx, NodePool: f.capPool}); err != nil {
			fleetErr = err
			return
		}
		for i := range f.twins {
			id := fmt.Sprintf("%s-%s-%s-%s-%s", f.twinPrefix, randomHex(2), randomHex(2), randomHex(2), randomHex(6))
			if f.twins[i], err = startClient(devagent.Options{Name: f.twinName, NodeClass: "twin", NodeID: id}); err != nil {
				fleetErr = err
				return
			}
		}
		f.resvPool, f.concPool = "berth-acc-resv-"+sfx, "berth-acc-conc-"+sfx
		for _, c := range []struct {
			dst        **devagent.Agent
			name, pool string
		}{
			{&f.resvA, "berth-acc-resv-a-" + sfx, f.resvPool},
			{&f.resvB, "berth-acc-resv-b-" + sfx, f.resvPool},
			{&f.conc, "berth-acc-conc-" + sfx, f.concPool},
		} {
			if *c.dst, err = startClient(devagent.Options{Name: c.name, NodePool: c.pool}); err != nil {
				fleetErr = err
				return
			}
		}
		f.holdPoolA, f.holdPoolB = "berth-acc-hold-a-"+sfx, "berth-acc-hold-b-"+sfx
		for _, c := range []struct {
			dst  **devagent.Agent
			pool string
		}{{&f.holdA, f.holdPoolA}, {&f.holdB, f.holdPoolB}} {
			*c.dst, err = startClient(devagent.Options{
				Name: c.pool, NodePool: c.pool, ChrootEnv: devagent.MinimalChrootEnv(),
				CPUTotalMHz: holdCPU, MemoryTotalMB: holdMemoryMB, DiskTotalMB: holdDiskMB,
			})
			if err != nil {
				fleetErr = err
				return
			}
		}
		fleet = f
	})
	if fleet == nil {
		t.Fatalf("test fleet failed to start: %v", fleetErr)
	}
	return fleet
}

func randomHex(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	return hex.EncodeToString(b)
}
