package nomadclient

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"
)

// blockingAllocations answers a job's allocation listing the way Nomad
// answers a blocking query: a request whose index has not been passed
// waits for its wait time, then gets the same answer. Each call of next
// moves the fake to the next answer, at a higher index.
type blockingAllocations struct {
	mu      sync.Mutex
	index   uint64
	answers [][]*api.AllocationListStub
}

func (b *blockingAllocations) serve(w http.ResponseWriter, r *http.Request) {
	b.mu.Lock()
	current, allocs := b.index, b.answers[min(int(b.index)-1, len(b.answers)-1)]
	// Each request that did not block moves on to the next answer.
	if r.URL.Query().Get("index") == "" || b.index < uint64(len(b.answers)) {
		b.index++
	}
	b.mu.Unlock()
	if asked, _ := strconv.ParseUint(r.URL.Query().Get("index"), 10, 64); asked >= current {
		wait, _ := time.ParseDuration(r.URL.Query().Get("wait"))
		select {
		case <-time.After(wait):
		case <-r.Context().Done():
			return
		}
	}
	body, _ := json.Marshal(allocs)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Nomad-Index", strconv.FormatUint(current, 10))
	_, _ = w.Write(body)
}

func taskAlloc(client string, ts *api.TaskState) *api.AllocationListStub {
	return &api.AllocationListStub{ID: "a1a1a1a1-0000-4000-8000-000000000000", NodeID: "n1n1n1n1-0000-4000-8000-000000000000",
		ClientStatus: client, CreateIndex: 3, TaskStates: map[string]*api.TaskState{"work": ts}}
}

// TestWaitTaskRunning_blockingQueries: after the first listing every wait
// is a Nomad blocking query on the index Nomad last reported, with a wait
// bounded by the caller's deadline, and a task that has run to completion
// ends the wait.
func TestWaitTaskRunning_blockingQueries(t *testing.T) {
	t.Parallel()
	f := newFakeNomad(t)
	f.handle("GET /v1/evaluation/"+testEvalID, replyJSON(&api.Evaluation{ID: testEvalID, Status: "complete"}))
	b := &blockingAllocations{index: 1, answers: [][]*api.AllocationListStub{
		{taskAlloc("pending", &api.TaskState{State: "pending"})},
		{taskAlloc("complete", &api.TaskState{State: "dead", StartedAt: time.Now().Add(-time.Second)})},
	}}
	f.handle("GET /v1/job/lease/allocations", b.serve)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	got, err := f.client().waitTaskRunning(ctx, "default", "lease", testEvalID, "work")
	if err != nil || got == nil {
		t.Fatalf("WaitTaskRunning = %v, %v; want the completed allocation", got, err)
	}
	reqs := f.requests("/v1/job/lease/allocations")
	if len(reqs) < 2 {
		t.Fatalf("%d allocation listings, want at least 2", len(reqs))
	}
	if q := reqs[0].Query; q.Get("index") != "" {
		t.Errorf("first listing blocks (index %q); want an immediate answer", q.Get("index"))
	}
	for i, r := range reqs[1:] {
		wait, err := time.ParseDuration(r.Query.Get("wait"))
		if r.Query.Get("index") == "" || r.Query.Get("index") == "0" || err != nil {
			t.Errorf("listing %d: index %q, wait %q; want a blocking query", i+2, r.Query.Get("index"), r.Query.Get("wait"))
		} else if wait <= 0 || wait > 30*time.Second {
			t.Errorf("listing %d waits %s; want at most the 30s left before the deadline", i+2, wait)
		}
	}
}

// TestWaitTaskRunning_settlesWithoutPolling: a running task counts once it
// has run for settleTime; the blocking query waits just that long instead
// of polling, so a handful of listings suffice.
func TestWaitTaskRunning_settlesWithoutPolling(t *testing.T) {
	t.Parallel()
	f := newFakeNomad(t)
	f.handle("GET /v1/evaluation/"+testEvalID, replyJSON(&api.Evaluation{ID: testEvalID, Status: "complete"}))
	b := &blockingAllocations{index: 1, answers: [][]*api.AllocationListStub{
		{taskAlloc("running", &api.TaskState{State: "running", StartedAt: time.Now()})},
	}}
	f.handle("GET /v1/job/lease/allocations", b.serve)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := f.client().waitTaskRunning(ctx, "default", "lease", testEvalID, "work"); err != nil {
		t.Fatalf("WaitTaskRunning: %v", err)
	}
	if n := f.count("/v1/job/lease/allocations"); n > 4 {
		t.Errorf("%d allocation listings while the task settled; want a blocking wait, not polling", n)
	}
	for _, r := range f.requests("/v1/job/lease/allocations")[1:] {
		if wait, err := time.ParseDuration(r.Query.Get("wait")); err != nil || r.Query.Get("index") == "" || wait > settleTime {
			t.Errorf("a settling task is waited on with index %q, wait %q; want a blocking query of at most %s",
				r.Query.Get("index"), r.Query.Get("wait"), settleTime)
		}
	}
}

