package nomadclient

import (
	"encoding/json"
	"testing"

	"github.com/hashicorp/nomad/api"
)

// The scale call carries the job's modify index, so Nomad refuses it when
// the job changed since berth read it.
func TestScaleJob_checkAndSet(t *testing.T) {
	t.Parallel()
	f := newFakeNomad(t)
	f.handle("PUT /v1/job/web/scale", replyJSON(api.JobRegisterResponse{EvalID: "e1", JobModifyIndex: 43}))
	res, err := f.client().ScaleJob(t.Context(), "apps", "web", "app", 3, "why", 42)
	if err != nil {
		t.Fatal(err)
	}
	if res.EvalID != "e1" || res.JobModifyIndex != 43 {
		t.Fatalf("result = %+v", res)
	}
	reqs := f.requests("/v1/job/web/scale")
	if len(reqs) != 1 {
		t.Fatalf("%d scale requests", len(reqs))
	}
	var body api.ScalingRequest
	if err := json.Unmarshal(reqs[0].Body, &body); err != nil {
		t.Fatal(err)
	}
	if body.JobModifyIndex != 42 || body.Count == nil || *body.Count != 3 || body.Target["Group"] != "app" {
		t.Fatalf("scale request = %+v, want count 3 of group app at modify index 42", body)
	}
}

func TestScaleErrors(t *testing.T) {
	t.Parallel()
	f := newFakeNomad(t)
	f.handle("PUT /v1/job/blocked/scale", replyRaw(400, "job scaling blocked due to active deployment"))
	f.handle("PUT /v1/job/moved/scale", replyRaw(500, "Enforcing job modify index 42: job exists with conflicting job modify index: 45"))
	f.handle("PUT /v1/job/policy/scale", replyRaw(400, "group count was greater than scaling policy maximum: 9 > 5"))
	c := f.client()
	_, blocked := c.ScaleJob(t.Context(), "default", "blocked", "app", 1, "", 1)
	_, moved := c.ScaleJob(t.Context(), "default", "moved", "app", 1, "", 42)
	_, policy := c.ScaleJob(t.Context(), "default", "policy", "app", 9, "", 1)
	if !IsScaleBlocked(blocked) || IsScaleBlocked(moved) || IsScaleBlocked(policy) {
		t.Errorf("IsScaleBlocked wrong: %v / %v / %v", blocked, moved, policy)
	}
	if !IsJobIndexConflict(moved) || IsJobIndexConflict(blocked) {
		t.Errorf("IsJobIndexConflict wrong: %v / %v", moved, blocked)
	}
	if !IsBadRequest(policy) || IsBadRequest(moved) {
		t.Errorf("IsBadRequest wrong")
	}
	if got := NomadMessage(policy); got != "group count was greater than scaling policy maximum: 9 > 5" {
		t.Errorf("NomadMessage = %q", got)
	}
}

func TestDeploymentActive(t *testing.T) {
	t.Parallel()
	for status, want := range map[string]bool{
		"running": true, "paused": true, "pending": true, "blocked": true, "unblocking": true, "initializing": true,
		"successful": false, "failed": false, api.DeploymentStatusCancelled: false,
	} {
		if got := DeploymentActive(&api.Deployment{Status: status}); got != want {
			t.Errorf("DeploymentActive(%s) = %v, want %v", status, got, want)
		}
	}
	if DeploymentActive(nil) {
		t.Error("nil deployment is active")
	}
}

func TestActiveDeployment_sameIncarnationOnly(t *testing.T) {
	t.Parallel()
	f := newFakeNomad(t)
	f.handle("GET /v1/job/web/deployment", replyJSON(&api.Deployment{ID: "d1", Status: "running", JobCreateIndex: 10}))
	c := f.client()
	d, err := c.activeDeployment(t.Context(), &api.Job{ID: ptr("web"), Namespace: ptr("default"), CreateIndex: ptr(uint64(10))})
	if err != nil || d == nil || d.ID != "d1" {
		t.Fatalf("ActiveDeployment = %v, %v; want d1", d, err)
	}
	// A job purged and created again under the same name: the old
	// deployment is not its own.
	d, err = c.activeDeployment(t.Context(), &api.Job{ID: ptr("web"), Namespace: ptr("default"), CreateIndex: ptr(uint64(20))})
	if err != nil || d != nil {
		t.Fatalf("ActiveDeployment of a new incarnation = %v, %v; want none", d, err)
	}
}
