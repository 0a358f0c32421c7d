package nomadclient

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"
)

// canaryDeployment is a running deployment of job version 3 whose group
// "app" wants one canary, with placed and healthy canaries as given.
func canaryDeployment(placed, healthy int, promoted bool) *api.Deployment {
	s := &api.DeploymentState{DesiredCanaries: 1, DesiredTotal: 2, HealthyAllocs: healthy, Promoted: promoted}
	for range placed {
		s.PlacedCanaries = append(s.PlacedCanaries, "c1c1c1c1")
	}
	return &api.Deployment{ID: testDepID, JobVersion: 3, JobCreateIndex: 7, Status: api.DeploymentStatusRunning,
		TaskGroups: map[string]*api.DeploymentState{"app": s}}
}

func TestAwaitingPromotion(t *testing.T) {
	succeeded := canaryDeployment(1, 1, false)
	succeeded.Status = api.DeploymentStatusSuccessful
	tests := []struct {
		name          string
		d             *api.Deployment
		awaiting, can bool
	}{
		{"nil", nil, false, false},
		{"no canaries", &api.Deployment{Status: api.DeploymentStatusRunning,
			TaskGroups: map[string]*api.DeploymentState{"app": {DesiredTotal: 2}}}, false, true},
		{"canary not placed", canaryDeployment(0, 0, false), true, false},
		{"canary placed, not healthy", canaryDeployment(1, 0, false), true, false},
		{"canary healthy", canaryDeployment(1, 1, false), true, true},
		{"promoted", canaryDeployment(1, 1, true), false, true},
		{"not running", succeeded, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := awaitingPromotion(tt.d); got != tt.awaiting {
				t.Errorf("AwaitingPromotion = %v, want %v", got, tt.awaiting)
			}
			if tt.d != nil {
				if got := canariesReady(tt.d); got != tt.can {
					t.Errorf("canariesReady = %v, want %v", got, tt.can)
				}
			}
		})
	}
}

func canaryJob(autoPromote bool) *api.Job {
	return &api.Job{ID: ptr("web"), Namespace: ptr("apps"), Version: ptr(uint64(3)), CreateIndex: ptr(uint64(7)),
		TaskGroups: []*api.TaskGroup{{Name: ptr("app"), Update: &api.UpdateStrategy{Canary: ptr(1), AutoPromote: ptr(autoPromote)}}}}
}

// TestWaitForRolloutStopsAtPromotion: with canaries promoted by hand the
// wait ends once they are healthy, and not before; with auto_promote it
// goes on until the deployment ends.
func TestWaitForRolloutStopsAtPromotion(t *testing.T) {
	evalOK := replyJSON(&api.Evaluation{ID: testEvalID, Status: "complete"})
	t.Run("manual promotion", func(t *testing.T) {
		f := newFakeNomad(t)
		f.handle("GET /v1/evaluation/"+testEvalID, evalOK)
		f.handle("GET /v1/job/web", replyJSON(canaryJob(false)))
		f.handle("GET /v1/job/web/deployment", replyJSON(canaryDeployment(0, 0, false)))
		f.handle("GET /v1/deployment/"+testDepID, replySequence(
			replyJSON(canaryDeployment(0, 0, false)), replyJSON(canaryDeployment(1, 0, false)), replyJSON(canaryDeployment(1, 1, false))))
		dep, _, err := f.client().waitForRollout(context.Background(), "apps", "web", testEvalID)
		if err != nil || !awaitingPromotion(dep) || !canariesReady(dep) {
			t.Fatalf("WaitForRollout = %+v, %v; want the deployment with its canary healthy", dep, err)
		}
		if n := f.count("/v1/deployment/" + testDepID); n != 3 {
			t.Errorf("%d deployment reads, want 3 (until the canary was healthy)", n)
		}
	})
	t.Run("auto promotion goes on", func(t *testing.T) {
		f := newFakeNomad(t)
		done := canaryDeployment(1, 2, true)
		done.Status = api.DeploymentStatusSuccessful
		f.handle("GET /v1/evaluation/"+testEvalID, evalOK)
		f.handle("GET /v1/job/web", replyJSON(canaryJob(true)))
		f.handle("GET /v1/job/web/deployment", replyJSON(canaryDeployment(0, 0, false)))
		f.handle("GET /v1/deployment/"+testDepID, replySequence(replyJSON(canaryDeployment(1, 1, false)), replyJSON(done)))
		dep, _, err := f.client().waitForRollout(context.Background(), "apps", "web", testEvalID)
		if err != nil || dep.Status != api.DeploymentStatusSuccessful {
			t.Fatalf("WaitForRollout = %+v, %v; want the successful deployment", dep, err)
		}
	})
}

func TestWaitForPlacementDoesNotWaitForHealth(t *testing.T) {
	f := newFakeNomad(t)
	f.handle("GET /v1/evaluation/"+testEvalID, replyJSON(&api.Evaluation{ID: testEvalID, Status: "complete"}))
	f.handle("GET /v1/job/web", replyJSON(canaryJob(false)))
	f.handle("GET /v1/job/web/deployment", replyJSON(canaryDeployment(1, 0, false)))
	dep, err := f.client().waitForPlacement(context.Background(), "apps", "web", testEvalID)
	if err != nil || dep == nil || dep.ID != testDepID {
		t.Fatalf("WaitForPlacement = %+v, %v", dep, err)
	}
	if n := f.count("/v1/deployment/" + testDepID); n != 0 {
		t.Errorf("%d deployment reads, want none", n)
	}
}

