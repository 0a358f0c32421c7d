package nomadclient

import (
	"context"
	"errors"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"
)

func TestFailedTaskEvents(t *testing.T) {
	failedTask := &api.AllocationListStub{
		ID: "aaaaaaaa-1111-4000-8000-000000000000", Name: "web.app[0]", NodeName: "node-1",
		ClientStatus: api.AllocClientStatusFailed,
		TaskStates: map[string]*api.TaskState{
			"server": {State: "dead", Failed: true, Restarts: 2, Events: []*api.TaskEvent{
				{Type: "Received", Message: "Task received by client"},
				{Type: "Task Setup", Message: "Building Task Directory"},
				{Type: "Started", DisplayMessage: "Task started by client", Message: "ignored"},
				nil,
				{Type: "Terminated", DisplayMessage: "Exit Code: 1"},
			}},
			"sidecar": {State: "running"},
			"nil":     nil,
		},
	}
	neverHealthy := &api.AllocationListStub{
		ID: "bbbbbbbb-2222-4000-8000-000000000000", Name: "web.app[1]", NodeID: "cccccccc-3333-4000-8000-000000000000",
		ClientStatus:     api.AllocClientStatusRunning,
		DeploymentStatus: &api.AllocDeploymentStatus{Healthy: bptr(false)},
		TaskStates:       map[string]*api.TaskState{"server": {State: "running"}},
	}
	healthy := &api.AllocationListStub{
		ID: "dddddddd-4444", Name: "web.app[2]", ClientStatus: api.AllocClientStatusRunning,
		DeploymentStatus: &api.AllocDeploymentStatus{Healthy: bptr(true)},
		TaskStates:       map[string]*api.TaskState{"server": {State: "running", Restarts: 5}},
	}
	const checksLine = "its tasks run but it never became healthy: its service checks did not pass within healthy_deadline"

	cases := []struct {
		name   string
		allocs []*api.AllocationListStub
		want   []string
	}{
		{name: "none", allocs: nil, want: nil},
		{
			name:   "failed task quotes its last three events",
			allocs: []*api.AllocationListStub{failedTask},
			want: []string{`allocation aaaaaaaa on node node-1: task "server" is failed (restarts 2): ` +
				`"Started: Task started by client", "Terminated: Exit Code: 1"`},
		},
		{
			name:   "running but never healthy",
			allocs: []*api.AllocationListStub{neverHealthy},
			want:   []string{"allocation bbbbbbbb on node cccccccc is running: " + checksLine},
		},
		{
			name: "running without deployment status",
			allocs: []*api.AllocationListStub{{
				ID: "eeeeeeee-5555", Name: "x", NodeName: "n", ClientStatus: api.AllocClientStatusRunning,
			}},
			want: []string{"allocation eeeeeeee on node n is running: " + checksLine},
		},
		{
			name:   "healthy and running is skipped",
			allocs: []*api.AllocationListStub{healthy},
			want:   nil,
		},
		{
			name: "failed allocation without failed tasks gives the client description",
			allocs: []*api.AllocationListStub{{
				ID: "ffffffff-6666", Name: "x", NodeName: "n", ClientStatus: api.AllocClientStatusFailed,
				ClientDescription: "Failed tasks",
			}},
			want: []string{"allocation ffffffff on node n is failed: Failed tasks"},
		},
		{
			name: "pending and restarting tasks",
			allocs: []*api.AllocationListStub{{
				ID: "12345678-7777", Name: "x", NodeName: "n", ClientStatus: api.AllocClientStatusRunning,
				TaskStates: map[string]*api.TaskState{
					"b-restarting": {State: "running", Restarts: 1, Events: []*api.TaskEvent{{Type: "Restarting", DisplayMessage: "Task restarting in 15s"}}},
					"a-pending":    {State: "pending"},
				},
			}},
			want: []string{
				`allocation 12345678 on node n: task "a-pending" is pending (restarts 0): no task events yet`,
				`allocation 12345678 on node n: task "b-restarting" is running (restarts 1): "Restarting: Task restarting in 15s"`,
			},
		},
		{
			name:   "allocations in name order",
			allocs: []*api.AllocationListStub{healthy, neverHealthy, failedTask},
			want: []string{
				`allocation aaaaaaaa on node node-1: task "server" is failed (restarts 2): ` +
					`"Started: Task started by client", "Terminated: Exit Code: 1"`,
				"allocation bbbbbbbb on node cccccccc is running: " + checksLine,
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := FailedTaskEvents(tc.allocs)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("FailedTaskEvents =\n  %q\nwant\n  %q", got, tc.want)
			}
		})
	}
}