// TestWaitTaskRunning_endsWithTheDeadline: a task that never starts ends
// the wait at the caller's deadline with what it waited for.
func TestWaitTaskRunning_endsWithTheDeadline(t *testing.T) {
	t.Parallel()
	f := newFakeNomad(t)
	f.handle("GET /v1/evaluation/"+testEvalID, replyJSON(&api.Evaluation{ID: testEvalID, Status: "complete"}))
	b := &blockingAllocations{index: 1, answers: [][]*api.AllocationListStub{
		{taskAlloc("pending", &api.TaskState{State: "pending"})},
	}}
	f.handle("GET /v1/job/lease/allocations", b.serve)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_, err := f.client().waitTaskRunning(ctx, "default", "lease", testEvalID, "work")
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), `gave up waiting for task "work" of job "lease" to run`) ||
		!strings.Contains(err.Error(), "task pending") {
		t.Fatalf("err = %v; want the deadline, naming the task and its last state", err)
	}
}

// TestWaitTaskRunning_allocationEnded: an allocation that ended (any
// status that is not live) before its task ran fails the wait with the
// task's events.
func TestWaitTaskRunning_allocationEnded(t *testing.T) {
	t.Parallel()
	for _, status := range []string{"failed", "complete", "lost"} {
		t.Run(status, func(t *testing.T) {
			t.Parallel()
			f := newFakeNomad(t)
			f.handle("GET /v1/evaluation/"+testEvalID, replyJSON(&api.Evaluation{ID: testEvalID, Status: "complete"}))
			f.handle("GET /v1/job/lease/allocations", replyJSON([]*api.AllocationListStub{taskAlloc(status, &api.TaskState{State: "pending"})}))
			_, err := f.client().waitTaskRunning(context.Background(), "default", "lease", testEvalID, "work")
			var re *RolloutError
			if !errors.As(err, &re) || re.Reason != `task "work" did not start` {
				t.Fatalf("err = %v; want a RolloutError saying the task did not start", err)
			}
		})
	}
}

func TestNewestTaskOutcome(t *testing.T) {
	t.Parallel()
	older := taskAlloc("failed", &api.TaskState{State: "dead", Failed: true})
	older.CreateIndex = 1
	for name, tc := range map[string]struct {
		allocs []*api.AllocationListStub
		want   TaskOutcome
	}{
		"none": {nil, TaskOutcome{}},
		"pending": {[]*api.AllocationListStub{taskAlloc("pending", &api.TaskState{State: "pending"})},
			TaskOutcome{NodeID: "n1n1n1n1-0000-4000-8000-000000000000", AllocationID: "a1a1a1a1-0000-4000-8000-000000000000"}},
		"running, newest wins": {[]*api.AllocationListStub{older, taskAlloc("running", &api.TaskState{State: "running"})},
			TaskOutcome{NodeID: "n1n1n1n1-0000-4000-8000-000000000000", AllocationID: "a1a1a1a1-0000-4000-8000-000000000000", Running: true}},
		"allocation lost": {[]*api.AllocationListStub{func() *api.AllocationListStub {
			a := taskAlloc("lost", &api.TaskState{State: "pending"})
			a.ClientDescription = "node down"
			return a
		}()}, TaskOutcome{NodeID: "n1n1n1n1-0000-4000-8000-000000000000", AllocationID: "a1a1a1a1-0000-4000-8000-000000000000",
			Failed: true, Error: "allocation a1a1a1a1-0000-4000-8000-000000000000 is lost: node down"}},
	} {
		if got := NewestTaskOutcome(tc.allocs, "work"); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: NewestTaskOutcome = %+v, want %+v", name, got, tc.want)
		}
	}
	failed := NewestTaskOutcome([]*api.AllocationListStub{taskAlloc("failed", &api.TaskState{State: "dead", Failed: true,
		Events: []*api.TaskEvent{{Type: "Driver Failure", DisplayMessage: "image not found"}}})}, "work")
	if !failed.Failed || !strings.Contains(failed.Error, "image not found") {
		t.Errorf("failed task: %+v, want Failed with the task's events", failed)
	}
}
