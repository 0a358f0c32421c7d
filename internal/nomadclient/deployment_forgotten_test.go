package nomadclient

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"
)

// fakeClock is a clock that moves only when a test moves it.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// noHang is a context that ends a wait which would otherwise never end
// (the fake deployment stays running), so a regression fails instead of
// hanging; a passing test ends long before it, on the fake clock.
func noHang(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// forgottenJob is version 3 of job "web": group "app" of two allocations
// with min_healthy_time 10s, so a fully healthy deployment counts as
// forgotten after 10s + forgottenGrace.
func forgottenJob() *api.Job {
	return &api.Job{ID: ptr("web"), Namespace: ptr("apps"), Version: ptr(uint64(3)),
		TaskGroups: []*api.TaskGroup{{Name: ptr("app"), Count: ptr(2), Update: &api.UpdateStrategy{MinHealthyTime: ptr(10 * time.Second)}}}}
}

// appDeployment is deployment testDepID of version 3 with group "app"
// desiring two allocations, healthy of them placed and healthy.
func appDeployment(status string, healthy int) *api.Deployment {
	return &api.Deployment{ID: testDepID, JobID: "web", JobVersion: 3, Status: status, StatusDescription: "Deployment is running",
		TaskGroups: map[string]*api.DeploymentState{"app": {DesiredTotal: 2, PlacedAllocs: 2, HealthyAllocs: healthy}}}
}

func appAlloc(id string, version uint64, client string, healthy *bool) *api.AllocationListStub {
	a := &api.AllocationListStub{ID: id, Name: "web.app[0]", NodeName: "node-1", TaskGroup: "app", JobVersion: version,
		DesiredStatus: api.AllocDesiredStatusRun, ClientStatus: client}
	if healthy != nil {
		a.DeploymentStatus = &api.AllocDeploymentStatus{Healthy: healthy}
	}
	return a
}

// stuckNomad serves a registration whose deployment Nomad leaves running
// with every group healthy, and the job's allocations allocs. Each read of
// the deployment moves clock 15s on, as a blocking read that saw no change
// would take, so the wait sees time pass without waiting for it.
func stuckNomad(t *testing.T, clock *fakeClock, allocs []*api.AllocationListStub) (*fakeNomad, *Client) {
	f := newFakeNomad(t)
	f.handle("GET /v1/evaluation/"+testEvalID, replyJSON(&api.Evaluation{ID: testEvalID, Status: "complete"}))
	f.handle("GET /v1/job/web", replyJSON(forgottenJob()))
	f.handle("GET /v1/job/web/deployment", replyJSON(appDeployment(api.DeploymentStatusRunning, 1)))
	stuck := replyJSON(appDeployment(api.DeploymentStatusRunning, 2))
	f.handle("GET /v1/deployment/"+testDepID, func(w http.ResponseWriter, r *http.Request) {
		clock.advance(15 * time.Second)
		stuck(w, r)
	})
	f.handle("GET /v1/job/web/allocations", replyJSON(allocs))
	c := f.client()
	c.now = clock.Now
	return f, c
}

// TestWaitForRollout_forgottenDeployment: a deployment Nomad leaves
// running once every group is healthy ends the wait after min_healthy_time
// plus the grace, on the client's clock, with a note naming it and what
// Nomad shows, once Nomad's allocations confirm the rollout.
func TestWaitForRollout_forgottenDeployment(t *testing.T) {
	t.Parallel()
	clock := &fakeClock{now: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)}
	f, c := stuckNomad(t, clock, []*api.AllocationListStub{
		appAlloc("aaaaaaaa-1", 3, api.AllocClientStatusRunning, bptr(true)),
		appAlloc("bbbbbbbb-2", 3, api.AllocClientStatusRunning, bptr(true)),
		// Not counted: replaced by a newer allocation, or an older
		// version Nomad stopped.
		func() *api.AllocationListStub {
			a := appAlloc("cccccccc-3", 3, api.AllocClientStatusFailed, bptr(false))
			a.NextAllocation = "bbbbbbbb-2"
			return a
		}(),
		func() *api.AllocationListStub {
			a := appAlloc("dddddddd-4", 2, api.AllocClientStatusComplete, nil)
			a.DesiredStatus = api.AllocDesiredStatusStop
			return a
		}(),
	})
	dep, err := c.WaitForRollout(noHang(t), "apps", "web", testEvalID)
	if err != nil {
		t.Fatalf("WaitForRollout: %v", err)
	}
	if dep == nil || dep.ID != testDepID || dep.Status != api.DeploymentStatusRunning {
		t.Fatalf("deployment = %+v, want %s as Nomad shows it (running)", dep, testDepID)
	}
	for _, want := range []string{
		"Nomad still shows deployment " + testDepID + ` of job "web" (version 3) as "running" (Deployment is running), 45s after berth first saw every task group`,
		`group "app" 2 healthy of 2 desired, 2 placed, 0 unhealthy`,
		"all 2 allocations of version 3 run and are healthy",
	} {
		if !strings.Contains(dep.Forgotten, want) {
			t.Errorf("Forgotten = %q\nwant it to contain %q", dep.Forgotten, want)
		}
	}
	// Seen healthy at 15s; 10s + 30s later is 55s: the reads at 30s and
	// 45s go on, the one at 60s ends the wait. The last blocking read
	// asked to wait only until then (+1s), not rolloutMaxWait.
	reqs := f.requests("/v1/deployment/" + testDepID)
	if len(reqs) != 4 {
		t.Fatalf("%d deployment reads, want 4", len(reqs))
	}
	if got := reqs[3].Query.Get("wait"); got != "11000ms" {
		t.Errorf("last blocking read waits %q, want 11000ms (until the deployment counts as forgotten)", got)
	}
	if q := f.requests("/v1/job/web/allocations")[0].Query; q.Get("all") != "false" || q.Get("namespace") != "apps" {
		t.Errorf("allocations read with %v, want this job's allocations in apps", q)
	}
}