func TestFailedTaskEventsQuotesExitCode(t *testing.T) {
	lines := FailedTaskEvents([]*api.AllocationListStub{{
		ID: "aaaaaaaa", Name: "a", ClientStatus: api.AllocClientStatusFailed,
		TaskStates: map[string]*api.TaskState{"t": {State: "dead", Failed: true, Events: []*api.TaskEvent{
			{Type: "Terminated", DisplayMessage: "Exit Code: 1"},
		}}},
	}})
	if len(lines) != 1 || !strings.Contains(lines[0], `"Terminated: Exit Code: 1"`) {
		t.Errorf("lines = %q, want the Terminated event quoted", lines)
	}
}

func TestPlacementFailures(t *testing.T) {
	cases := []struct {
		name   string
		failed map[string]*api.AllocationMetric
		want   []string
	}{
		{name: "none", failed: nil, want: nil},
		{
			name:   "one dimension on one node",
			failed: map[string]*api.AllocationMetric{"app": {NodesEvaluated: 1, NodesExhausted: 1, DimensionExhausted: map[string]int{"memory": 1}}},
			want:   []string{`task group "app" could not be placed: Resources exhausted on 1 node: memory`},
		},
		{
			name: "several dimensions, plural",
			failed: map[string]*api.AllocationMetric{"app": {NodesEvaluated: 3, NodesExhausted: 3,
				DimensionExhausted: map[string]int{"cpu": 2, "memory": 1}}},
			want: []string{`task group "app" could not be placed: Resources exhausted on 1 node: memory; Resources exhausted on 2 nodes: cpu`},
		},
		{
			name:   "no eligible nodes",
			failed: map[string]*api.AllocationMetric{"app": {NodesEvaluated: 0, NodePool: "gpu", NodesInPool: 0}},
			want:   []string{`task group "app" could not be placed: no nodes were eligible for evaluation (node pool "gpu" has 0 nodes)`},
		},
		{
			name: "constraints and classes",
			failed: map[string]*api.AllocationMetric{"app": {NodesEvaluated: 4, NodesFiltered: 4,
				ConstraintFiltered: map[string]int{"${attr.kernel.name} = windows": 3},
				ClassFiltered:      map[string]int{"web": 1}}},
			want: []string{`task group "app" could not be placed: Class "web" filtered 1 node; Constraint ${attr.kernel.name} = windows filtered 3 nodes`},
		},
		{
			name:   "only counts",
			failed: map[string]*api.AllocationMetric{"app": {NodesEvaluated: 2, NodesFiltered: 1, NodesExhausted: 1}},
			want:   []string{`task group "app" could not be placed: 2 nodes evaluated, 1 filtered, 1 exhausted`},
		},
		{
			name: "groups in name order, nil metrics skipped",
			failed: map[string]*api.AllocationMetric{
				"web":  {NodesEvaluated: 1, DimensionExhausted: map[string]int{"disk": 1}},
				"api":  {NodesEvaluated: 1, DimensionExhausted: map[string]int{"memory": 1}},
				"gone": nil,
			},
			want: []string{
				`task group "api" could not be placed: Resources exhausted on 1 node: memory`,
				`task group "web" could not be placed: Resources exhausted on 1 node: disk`,
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := placementFailures(tc.failed); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("placementFailures =\n  %q\nwant\n  %q", got, tc.want)
			}
		})
	}
}

func TestRolloutErrorAndHelpers(t *testing.T) {
	e := &RolloutError{JobID: "web", Reason: "deployment failed", Details: []string{"one", "two"}}
	if got, want := e.Error(), "job \"web\" did not become healthy: deployment failed\n  - one\n  - two"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	if got := (&RolloutError{JobID: "web", Reason: "r"}).Error(); got != `job "web" did not become healthy: r` {
		t.Errorf("Error() without details = %q", got)
	}
	for in, want := range map[string]string{"": "", "abc": "abc", "12345678": "12345678", "123456789": "12345678"} {
		if got := idPrefix(in); got != want {
			t.Errorf("idPrefix(%q) = %q, want %q", in, got, want)
		}
	}
	for n, want := range map[int]string{0: "0 nodes", 1: "1 node", 2: "2 nodes"} {
		if got := plural(n, "node"); got != want {
			t.Errorf("plural(%d) = %q, want %q", n, got, want)
		}
	}
}