func TestPromoteCanaries(t *testing.T) {
	promoted := canaryDeployment(1, 1, true)
	done := canaryDeployment(1, 2, true)
	done.Status = api.DeploymentStatusSuccessful

	t.Run("waits for the canary, promotes, waits for the end", func(t *testing.T) {
		f := newFakeNomad(t)
		f.handle("GET /v1/job/web", replyJSON(canaryJob(false)))
		f.handle("GET /v1/job/web/deployment", replyJSON(canaryDeployment(1, 0, false)))
		f.handle("GET /v1/deployment/"+testDepID, replySequence(
			replyJSON(canaryDeployment(1, 0, false)), replyJSON(canaryDeployment(1, 1, false)), replyJSON(promoted), replyJSON(done)))
		f.handle("PUT /v1/deployment/promote/"+testDepID, replyJSON(&api.DeploymentUpdateResponse{}))
		dep, _, err := f.client().promoteCanaries(context.Background(), "apps", "web", PromoteOptions{WaitReady: true, WaitDone: true})
		if err != nil || dep == nil || dep.Status != api.DeploymentStatusSuccessful {
			t.Fatalf("PromoteCanaries = %+v, %v; want the successful deployment", dep, err)
		}
		reqs := f.requests("/v1/deployment/promote/" + testDepID)
		if len(reqs) != 1 || reqs[0].Query.Get("namespace") != "apps" {
			t.Fatalf("promote requests = %+v, want one in namespace apps", reqs)
		}
		if !strings.Contains(string(reqs[0].Body), `"All":true`) {
			t.Errorf("promote body = %s, want all groups", reqs[0].Body)
		}
	})

	t.Run("nothing awaits promotion", func(t *testing.T) {
		f := newFakeNomad(t)
		f.handle("GET /v1/job/web", replyJSON(canaryJob(false)))
		f.handle("GET /v1/job/web/deployment", replyJSON(done))
		dep, _, err := f.client().promoteCanaries(context.Background(), "apps", "web", PromoteOptions{WaitReady: true, WaitDone: true})
		if dep != nil || err != nil {
			t.Fatalf("PromoteCanaries = %+v, %v; want nil, nil", dep, err)
		}
		if n := f.count("/v1/deployment/promote/" + testDepID); n != 0 {
			t.Errorf("%d promote requests, want none", n)
		}
	})

	t.Run("deployment of an earlier incarnation of the job", func(t *testing.T) {
		f := newFakeNomad(t)
		old := canaryDeployment(1, 1, false)
		old.JobCreateIndex = 2
		f.handle("GET /v1/job/web", replyJSON(canaryJob(false)))
		f.handle("GET /v1/job/web/deployment", replyJSON(old))
		if dep, _, err := f.client().promoteCanaries(context.Background(), "apps", "web", PromoteOptions{}); dep != nil || err != nil {
			t.Fatalf("PromoteCanaries = %+v, %v; want nil, nil", dep, err)
		}
	})

	t.Run("refused without waiting when health is manual", func(t *testing.T) {
		f := newFakeNomad(t)
		f.handle("GET /v1/job/web", replyJSON(canaryJob(false)))
		f.handle("GET /v1/job/web/deployment", replyJSON(canaryDeployment(1, 0, false)))
		f.handle("GET /v1/deployment/"+testDepID, replyJSON(canaryDeployment(1, 0, false)))
		f.handle("PUT /v1/deployment/promote/"+testDepID, replyRaw(400, `Task group "app" has 0/1 healthy allocations`))
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_, _, err := f.client().promoteCanaries(ctx, "apps", "web", PromoteOptions{})
		var re *RolloutError
		if !errors.As(err, &re) || !strings.Contains(re.Reason, "0/1 healthy allocations") {
			t.Fatalf("err = %v, want a RolloutError quoting Nomad", err)
		}
	})

	t.Run("lost answer of an applied promotion", func(t *testing.T) {
		f := newFakeNomad(t)
		f.handle("GET /v1/job/web", replyJSON(canaryJob(false)))
		f.handle("GET /v1/job/web/deployment", replyJSON(canaryDeployment(1, 1, false)))
		f.handle("GET /v1/deployment/"+testDepID, replySequence(replyJSON(canaryDeployment(1, 1, false)), replyJSON(promoted), replyJSON(done)))
		f.handle("PUT /v1/deployment/promote/"+testDepID, replyRaw(500, "leader lost"))
		dep, _, err := f.client().promoteCanaries(context.Background(), "apps", "web", PromoteOptions{WaitReady: true, WaitDone: true})
		if err != nil || dep.Status != api.DeploymentStatusSuccessful {
			t.Fatalf("PromoteCanaries = %+v, %v; want the successful deployment", dep, err)
		}
	})
}