// TestWaitForRollout_forgottenButNotHealthy: when Nomad's allocations do
// not confirm what the forgotten deployment counts, the wait ends (it does
// not hang until the progress deadline) with an error naming what is
// wrong, and the deployment as Nomad shows it, not as failed.
func TestWaitForRollout_forgottenButNotHealthy(t *testing.T) {
	t.Parallel()
	healthy := appAlloc("aaaaaaaa-1", 3, api.AllocClientStatusRunning, bptr(true))
	cases := []struct {
		name   string
		second *api.AllocationListStub
		want   []string
	}{
		{"unhealthy", appAlloc("bbbbbbbb-2", 3, api.AllocClientStatusRunning, bptr(false)), []string{
			"allocation bbbbbbbb on node node-1 is running: its tasks run but it never became healthy",
			`task group "app" has 1 running and healthy allocations of version 3; it desires 2`}},
		{"failed, awaiting its reschedule", appAlloc("bbbbbbbb-2", 3, api.AllocClientStatusFailed, bptr(true)), []string{
			"allocation bbbbbbbb on node node-1 is failed"}},
		{"pending", appAlloc("bbbbbbbb-2", 3, api.AllocClientStatusPending, nil), []string{
			"allocation bbbbbbbb on node node-1 is pending"}},
		{"older version still running", appAlloc("bbbbbbbb-2", 2, api.AllocClientStatusRunning, bptr(true)), []string{
			"allocation bbbbbbbb on node node-1 still runs version 2 of the job (status running)",
			`task group "app" has 1 running and healthy allocations of version 3; it desires 2`}},
		{"missing", nil, []string{`task group "app" has 1 running and healthy allocations of version 3; it desires 2`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			allocs := []*api.AllocationListStub{healthy}
			if tc.second != nil {
				allocs = append(allocs, tc.second)
			}
			_, c := stuckNomad(t, &fakeClock{}, allocs)
			dep, err := c.WaitForRollout(noHang(t), "apps", "web", testEvalID)
			var re *RolloutError
			if !errors.As(err, &re) {
				t.Fatalf("err = %v, want *RolloutError", err)
			}
			if dep == nil || dep.Forgotten != "" {
				t.Errorf("deployment = %+v, want one without a success note", dep)
			}
			if re.DeploymentID != testDepID || re.DeploymentStatus != api.DeploymentStatusRunning {
				t.Errorf("RolloutError names deployment %q status %q, want %s running", re.DeploymentID, re.DeploymentStatus, testDepID)
			}
			if !strings.Contains(re.Reason, "Nomad still shows deployment "+testDepID) ||
				!strings.HasSuffix(re.Reason, "But its allocations do not all run healthy, so the rollout is not done") {
				t.Errorf("Reason = %q", re.Reason)
			}
			details := strings.Join(re.Details, "\n")
			for _, want := range tc.want {
				if !strings.Contains(details, want) {
					t.Errorf("Details =\n%s\nwant a line containing %q", details, want)
				}
			}
		})
	}
}