const (
	testEvalID = "e1e1e1e1-0000-4000-8000-000000000000"
	testDepID  = "d1d1d1d1-0000-4000-8000-000000000000"
)

func TestWaitForRolloutFailures(t *testing.T) {
	t.Run("evaluation failed", func(t *testing.T) {
		f := newFakeNomad(t)
		f.handle("GET /v1/evaluation/"+testEvalID, replyJSON(&api.Evaluation{ID: testEvalID, Status: "failed", StatusDescription: "maximum attempts reached"}))
		_, _, err := f.client().waitForRollout(context.Background(), "apps", "web", testEvalID)
		var re *RolloutError
		if !errors.As(err, &re) {
			t.Fatalf("err = %v, want *RolloutError", err)
		}
		if want := `evaluation e1e1e1e1 ended "failed": maximum attempts reached`; re.Reason != want {
			t.Errorf("Reason = %q, want %q", re.Reason, want)
		}
	})

	t.Run("placement failures", func(t *testing.T) {
		f := newFakeNomad(t)
		f.handle("GET /v1/evaluation/"+testEvalID, replyJSON(&api.Evaluation{ID: testEvalID, Status: "complete",
			FailedTGAllocs: map[string]*api.AllocationMetric{"app": {NodesEvaluated: 1, DimensionExhausted: map[string]int{"memory": 1}}}}))
		_, _, err := f.client().waitForRollout(context.Background(), "apps", "web", testEvalID)
		var re *RolloutError
		if !errors.As(err, &re) {
			t.Fatalf("err = %v, want *RolloutError", err)
		}
		if re.Reason != "Nomad could not place all allocations" ||
			!reflect.DeepEqual(re.Details, []string{`task group "app" could not be placed: Resources exhausted on 1 node: memory`}) {
			t.Errorf("RolloutError = %+v", re)
		}
		if !strings.Contains(err.Error(), "Resources exhausted on 1 node: memory") {
			t.Errorf("message %q", err)
		}
		if got := f.requests("/v1/evaluation/" + testEvalID)[0].Query.Get("namespace"); got != "apps" {
			t.Errorf("namespace = %q, want apps", got)
		}
	})

	t.Run("evaluation unreadable", func(t *testing.T) {
		f := newFakeNomad(t)
		f.handle("GET /v1/evaluation/"+testEvalID, replyRaw(403, "Permission denied"))
		_, _, err := f.client().waitForRollout(context.Background(), "apps", "web", testEvalID)
		if !IsForbidden(err) || !strings.Contains(err.Error(), "reading evaluation "+testEvalID) {
			t.Errorf("err = %v, want a 403 naming the evaluation", err)
		}
	})

	t.Run("Nomad unreachable", func(t *testing.T) {
		addr := closedAddress(t)
		_, _, err := newTestClient(t, addr).waitForRollout(context.Background(), "apps", "web", testEvalID)
		checkConnectError(t, err, addr)
	})

	evalOK := replyJSON(&api.Evaluation{ID: testEvalID, Status: "complete"})
	job := replyJSON(&api.Job{ID: ptr("web"), Version: ptr(uint64(3))})

	t.Run("deployment failed", func(t *testing.T) {
		f := newFakeNomad(t)
		f.handle("GET /v1/evaluation/"+testEvalID, evalOK)
		f.handle("GET /v1/job/web", job)
		f.handle("GET /v1/job/web/deployment", replyJSON(&api.Deployment{ID: testDepID, JobVersion: 3, Status: "running"}))
		f.handle("GET /v1/deployment/"+testDepID, replyJSON(&api.Deployment{ID: testDepID, JobVersion: 3,
			Status: api.DeploymentStatusFailed, StatusDescription: "Failed due to unhealthy allocations"}))
		f.handle("GET /v1/deployment/allocations/"+testDepID, replyJSON([]*api.AllocationListStub{{
			ID: "aaaaaaaa-1111", Name: "web.app[0]", NodeName: "node-1", ClientStatus: api.AllocClientStatusFailed,
			TaskStates: map[string]*api.TaskState{"server": {State: "dead", Failed: true, Events: []*api.TaskEvent{
				{Type: "Terminated", DisplayMessage: "Exit Code: 1"},
			}}},
		}}))
		dep, _, err := f.client().waitForRollout(context.Background(), "apps", "web", testEvalID)
		var re *RolloutError
		if !errors.As(err, &re) {
			t.Fatalf("err = %v, want *RolloutError", err)
		}
		if dep == nil || dep.ID != testDepID {
			t.Errorf("deployment = %+v, want %s alongside the error", dep, testDepID)
		}
		if re.DeploymentID != testDepID || re.Reason != "deployment d1d1d1d1 failed: Failed due to unhealthy allocations" {
			t.Errorf("RolloutError = %+v", re)
		}
		if len(re.Details) != 1 || !strings.Contains(re.Details[0], `"Terminated: Exit Code: 1"`) {
			t.Errorf("Details = %q", re.Details)
		}
	})

	t.Run("deployment allocations unreadable", func(t *testing.T) {
		f := newFakeNomad(t)
		f.handle("GET /v1/evaluation/"+testEvalID, evalOK)
		f.handle("GET /v1/job/web", job)
		f.handle("GET /v1/job/web/deployment", replyJSON(&api.Deployment{ID: testDepID, JobVersion: 3}))
		f.handle("GET /v1/deployment/"+testDepID, replyJSON(&api.Deployment{ID: testDepID, JobVersion: 3, Status: api.DeploymentStatusCancelled}))
		f.handle("GET /v1/deployment/allocations/"+testDepID, replyRaw(500, "boom"))
		_, _, err := f.client().waitForRollout(context.Background(), "apps", "web", testEvalID)
		var re *RolloutError
		if !errors.As(err, &re) {
			t.Fatalf("err = %v, want *RolloutError", err)
		}
		if len(re.Details) != 1 || !strings.HasPrefix(re.Details[0], "could not read the deployment's allocations: ") {
			t.Errorf("Details = %q", re.Details)
		}
	})

	t.Run("job gone after the evaluation", func(t *testing.T) {
		f := newFakeNomad(t)
		f.handle("GET /v1/evaluation/"+testEvalID, evalOK)
		f.handle("GET /v1/job/web", replyRaw(404, "job not found"))
		dep, _, err := f.client().waitForRollout(context.Background(), "apps", "web", testEvalID)
		if dep != nil || err != nil {
			t.Errorf("WaitForRollout = %v, %v; want nil, nil", dep, err)
		}
	})

	t.Run("deployment of an older version", func(t *testing.T) {
		f := newFakeNomad(t)
		f.handle("GET /v1/evaluation/"+testEvalID, evalOK)
		f.handle("GET /v1/job/web", job)
		f.handle("GET /v1/job/web/deployment", replyJSON(&api.Deployment{ID: testDepID, JobVersion: 2, Status: api.DeploymentStatusFailed}))
		dep, _, err := f.client().waitForRollout(context.Background(), "apps", "web", testEvalID)
		if dep != nil || err != nil {
			t.Errorf("WaitForRollout = %v, %v; want nil, nil", dep, err)
		}
	})
}

