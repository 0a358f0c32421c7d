package acctest

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
	// Capacity sits alone in its own node pool: only the capacity test
	// places work there, so its numbers are exact.
	Capacity *devagent.Agent
	CapPool  string
	// Twins share a name and an ID prefix, for ambiguous lookups.
	Twins      [2]*devagent.Agent
	TwinName   string
	TwinPrefix string
	// ResvA and resvB share a node pool for the node reservation tests;
	// conc sits alone in another for the concurrency test.
	ResvA, ResvB *devagent.Agent
	ResvPool     string
	Conc         *devagent.Agent
	concPool     string
	// HoldA and holdB are for scheduler hold tests: each sits alone in its
	// own node pool (holdPoolA, holdPoolB) with the fixed size holdCPU,
	// holdMemoryMB and holdDiskMB, all of it allocatable, so every number is
	// exact. Tests that count capacity on one of them take it with
	// UseNodeAlone first.
	HoldA, HoldB         *devagent.Agent
	HoldPoolA, HoldPoolB string
}

// The fixed size of the hold nodes (holdA, holdB).
const (
	HoldCPU      = 1000 // MHz
	HoldMemoryMB = 1024
	HoldDiskMB   = 2048
)

// nodeLocks serialize the tests that need a fleet node to themselves.
var nodeLocks sync.Map // node ID -> *sync.Mutex

// UseNodeAlone gives the test exclusive use of the nodes among the tests
// that call it, until the test and its cleanups end: parallel tests that
// count capacity on the same node wait for each other instead of
// disturbing each other's numbers. Nodes are taken in node ID order, so
// two tests taking the same nodes cannot deadlock. Call it before
// registering any cleanup that must run while the node is still held.
func UseNodeAlone(t *testing.T, nodes ...*devagent.Agent) {
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

// SharedFleet starts the fleet on first use.
func SharedFleet(t *testing.T) *testFleet {
	t.Helper()
	if MainAgent == nil {
		t.Skip("needs a Nomad server started by the tests or make (extra client agents join it); NOMAD_ADDR points at an existing cluster")
	}
	fleetOnce.Do(func() {
		sfx := RandomHex(4)
		f := &testFleet{CapPool: "berth-acc-cap-" + sfx, TwinName: "berth-acc-twin-" + sfx, TwinPrefix: RandomHex(4)}
		var err error
		if f.Capacity, err = StartClient(devagent.Options{Name: "berth-acc-cap-" + sfx, NodePool: f.CapPool}); err != nil {
			fleetErr = err
			return
		}
		for i := range f.Twins {
			id := fmt.Sprintf("%s-%s-%s-%s-%s", f.TwinPrefix, RandomHex(2), RandomHex(2), RandomHex(2), RandomHex(6))
			if f.Twins[i], err = StartClient(devagent.Options{Name: f.TwinName, NodeClass: "twin", NodeID: id}); err != nil {
				fleetErr = err
				return
			}
		}
		f.ResvPool, f.concPool = "berth-acc-resv-"+sfx, "berth-acc-conc-"+sfx
		for _, c := range []struct {
			dst        **devagent.Agent
			name, pool string
		}{
			{&f.ResvA, "berth-acc-resv-a-" + sfx, f.ResvPool},
			{&f.ResvB, "berth-acc-resv-b-" + sfx, f.ResvPool},
			{&f.Conc, "berth-acc-conc-" + sfx, f.concPool},
		} {
			if *c.dst, err = StartClient(devagent.Options{Name: c.name, NodePool: c.pool}); err != nil {
				fleetErr = err
				return
			}
		}
		f.HoldPoolA, f.HoldPoolB = "berth-acc-hold-a-"+sfx, "berth-acc-hold-b-"+sfx
		for _, c := range []struct {
			dst  **devagent.Agent
			pool string
		}{{&f.HoldA, f.HoldPoolA}, {&f.HoldB, f.HoldPoolB}} {
			*c.dst, err = StartClient(devagent.Options{
				Name: c.pool, NodePool: c.pool, ChrootEnv: devagent.MinimalChrootEnv(),
				CPUTotalMHz: HoldCPU, MemoryTotalMB: HoldMemoryMB, DiskTotalMB: HoldDiskMB,
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

func RandomHex(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	return hex.EncodeToString(b)
}