// TestWaitForRollout_completesAfterHealthy: a deployment Nomad marks
// successful soon after every group became healthy ends the wait as
// usual, without a note and without reading the allocations.
func TestWaitForRollout_completesAfterHealthy(t *testing.T) {
	t.Parallel()
	clock := &fakeClock{}
	f := newFakeNomad(t)
	f.handle("GET /v1/evaluation/"+testEvalID, replyJSON(&api.Evaluation{ID: testEvalID, Status: "complete"}))
	f.handle("GET /v1/job/web", replyJSON(forgottenJob()))
	f.handle("GET /v1/job/web/deployment", replyJSON(appDeployment(api.DeploymentStatusRunning, 0)))
	sequence := replySequence(
		replyJSON(appDeployment(api.DeploymentStatusRunning, 1)),
		replyJSON(appDeployment(api.DeploymentStatusRunning, 2)),
		replyJSON(appDeployment(api.DeploymentStatusRunning, 2)),
		replyJSON(appDeployment(api.DeploymentStatusSuccessful, 2)),
	)
	f.handle("GET /v1/deployment/"+testDepID, func(w http.ResponseWriter, r *http.Request) {
		clock.advance(15 * time.Second)
		sequence(w, r)
	})
	c := f.client()
	c.now = clock.Now
	dep, err := c.WaitForRollout(context.Background(), "apps", "web", testEvalID)
	if err != nil || dep == nil || dep.Status != api.DeploymentStatusSuccessful || dep.Forgotten != "" {
		t.Fatalf("WaitForRollout = %+v, %v; want the successful deployment without a note", dep, err)
	}
	if n := f.count("/v1/deployment/" + testDepID); n != 4 {
		t.Errorf("%d deployment reads, want 4", n)
	}
}

// TestPromoteCanaries_forgottenAfterPromotion: the wait after a promotion
// treats a deployment left running as the rollout wait does.
func TestPromoteCanaries_forgottenAfterPromotion(t *testing.T) {
	t.Parallel()
	clock := &fakeClock{}
	f := newFakeNomad(t)
	job := canaryJob(false)
	job.TaskGroups[0].Update.MinHealthyTime = ptr(5 * time.Second)
	f.handle("GET /v1/job/web", replyJSON(job))
	f.handle("GET /v1/job/web/deployment", replyJSON(canaryDeployment(1, 1, false)))
	promoted := canaryDeployment(1, 2, true)
	f.handle("POST /v1/deployment/promote/"+testDepID, replyJSON(api.DeploymentUpdateResponse{}))
	f.handle("PUT /v1/deployment/promote/"+testDepID, replyJSON(api.DeploymentUpdateResponse{}))
	reads := replySequence(replyJSON(canaryDeployment(1, 1, false)), replyJSON(promoted))
	f.handle("GET /v1/deployment/"+testDepID, func(w http.ResponseWriter, r *http.Request) {
		clock.advance(20 * time.Second)
		reads(w, r)
	})
	f.handle("GET /v1/job/web/allocations", replyJSON([]*api.AllocationListStub{
		appAlloc("aaaaaaaa-1", 3, api.AllocClientStatusRunning, bptr(true)),
		appAlloc("bbbbbbbb-2", 3, api.AllocClientStatusRunning, bptr(true)),
	}))
	c := f.client()
	c.now = clock.Now
	dep, err := c.PromoteCanaries(noHang(t), "apps", "web", PromoteOptions{WaitReady: true, WaitDone: true})
	if err != nil || dep == nil || !strings.Contains(dep.Forgotten, "Nomad still shows deployment "+testDepID) {
		t.Fatalf("PromoteCanaries = %+v, %v; want the deployment with a note saying Nomad left it running", dep, err)
	}
}

func TestForgottenAfter(t *testing.T) {
	t.Parallel()
	upd := func(d time.Duration) *api.UpdateStrategy { return &api.UpdateStrategy{MinHealthyTime: &d} }
	job := &api.Job{Update: upd(5 * time.Second), TaskGroups: []*api.TaskGroup{
		{Update: upd(10 * time.Second)}, {Update: upd(45 * time.Second)}, {}, nil}}
	if got := forgottenAfter(job); got != 45*time.Second+forgottenGrace {
		t.Errorf("forgottenAfter = %s, want the longest min_healthy_time plus %s", got, forgottenGrace)
	}
	if got := forgottenAfter(nil); got != forgottenGrace {
		t.Errorf("forgottenAfter(nil) = %s, want %s", got, forgottenGrace)
	}
}

func TestFullyHealthy(t *testing.T) {
	t.Parallel()
	group := func(healthy, desired, canaries int, promoted bool) *api.Deployment {
		return &api.Deployment{Status: api.DeploymentStatusRunning, TaskGroups: map[string]*api.DeploymentState{
			"a": {DesiredTotal: 1, HealthyAllocs: 1},
			"b": {DesiredTotal: desired, HealthyAllocs: healthy, DesiredCanaries: canaries, Promoted: promoted}}}
	}
	paused := group(2, 2, 0, false)
	paused.Status = api.DeploymentStatusPaused
	for name, tc := range map[string]struct {
		d    *api.Deployment
		want bool
	}{
		"every group healthy":   {group(2, 2, 0, false), true},
		"one group short":       {group(1, 2, 0, false), false},
		"canaries not promoted": {group(2, 2, 1, false), false},
		"canaries promoted":     {group(2, 2, 1, true), true},
		"paused":                {paused, false},
		"no groups":             {&api.Deployment{Status: api.DeploymentStatusRunning}, false},
	} {
		if got := fullyHealthy(tc.d); got != tc.want {
			t.Errorf("%s: fullyHealthy = %v, want %v", name, got, tc.want)
		}
	}
}