// TestWaitForRolloutBlocks: after the first read, the deployment is read
// with a blocking query on the index Nomad returned, with a wait that ends
// before the caller's deadline, instead of being polled.
func TestWaitForRolloutBlocks(t *testing.T) {
	f := newFakeNomad(t)
	f.handle("GET /v1/evaluation/"+testEvalID, replyJSON(&api.Evaluation{ID: testEvalID, Status: "complete"}))
	f.handle("GET /v1/job/web", replyJSON(&api.Job{ID: ptr("web"), Version: ptr(uint64(3))}))
	f.handle("GET /v1/job/web/deployment", replyJSON(&api.Deployment{ID: testDepID, JobVersion: 3, Status: "running"}))
	running := replyJSON(&api.Deployment{ID: testDepID, JobVersion: 3, Status: "running"})
	done := replyJSON(&api.Deployment{ID: testDepID, JobVersion: 3, Status: api.DeploymentStatusSuccessful})
	f.handle("GET /v1/deployment/"+testDepID, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("index") == "" {
			running(w, r)
			return
		}
		done(w, r)
	})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	dep, _, err := f.client().waitForRollout(ctx, "apps", "web", testEvalID)
	if err != nil || dep == nil || dep.Status != api.DeploymentStatusSuccessful {
		t.Fatalf("WaitForRollout = %+v, %v", dep, err)
	}
	reqs := f.requests("/v1/deployment/" + testDepID)
	if len(reqs) != 2 {
		t.Fatalf("%d deployment reads, want 2 (one plain, one blocking)", len(reqs))
	}
	q := reqs[1].Query
	wait, err := time.ParseDuration(q.Get("wait"))
	if q.Get("index") != "7" || err != nil || wait <= 0 || wait > 10*time.Second {
		t.Errorf("second read: index %q wait %q, want index 7 and a wait within the 10s deadline", q.Get("index"), q.Get("wait"))
	}
}

