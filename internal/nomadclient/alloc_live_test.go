package nomadclient

import (
	"context"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/hashicorp/nomad/api"
)

// An allocation on a disconnected client ("unknown") may still run: the
// wait before a purge must not end while one is there, and a volume it
// mounts is in use.
func TestWaitAllocationsStopped_unknownIsLive(t *testing.T) {
	t.Parallel()
	f := newFakeNomad(t)
	allocs := []*api.AllocationListStub{
		{ID: "a1", ClientStatus: api.AllocClientStatusComplete},
		{ID: "a2", ClientStatus: api.AllocClientStatusUnknown},
	}
	// Give up at Nomad's third answer: by then the wait has seen the
	// allocation twice and kept going, whatever the machine's speed.
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var calls atomic.Int32
	f.handle("GET /v1/job/web/allocations", func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 3 {
			cancel()
		}
		replyJSON(allocs)(w, r)
	})
	if err := f.client().WaitAllocationsStopped(ctx, "default", "web"); err == nil {
		t.Fatal("the wait ended although an allocation may still run on a disconnected client")
	}
	if n := calls.Load(); n < 3 {
		t.Fatalf("the wait stopped after %d reads", n)
	}
	live, state := liveSummary(allocs)
	if live != 1 || !strings.Contains(state, "1 still running, 1 of them on a disconnected client") {
		t.Fatalf("liveSummary = %d, %q", live, state)
	}
}

func TestWaitAllocationsStopped_terminalEnds(t *testing.T) {
	t.Parallel()
	f := newFakeNomad(t)
	f.handle("GET /v1/job/web/allocations", replyJSON([]*api.AllocationListStub{
		{ID: "a1", ClientStatus: api.AllocClientStatusComplete},
		{ID: "a2", ClientStatus: api.AllocClientStatusFailed},
		{ID: "a3", ClientStatus: api.AllocClientStatusLost},
	}))
	if err := f.client().WaitAllocationsStopped(t.Context(), "default", "web"); err != nil {
		t.Fatal(err)
	}
}
