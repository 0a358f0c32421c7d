package nomadclient

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"
)

func TestDetectedDrivers_reusedWhileFresh(t *testing.T) {
	f := newFakeNomad(t)
	f.handle("GET /v1/nodes", replyJSON([]*api.NodeListStub{
		{ID: testNodeID, Drivers: map[string]*api.DriverInfo{"exec": {Detected: true}, "docker": {Detected: false}}},
	}))
	c := f.client()
	now := time.Date(2026, 11, 23, 8, 0, 0, 0, time.UTC)
	c.drivers.now = func() time.Time { return now }

	var wg sync.WaitGroup
	for range 10 {
		wg.Go(func() {
			known, nodes, err := c.DetectedDrivers(context.Background())
			if err != nil || nodes != 1 || !known["exec"] || known["docker"] {
				t.Errorf("DetectedDrivers = %v, %d, %v; want exec only on 1 node", known, nodes, err)
			}
			known["mutated"] = true // callers own their copy
		})
	}
	wg.Wait()
	if n := f.count("/v1/nodes"); n != 1 {
		t.Fatalf("10 concurrent lookups made %d node list requests, want 1", n)
	}

	now = now.Add(driversFresh)
	known, _, err := c.DetectedDrivers(context.Background())
	if err != nil || known["mutated"] {
		t.Fatalf("after expiry: %v %v", known, err)
	}
	if n := f.count("/v1/nodes"); n != 2 {
		t.Fatalf("a lookup after %s made %d requests in all, want 2", driversFresh, n)
	}
}

func TestDetectedDrivers_emptyClusterAskedAgain(t *testing.T) {
	f := newFakeNomad(t)
	f.handle("GET /v1/nodes", replyJSON([]*api.NodeListStub{}))
	c := f.client()
	for range 2 {
		if _, nodes, err := c.DetectedDrivers(context.Background()); err != nil || nodes != 0 {
			t.Fatalf("nodes %d, err %v", nodes, err)
		}
	}
	if n := f.count("/v1/nodes"); n != 2 {
		t.Fatalf("%d requests, want 2: a cluster with no nodes is not remembered", n)
	}
}
