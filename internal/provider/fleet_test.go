package provider

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
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
