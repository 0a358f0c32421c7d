package nomadclient

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/hashicorp/nomad/api"

	"github.com/berthhq/terraform-provider-berth/internal/instance"
)

// versionOf is version n of job "web", modified at index 10+n.
func versionOf(n uint64, stable bool) *api.Job {
	return &api.Job{ID: ptr("web"), Namespace: ptr("apps"), Version: ptr(n), Stable: ptr(stable), JobModifyIndex: ptr(10 + n)}
}

// webHistory: version 2 is current, 1 never became stable, 0 did.
func webHistory() http.HandlerFunc {
	return replyJSON(api.JobVersionsResponse{Versions: []*api.Job{versionOf(2, false), versionOf(1, false), versionOf(0, true)}})
}

// revertRequests decodes the revert requests the fake received.
func revertRequests(t *testing.T, f *fakeNomad) []api.JobRevertRequest {
	t.Helper()
	var out []api.JobRevertRequest
	for _, r := range f.requests("/v1/job/web/revert") {
		var req api.JobRevertRequest
		if err := json.Unmarshal(r.Body, &req); err != nil {
			t.Fatal(err)
		}
		out = append(out, req)
	}
	return out
}

func TestRevertJob(t *testing.T) {
	ctx := context.Background()
	t.Run("previous stable version, check-and-set on the current one", func(t *testing.T) {
		f := newFakeNomad(t)
		f.handle("GET /v1/job/web/versions", webHistory())
		f.handle("PUT /v1/job/web/revert", replyJSON(api.JobRegisterResponse{EvalID: testEvalID}))
		res, err := f.client().RevertJob(ctx, "apps", "web", nil)
		if err != nil || res.From != 2 || res.To != 0 || res.EvalID != testEvalID {
			t.Fatalf("RevertJob = %+v, %v; want 2 -> 0 with the evaluation", res, err)
		}
		reqs := revertRequests(t, f)
		if len(reqs) != 1 || reqs[0].JobVersion != 0 || reqs[0].EnforcePriorVersion == nil || *reqs[0].EnforcePriorVersion != 2 {
			t.Fatalf("revert requests %+v; want one to version 0 enforcing prior version 2", reqs)
		}
	})
	t.Run("a refused version sends nothing", func(t *testing.T) {
		f := newFakeNomad(t)
		f.handle("GET /v1/job/web/versions", webHistory())
		_, err := f.client().RevertJob(ctx, "apps", "web", ptr(uint64(7)))
		var r *instance.RevertRefusal
		if !errors.As(err, &r) {
			t.Fatalf("RevertJob = %v; want a RevertRefusal", err)
		}
		if n := f.count("/v1/job/web/revert"); n != 0 {
			t.Errorf("%d revert requests, want none", n)
		}
	})
	t.Run("a concurrent change is a conflict, not retried", func(t *testing.T) {
		f := newFakeNomad(t)
		f.handle("GET /v1/job/web/versions", webHistory())
		f.handle("PUT /v1/job/web/revert", replyRaw(500, "Current job has version 3; enforcing version 2"))
		_, err := f.client().RevertJob(ctx, "apps", "web", ptr(uint64(1)))
		if !IsRevertConflict(err) || OutcomeUnknown(err) {
			t.Fatalf("RevertJob = %v; want a RevertConflictError", err)
		}
		if n := f.count("/v1/job/web/revert"); n != 1 {
			t.Errorf("%d revert requests, want 1", n)
		}
	})
	t.Run("a lost answer with the job unchanged is sent again", func(t *testing.T) {
		f := newFakeNomad(t)
		f.handle("GET /v1/job/web/versions", webHistory())
		f.handle("GET /v1/job/web", replyJSON(versionOf(2, false)))
		f.handle("PUT /v1/job/web/revert", replySequence(replyRaw(502, "bad gateway"),
			replyJSON(api.JobRegisterResponse{EvalID: testEvalID})))
		res, err := f.client().RevertJob(ctx, "apps", "web", ptr(uint64(1)))
		if err != nil || res.EvalID != testEvalID {
			t.Fatalf("RevertJob = %+v, %v", res, err)
		}
		if n := f.count("/v1/job/web/revert"); n != 2 {
			t.Errorf("%d revert requests, want 2", n)
		}
	})
	t.Run("a lost answer whose revert landed is not sent twice", func(t *testing.T) {
		f := newFakeNomad(t)
		f.handle("GET /v1/job/web/versions", webHistory())
		f.handle("GET /v1/job/web", replyJSON(versionOf(3, false)))
		f.handle("PUT /v1/job/web/plan", replyJSON(api.JobPlanResponse{Diff: &api.JobDiff{Type: "None"}}))
		f.handle("GET /v1/job/web/evaluations", replyJSON([]*api.Evaluation{{ID: testEvalID, JobModifyIndex: 13, CreateIndex: 14}}))
		f.handle("PUT /v1/job/web/revert", replyRaw(502, "bad gateway"))
		res, err := f.client().RevertJob(ctx, "apps", "web", ptr(uint64(1)))
		if err != nil || res.EvalID != testEvalID || res.To != 1 {
			t.Fatalf("RevertJob = %+v, %v; want the landed revert", res, err)
		}
		if n := f.count("/v1/job/web/revert"); n != 1 {
			t.Errorf("%d revert requests, want 1", n)
		}
		var plan api.JobPlanRequest
		if err := json.Unmarshal(f.requests("/v1/job/web/plan")[0].Body, &plan); err != nil || deref(plan.Job.Version) != 1 {
			t.Errorf("compared the live job with version %d (%v), want 1", deref(plan.Job.Version), err)
		}
	})
	t.Run("a lost answer and someone else's change is a conflict", func(t *testing.T) {
		f := newFakeNomad(t)
		f.handle("GET /v1/job/web/versions", webHistory())
		f.handle("GET /v1/job/web", replyJSON(versionOf(3, false)))
		f.handle("PUT /v1/job/web/plan", replyJSON(api.JobPlanResponse{Diff: &api.JobDiff{Type: "Edited"}}))
		f.handle("PUT /v1/job/web/revert", replySequence(replyRaw(502, "bad gateway"),
			replyRaw(500, "Current job has version 3; enforcing version 2")))
		_, err := f.client().RevertJob(ctx, "apps", "web", ptr(uint64(1)))
		if !IsRevertConflict(err) || !strings.Contains(err.Error(), "version 3") {
			t.Fatalf("RevertJob = %v; want a RevertConflictError quoting Nomad", err)
		}
	})
}
