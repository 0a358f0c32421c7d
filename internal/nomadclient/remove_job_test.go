package nomadclient

import (
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/nomad/api"
)

// The deregistration answers at index 7 (replyRaw's X-Nomad-Index), so the
// wait on its evaluation must start blocking there: one read, not a first
// unblocked one.
func TestRemoveJobStopsAndPurgesInOneRequestThenWaitsOnTheEvaluation(t *testing.T) {
	f := newFakeNomad(t)
	f.handle("DELETE /v1/job/web", replyJSON(api.JobDeregisterResponse{EvalID: "e1"}))
	f.handle("GET /v1/evaluation/e1", replyJSON(api.Evaluation{ID: "e1", Status: "complete"}))
	if err := f.client().RemoveJob(context.Background(), "apps", "web", Removal{Purge: true}); err != nil {
		t.Fatalf("RemoveJob: %v", err)
	}
	if n := f.total(); n != 2 {
		t.Errorf("%d requests, want 2 (deregister with purge, one blocking read of its evaluation)", n)
	}
	if got := f.requests("/v1/job/web")[0].Query.Get("purge"); got != "true" {
		t.Errorf("purge = %q, want true in the one deregistration", got)
	}
	if got := f.requests("/v1/evaluation/e1")[0].Query.Get("index"); got != "7" {
		t.Errorf("evaluation read at index %q, want 7 (the deregistration's)", got)
	}
}

func TestRemoveJobWaitsWhileTheEvaluationIsPending(t *testing.T) {
	f := newFakeNomad(t)
	f.handle("DELETE /v1/job/web", replyJSON(api.JobDeregisterResponse{EvalID: "e1"}))
	f.handle("GET /v1/evaluation/e1", replySequence(
		replyJSON(api.Evaluation{ID: "e1", Status: "pending"}),
		replyJSON(api.Evaluation{ID: "e1", Status: "complete"})))
	if err := f.client().RemoveJob(context.Background(), "apps", "web", Removal{}); err != nil {
		t.Fatalf("RemoveJob: %v", err)
	}
	if n := f.count("/v1/evaluation/e1"); n != 2 {
		t.Errorf("%d evaluation reads, want 2", n)
	}
	if got := f.requests("/v1/job/web")[0].Query.Get("purge"); got == "true" {
		t.Errorf("purged although Purge is false")
	}
}

func TestRemoveJobFailsWhenTheEvaluationFails(t *testing.T) {
	f := newFakeNomad(t)
	f.handle("DELETE /v1/job/web", replyJSON(api.JobDeregisterResponse{EvalID: "e1"}))
	f.handle("GET /v1/evaluation/e1", replyJSON(api.Evaluation{ID: "e1", Status: "failed", StatusDescription: "maximum attempts reached (5)"}))
	err := f.client().RemoveJob(context.Background(), "apps", "web", Removal{Purge: true})
	if err == nil || !strings.Contains(err.Error(), `ended "failed": maximum attempts reached (5)`) {
		t.Fatalf("err = %v, want the evaluation's failure in Nomad's words", err)
	}
}

// A job already gone (404) or an evaluation already collected is removed.
func TestRemoveJobOfAMissingJobOrCollectedEvaluation(t *testing.T) {
	f := newFakeNomad(t)
	f.handle("DELETE /v1/job/gone", replyRaw(404, "job not found"))
	f.handle("DELETE /v1/job/web", replyJSON(api.JobDeregisterResponse{EvalID: "e1"}))
	f.handle("GET /v1/evaluation/e1", replyRaw(404, "eval not found"))
	c := f.client()
	if err := c.RemoveJob(context.Background(), "apps", "gone", Removal{Purge: true}); err != nil {
		t.Errorf("missing job: %v", err)
	}
	if err := c.RemoveJob(context.Background(), "apps", "web", Removal{Purge: true}); err != nil {
		t.Errorf("collected evaluation: %v", err)
	}
	if n := f.total(); n != 3 {
		t.Errorf("%d requests, want 3", n)
	}
}

// UntilStopped waits on the job's allocations (they stay readable after a
// purge) until none may still run, and never on the evaluation.
func TestRemoveJobUntilStoppedWaitsForTheClients(t *testing.T) {
	f := newFakeNomad(t)
	f.handle("DELETE /v1/job/web", replyJSON(api.JobDeregisterResponse{EvalID: "e1"}))
	f.handle("GET /v1/job/web/allocations", replySequence(
		replyJSON([]*api.AllocationListStub{{ID: "a1", DesiredStatus: "stop", ClientStatus: "running"}}),
		replyJSON([]*api.AllocationListStub{{ID: "a1", DesiredStatus: "stop", ClientStatus: "complete"}})))
	if err := f.client().RemoveJob(context.Background(), "apps", "web", Removal{Purge: true, UntilStopped: true}); err != nil {
		t.Fatalf("RemoveJob: %v", err)
	}
	if n := f.count("/v1/job/web/allocations"); n != 2 {
		t.Errorf("%d allocation reads, want 2", n)
	}
	if n := f.count("/v1/evaluation/e1"); n != 0 {
		t.Errorf("%d evaluation reads, want none", n)
	}
}