func TestBlockingWaitEndsBeforeDeadline(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	if q := blocking(ctx, "apps", 7); q.WaitIndex != 7 || q.WaitTime <= 0 || q.WaitTime > 500*time.Millisecond {
		t.Errorf("blocking with 0.5s left = index %d wait %s, want a wait within the deadline", q.WaitIndex, q.WaitTime)
	}
	if q := blocking(context.Background(), "apps", 7); q.WaitIndex != 7 || q.WaitTime != rolloutMaxWait {
		t.Errorf("blocking without deadline = index %d wait %s", q.WaitIndex, q.WaitTime)
	}
	if q := blocking(context.Background(), "apps", 0); q.WaitIndex != 0 || q.WaitTime != 0 {
		t.Errorf("first read blocks: index %d wait %s", q.WaitIndex, q.WaitTime)
	}
}

// TestWaitForRolloutRegistrationLost: when the registration's evaluation
// has ended and Nomad holds a job older than the one it was for (an older
// version's deployment marked successful after the registration put that
// version back), the wait says so rather than follow that version's
// deployment, which Nomad shows as successful.
func TestWaitForRolloutRegistrationLost(t *testing.T) {
	f := newFakeNomad(t)
	f.handle("GET /v1/evaluation/"+testEvalID, replyJSON(&api.Evaluation{ID: testEvalID, Status: "complete", JobModifyIndex: 17}))
	f.handle("GET /v1/job/web", replyJSON(&api.Job{ID: ptr("web"), Version: ptr(uint64(1)), JobModifyIndex: ptr(uint64(12)), Stable: bptr(true)}))
	_, _, err := f.client().waitForRollout(context.Background(), "apps", "web", testEvalID)
	var le *RegistrationLostError
	if !errors.As(err, &le) {
		t.Fatalf("err = %v, want *RegistrationLostError", err)
	}
	if *le != (RegistrationLostError{JobID: "web", Registered: 17, Live: 12, LiveVersion: 1}) {
		t.Errorf("RegistrationLostError = %+v", le)
	}
	if n := f.count("/v1/job/web/deployment"); n != 0 {
		t.Errorf("%d reads of the latest deployment, want none", n)
	}

	// The job the evaluation was for (or a newer one) is followed as usual.
	for _, live := range []uint64{17, 18} {
		f := newFakeNomad(t)
		f.handle("GET /v1/evaluation/"+testEvalID, replyJSON(&api.Evaluation{ID: testEvalID, Status: "complete", JobModifyIndex: 17}))
		f.handle("GET /v1/job/web", replyJSON(&api.Job{ID: ptr("web"), Version: ptr(uint64(3)), JobModifyIndex: ptr(live)}))
		f.handle("GET /v1/job/web/deployment", replyJSON(&api.Deployment{ID: testDepID, JobVersion: 3, Status: api.DeploymentStatusSuccessful}))
		f.handle("GET /v1/deployment/"+testDepID, replyJSON(&api.Deployment{ID: testDepID, JobVersion: 3, Status: api.DeploymentStatusSuccessful}))
		if dep, _, err := f.client().waitForRollout(context.Background(), "apps", "web", testEvalID); err != nil || dep == nil || dep.ID != testDepID {
			t.Errorf("job modify index %d: WaitForRollout = %+v, %v; want the successful deployment", live, dep, err)
		}
	}
}
