package nomadclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"

	"github.com/berthhq/terraform-provider-berth/internal/capacity"
	"github.com/berthhq/terraform-provider-berth/internal/ledger"
)

const testNodeID = "0123abcd-0000-4000-8000-000000000001"

// readOp is one idempotent Client call, driven through the path whose
// answers a test case controls.
type readOp struct {
	name  string
	path  string                      // path the case answers (GET)
	ok    http.HandlerFunc            // a successful answer on path
	extra map[string]http.HandlerFunc // further routes the call needs once path succeeds
	call  func(context.Context, *Client) error
}

func readOps() []readOp {
	stub := &api.NodeListStub{ID: testNodeID, Name: "node-1", Status: "ready"}
	node := &api.Node{ID: testNodeID, Name: "node-1", Status: "ready"}
	return []readOp{
		{
			name: "ListNodes",
			path: "/v1/nodes",
			ok:   replyJSON([]*api.NodeListStub{}),
			call: func(ctx context.Context, c *Client) error {
				_, err := c.ListNodes(ctx, NodeFilter{}, false, "default")
				return err
			},
		},
		{
			name: "GetJob",
			path: "/v1/job/web",
			ok:   replyJSON(&api.Job{ID: ptr("web"), Name: ptr("web")}),
			call: func(ctx context.Context, c *Client) error {
				job, err := c.getJob(ctx, "apps", "web")
				if err == nil && job == nil {
					return errNilJob
				}
				return err
			},
		},
		{
			name: "FindNode",
			path: "/v1/nodes",
			ok:   replyJSON([]*api.NodeListStub{stub}),
			extra: map[string]http.HandlerFunc{
				"GET /v1/node/" + testNodeID:            replyJSON(node),
				"GET /v1/allocations":                   replyJSON([]*api.AllocationListStub{}),
				"GET /v1/var/" + LedgerPath(testNodeID): replyRaw(404, "variable not found"),
				"GET " + leaseJobsPath:                  replyJSON([]*api.JobListStub{}),
			},
			call: func(ctx context.Context, c *Client) error {
				_, err := c.FindNode(ctx, "0123", "", "default")
				return err
			},
		},
		{
			name: "LedgerNodes",
			path: "/v1/vars",
			ok:   replyJSON([]*api.VariableMetadata{{Path: LedgerPath(testNodeID)}}),
			call: func(ctx context.Context, c *Client) error {
				_, err := c.LedgerNodes(ctx, "berth")
				return err
			},
		},
		{
			name: "LatestDeployment",
			path: "/v1/job/web/deployment",
			ok:   replyJSON(&api.Deployment{ID: "d1", JobID: "web"}),
			call: func(ctx context.Context, c *Client) error {
				_, err := c.latestDeployment(ctx, "apps", "web")
				return err
			},
		},
		{
			name: "JobAllocations",
			path: "/v1/job/web/allocations",
			ok:   replyJSON([]*api.AllocationListStub{}),
			call: func(ctx context.Context, c *Client) error {
				_, err := c.jobAllocations(ctx, "apps", "web")
				return err
			},
		},
	}
}

// errNilJob marks GetJob's "does not exist" answer (nil, nil).
var errNilJob = errors.New("GetJob returned no job and no error")

func TestReadRetries(t *testing.T) {
	attempts := fastRetry.Attempts
	cases := []struct {
		name   string
		answer func(ok http.HandlerFunc) http.HandlerFunc
		// wantStatus is the status the error must keep; 0 means success is
		// expected, -1 an error without status.
		wantStatus int
		wantCalls  int
	}{
		{
			name: "500 then success",
			answer: func(ok http.HandlerFunc) http.HandlerFunc {
				return replySequence(replyRaw(500, "rpc error: leader lost"), ok)
			},
			wantCalls: 2,
		},
		{
			name: "502 and 504 then success on the last try",
			answer: func(ok http.HandlerFunc) http.HandlerFunc {
				return replySequence(replyRaw(502, "bad gateway"), replyRaw(504, "gateway timeout"), ok)
			},
			wantCalls: 3,
		},
		{
			name:       "persistent 503",
			answer:     func(http.HandlerFunc) http.HandlerFunc { return replyRaw(503, "No cluster leader") },
			wantStatus: 503,
			wantCalls:  attempts,
		},
		{
			name:       "persistent 500",
			answer:     func(http.HandlerFunc) http.HandlerFunc { return replyRaw(500, "internal error") },
			wantStatus: 500,
			wantCalls:  attempts,
		},
		{
			name:       "403 is not retried",
			answer:     func(http.HandlerFunc) http.HandlerFunc { return replyRaw(403, "Permission denied") },
			wantStatus: 403,
			wantCalls:  1,
		},
		{
			name:       "400 is not retried",
			answer:     func(http.HandlerFunc) http.HandlerFunc { return replyRaw(400, "bad filter expression") },
			wantStatus: 400,
			wantCalls:  1,
		},
		{
			name:       "404 is not retried",
			answer:     func(http.HandlerFunc) http.HandlerFunc { return replyRaw(404, "not found") },
			wantStatus: 404,
			wantCalls:  1,
		},
		{
			name: "connection reset then success",
			answer: func(ok http.HandlerFunc) http.HandlerFunc {
				return replySequence(resetConnection, ok)
			},
			wantCalls: 2,
		},
		{
			name: "429 then success",
			answer: func(ok http.HandlerFunc) http.HandlerFunc {
				return replySequence(replyRaw(429, "Too Many Requests"), ok)
			},
			wantCalls: 2,
		},
		{
			name:       "persistent 429",
			answer:     func(http.HandlerFunc) http.HandlerFunc { return replyRaw(429, "Too Many Requests") },
			wantStatus: 429,
			wantCalls:  attempts,
		},
		{
			name:       "malformed JSON",
			answer:     func(http.HandlerFunc) http.HandlerFunc { return replyRaw(200, "<html>surely not JSON</html>") },
			wantStatus: -1,
			wantCalls:  1,
		},
		{
			name:       "truncated JSON",
			answer:     func(http.HandlerFunc) http.HandlerFunc { return replyRaw(200, `[{"ID": "abc`) },
			wantStatus: -1,
			wantCalls:  1,
		},
		{
			name:       "JSON of the wrong shape",
			answer:     func(http.HandlerFunc) http.HandlerFunc { return replyRaw(200, `"just a string"`) },
			wantStatus: -1,
			wantCalls:  1,
		},
		{
			name:       "empty 200",
			answer:     func(http.HandlerFunc) http.HandlerFunc { return replyRaw(200, "") },
			wantStatus: -1,
			wantCalls:  1,
		},
	}
	for _, op := range readOps() {
		for _, tc := range cases {
			t.Run(op.name+"/"+tc.name, func(t *testing.T) {
				f := newFakeNomad(t)
				f.handle("GET "+op.path, tc.answer(op.ok))
				for route, h := range op.extra {
					f.handle(route, h)
				}
				c := f.client()

				var err error
				func() {
					defer func() {
						if p := recover(); p != nil {
							t.Fatalf("%s panicked: %v", op.name, p)
						}
					}()
					err = op.call(context.Background(), c)
				}()

				if got := f.count(op.path); got != tc.wantCalls {
					t.Errorf("%d requests to %s, want %d", got, op.path, tc.wantCalls)
				}
				var ce *ConnectError
				if errors.As(err, &ce) {
					t.Errorf("an HTTP answer was reported as a connection error: %v", err)
				}
				switch {
				case op.name == "GetJob" && tc.wantStatus == 404:
					// A job that does not exist is (nil, nil).
					if !errors.Is(err, errNilJob) {
						t.Errorf("GetJob on 404: err = %v, want (nil, nil)", err)
					}
				case tc.wantStatus == 0:
					if err != nil {
						t.Errorf("unexpected error: %v", err)
					}
				case tc.wantStatus == -1:
					if err == nil || errors.Is(err, errNilJob) {
						t.Fatalf("err = %v, want a decoding error", err)
					}
					if statusCode(err) != 0 {
						t.Errorf("statusCode(%v) = %d, want 0", err, statusCode(err))
					}
				default:
					if err == nil {
						t.Fatalf("no error, want status %d", tc.wantStatus)
					}
					if got := statusCode(err); got != tc.wantStatus {
						t.Errorf("statusCode(%v) = %d, want %d", err, got, tc.wantStatus)
					}
					if IsNotFound(err) != (tc.wantStatus == 404) {
						t.Errorf("IsNotFound(%v) = %v", err, IsNotFound(err))
					}
					if IsForbidden(err) != (tc.wantStatus == 403) {
						t.Errorf("IsForbidden(%v) = %v", err, IsForbidden(err))
					}
					if !strings.Contains(err.Error(), fmt.Sprint(tc.wantStatus)) {
						t.Errorf("error %q does not show status %d", err, tc.wantStatus)
					}
				}
			})
		}
	}
}

// The follow-up calls of ListNodes and FindNode retry the same way.
func TestFollowUpCallsRetry(t *testing.T) {
	stub := &api.NodeListStub{ID: testNodeID, Name: "node-1"}

	t.Run("ListNodes allocations 500 then success", func(t *testing.T) {
		f := newFakeNomad(t)
		f.handle("GET /v1/nodes", replyJSON([]*api.NodeListStub{stub}))
		f.handle("GET /v1/allocations", replySequence(replyRaw(500, "oops"), replyJSON([]*api.AllocationListStub{})))
		f.handle("GET /v1/vars", replyJSON([]*api.VariableMetadata{}))
		f.handleLeases()
		nodes, err := f.client().ListNodes(context.Background(), NodeFilter{}, false, "default")
		if err != nil || len(nodes) != 1 {
			t.Fatalf("ListNodes = %v, %v", nodes, err)
		}
		if n := f.count("/v1/allocations"); n != 2 {
			t.Errorf("%d allocation requests, want 2", n)
		}
	})

	t.Run("ListNodes allocations persistent 503", func(t *testing.T) {
		f := newFakeNomad(t)
		f.handle("GET /v1/nodes", replyJSON([]*api.NodeListStub{stub}))
		f.handle("GET /v1/allocations", replyRaw(503, "no leader"))
		_, err := f.client().ListNodes(context.Background(), NodeFilter{}, false, "default")
		if statusCode(err) != 503 || !strings.Contains(err.Error(), "listing allocations") {
			t.Errorf("err = %v, want a 503 naming the allocation listing", err)
		}
		if n := f.count("/v1/allocations"); n != fastRetry.Attempts {
			t.Errorf("%d allocation requests, want %d", n, fastRetry.Attempts)
		}
	})

	t.Run("ListNodes meta 500 then success", func(t *testing.T) {
		f := newFakeNomad(t)
		f.handle("GET /v1/nodes", replyJSON([]*api.NodeListStub{stub}))
		f.handle("GET /v1/allocations", replyJSON([]*api.AllocationListStub{}))
		f.handle("GET /v1/vars", replyJSON([]*api.VariableMetadata{}))
		f.handleLeases()
		f.handle("GET /v1/node/"+testNodeID, replySequence(replyRaw(500, "oops"),
			replyJSON(&api.Node{ID: testNodeID, Meta: map[string]string{"rack": "r1"}})))
		nodes, err := f.client().ListNodes(context.Background(), NodeFilter{}, true, "default")
		if err != nil {
			t.Fatal(err)
		}
		if nodes[0].Meta["rack"] != "r1" {
			t.Errorf("Meta = %v", nodes[0].Meta)
		}
		if n := f.count("/v1/node/" + testNodeID); n != 2 {
			t.Errorf("%d node requests, want 2", n)
		}
	})

	t.Run("ListNodes berth job list 503 then success", func(t *testing.T) {
		f := newFakeNomad(t)
		f.handle("GET /v1/nodes", replyJSON([]*api.NodeListStub{stub}))
		f.handle("GET /v1/allocations", replyJSON([]*api.AllocationListStub{}))
		f.handle("GET "+leaseJobsPath, replySequence(replyRaw(503, "no leader"), replyJSON(holdStubs(t, testNodeID, map[string]ledger.Reservation{
			"db": {Request: capacity.Resources{CPU: 100}, CreatedAt: t0},
		}))))
		nodes, err := f.client().ListNodes(context.Background(), NodeFilter{}, false, ledgerNS)
		if err != nil {
			t.Fatal(err)
		}
		if got := nodes[0].Capacity.Reserved; got != (capacity.Resources{CPU: 100}) {
			t.Errorf("Reserved = %+v, want the ledger's 100 MHz", got)
		}
		if n := f.count(leaseJobsPath); n != 2 {
			t.Errorf("%d berth job list requests, want 2", n)
		}
	})

	t.Run("ListNodes lease jobs 500 then success", func(t *testing.T) {
		f := newFakeNomad(t)
		f.handle("GET /v1/nodes", replyJSON([]*api.NodeListStub{stub}))
		f.handle("GET /v1/allocations", replyJSON([]*api.AllocationListStub{
			jobAlloc("a1", testNodeID, "dev", "box", res(100, 64, 0)),
		}))
		f.handle("GET /v1/vars", replyJSON([]*api.VariableMetadata{}))
		f.handle("GET "+leaseJobsPath, replySequence(replyRaw(500, "oops"),
			replyJSON([]*api.JobListStub{{ID: "box", Namespace: "dev", Meta: map[string]string{"berth.kind": "lease"}}})))
		nodes, err := f.client().ListNodes(context.Background(), NodeFilter{}, false, "default")
		if err != nil {
			t.Fatal(err)
		}
		if len(nodes) != 1 || len(nodes[0].Leases) != 1 || nodes[0].Leases[0].Name != "box" {
			t.Errorf("nodes = %+v, want node-1 with lease dev/box", nodes)
		}
		if n := f.count(leaseJobsPath); n != 2 {
			t.Errorf("%d lease job list requests, want 2", n)
		}
	})

	t.Run("ListNodes lease jobs persistent 503", func(t *testing.T) {
		f := newFakeNomad(t)
		f.handle("GET /v1/nodes", replyJSON([]*api.NodeListStub{stub}))
		f.handle("GET /v1/allocations", replyJSON([]*api.AllocationListStub{}))
		f.handle("GET /v1/vars", replyJSON([]*api.VariableMetadata{}))
		f.handle("GET "+leaseJobsPath, replyRaw(503, "no leader"))
		_, err := f.client().ListNodes(context.Background(), NodeFilter{}, false, "default")
		if statusCode(err) != 503 || !strings.Contains(err.Error(), "listing berth") {
			t.Errorf("err = %v, want a 503 naming the lease listing", err)
		}
		if n := f.count(leaseJobsPath); n != fastRetry.Attempts {
			t.Errorf("%d lease job list requests, want %d", n, fastRetry.Attempts)
		}
	})

	t.Run("FindNode lease jobs persistent 503", func(t *testing.T) {
		f := newFakeNomad(t)
		f.handle("GET /v1/nodes", replyJSON([]*api.NodeListStub{stub}))
		f.handle("GET /v1/node/"+testNodeID, replyJSON(&api.Node{ID: testNodeID}))
		f.handle("GET /v1/allocations", replyJSON([]*api.AllocationListStub{}))
		f.handle("GET /v1/var/"+LedgerPath(testNodeID), replyRaw(404, "variable not found"))
		f.handle("GET "+leaseJobsPath, replyRaw(503, "no leader"))
		_, err := f.client().FindNode(context.Background(), testNodeID, "", "default")
		if statusCode(err) != 503 || !strings.Contains(err.Error(), "listing berth") {
			t.Errorf("err = %v, want a 503 naming the lease listing", err)
		}
		if n := f.count(leaseJobsPath); n != fastRetry.Attempts {
			t.Errorf("%d lease job list requests, want %d", n, fastRetry.Attempts)
		}
	})

	t.Run("FindNode ledger read persistent 503", func(t *testing.T) {
		f := newFakeNomad(t)
		f.handle("GET /v1/nodes", replyJSON([]*api.NodeListStub{stub}))
		f.handle("GET /v1/node/"+testNodeID, replyJSON(&api.Node{ID: testNodeID}))
		f.handle("GET /v1/allocations", replyJSON([]*api.AllocationListStub{}))
		f.handle("GET /v1/var/"+LedgerPath(testNodeID), replyRaw(503, "no leader"))
		_, err := f.client().FindNode(context.Background(), testNodeID, "", "default")
		if statusCode(err) != 503 || !strings.Contains(err.Error(), "reservation ledger of node "+testNodeID) {
			t.Errorf("err = %v, want a 503 naming the node's ledger", err)
		}
		if n := f.count("/v1/var/" + LedgerPath(testNodeID)); n != fastRetry.Attempts {
			t.Errorf("%d ledger requests, want %d", n, fastRetry.Attempts)
		}
	})

	t.Run("FindNode node info persistent 503", func(t *testing.T) {
		f := newFakeNomad(t)
		f.handle("GET /v1/nodes", replyJSON([]*api.NodeListStub{stub}))
		f.handle("GET /v1/node/"+testNodeID, replyRaw(503, "no leader"))
		_, err := f.client().FindNode(context.Background(), testNodeID, "", "default")
		if statusCode(err) != 503 || !strings.Contains(err.Error(), "reading node "+testNodeID) {
			t.Errorf("err = %v, want a 503 naming the node", err)
		}
		if n := f.count("/v1/node/" + testNodeID); n != fastRetry.Attempts {
			t.Errorf("%d node requests, want %d", n, fastRetry.Attempts)
		}
	})
}

// writeOp is one non-idempotent Client call. retried marks the
// check-and-set register, which is safe to retry (see RegisterJob).
type writeOp struct {
	name    string
	route   string
	retried bool
	call    func(context.Context, *Client) error
}

func writeOps() []writeOp {
	return []writeOp{
		{
			name:    "RegisterJob",
			route:   "PUT /v1/jobs",
			retried: true,
			call: func(ctx context.Context, c *Client) error {
				_, err := c.RegisterJob(ctx, &api.Job{ID: ptr("web"), Name: ptr("web"), Namespace: ptr("apps")}, 42)
				return err
			},
		},
		{
			name:  "ScaleJob",
			route: "PUT /v1/job/web/scale",
			call: func(ctx context.Context, c *Client) error {
				_, err := c.ScaleJob(ctx, "apps", "web", "app", 3, "test", 42)
				return err
			},
		},
		{
			name:  "StopJob",
			route: "DELETE /v1/job/web",
			call: func(ctx context.Context, c *Client) error {
				return c.StopJob(ctx, "apps", "web", false)
			},
		},
	}
}

func TestWritesAreNotRetried(t *testing.T) {
	for _, op := range writeOps() {
		if op.retried {
			continue // TestRegisterJobRetries
		}
		for _, status := range []int{500, 502, 503, 409} {
			t.Run(fmt.Sprintf("%s/%d", op.name, status), func(t *testing.T) {
				f := newFakeNomad(t)
				f.handle(op.route, replyRaw(status, "write failed"))
				err := op.call(context.Background(), f.client())
				if got := statusCode(err); got != status {
					t.Errorf("statusCode(%v) = %d, want %d", err, got, status)
				}
				var ce *ConnectError
				if errors.As(err, &ce) {
					t.Errorf("an HTTP answer was reported as a connection error: %v", err)
				}
				if n := f.total(); n != 1 {
					t.Errorf("%d requests, want exactly 1: writes are never retried", n)
				}
			})
		}
	}
}

func TestRegisterJobSendsCheckAndSet(t *testing.T) {
	f := newFakeNomad(t)
	f.handle("PUT /v1/jobs", replyRaw(400, "boom"))
	_, _ = f.client().RegisterJob(context.Background(), &api.Job{ID: ptr("web"), Namespace: ptr("apps")}, 42)
	reqs := f.requests("/v1/jobs")
	if len(reqs) != 1 {
		t.Fatalf("%d requests, want 1", len(reqs))
	}
	var body api.JobRegisterRequest
	if err := json.Unmarshal(reqs[0].Body, &body); err != nil {
		t.Fatalf("decoding the register body: %v", err)
	}
	if !body.EnforceIndex || body.JobModifyIndex != 42 {
		t.Errorf("EnforceIndex = %v, JobModifyIndex = %d; want true and 42", body.EnforceIndex, body.JobModifyIndex)
	}
	if got := reqs[0].Query.Get("namespace"); got != "apps" {
		t.Errorf("namespace = %q, want the job's namespace apps", got)
	}
}

func TestStopJobMissingIsNotAnError(t *testing.T) {
	f := newFakeNomad(t)
	f.handle("DELETE /v1/job/web", replyRaw(404, "job not found"))
	if err := f.client().StopJob(context.Background(), "apps", "web", true); err != nil {
		t.Errorf("StopJob of a missing job: %v", err)
	}
	if n := f.total(); n != 1 {
		t.Errorf("%d requests, want 1", n)
	}
	if got := f.requests("/v1/job/web")[0].Query.Get("purge"); got != "true" {
		t.Errorf("purge = %q, want true", got)
	}
}

// callOp is any Client call a connection test exercises; write says
// whether it must be tried only once.
type callOp struct {
	name  string
	write bool
	call  func(context.Context, *Client) error
}

func allOps() []callOp {
	var out []callOp
	for _, op := range readOps() {
		out = append(out, callOp{name: op.name, call: op.call})
	}
	for _, op := range writeOps() {
		out = append(out, callOp{name: op.name, write: !op.retried, call: op.call})
	}
	return out
}

func TestConnectionRefused(t *testing.T) {
	addr := closedAddress(t)
	c := newTestClient(t, addr)
	for _, op := range allOps() {
		t.Run(op.name, func(t *testing.T) {
			err := op.call(context.Background(), c)
			checkConnectError(t, err, addr)
			if !errors.Is(err, syscall.ECONNREFUSED) {
				t.Errorf("errors.Is(%v, ECONNREFUSED) = false", err)
			}
		})
	}
}

// A server that accepts connections and drops them without an answer:
// reads retry Attempts times, writes try once, both report a ConnectError.
func TestConnectionDropped(t *testing.T) {
	for _, op := range allOps() {
		t.Run(op.name, func(t *testing.T) {
			d := newDroppingListener(t)
			err := op.call(context.Background(), newTestClient(t, d.url()))
			checkConnectError(t, err, d.url())
			want := fastRetry.Attempts
			if op.write {
				want = 1
			}
			if op.name == "RegisterJob" {
				// Registration retries, then reads the job to settle
				// whether a lost attempt was applied; it cannot, so it
				// says the outcome is unknown.
				want = 2 * fastRetry.Attempts
				var uncertain *UncertainWriteError
				if !errors.As(err, &uncertain) {
					t.Errorf("err = %v (%T), want an *UncertainWriteError", err, err)
				}
			}
			if got := d.count(); got != want {
				t.Errorf("%d connections, want %d", got, want)
			}
		})
	}
}

func checkConnectError(t *testing.T, err error, addr string) {
	t.Helper()
	var ce *ConnectError
	if !errors.As(err, &ce) {
		t.Fatalf("err = %v (%T), want a *ConnectError in the chain", err, err)
	}
	if ce.Address != addr {
		t.Errorf("ConnectError.Address = %q, want %q", ce.Address, addr)
	}
	msg := err.Error()
	for _, want := range []string{addr, "NOMAD_ADDR", "cannot reach Nomad"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q does not contain %q", msg, want)
		}
	}
	// The url.Error prefix (`Get "http://...":`) is dropped.
	for _, verb := range []string{`Get "`, `Put "`, `Delete "`} {
		if strings.Contains(msg, verb) {
			t.Errorf("error %q repeats the request URL", msg)
		}
	}
	if statusCode(err) != 0 || IsNotFound(err) || IsForbidden(err) {
		t.Errorf("a connection error has a status: %d", statusCode(err))
	}
}

func TestContextDeadlineOnHangingServer(t *testing.T) {
	for _, op := range allOps() {
		t.Run(op.name, func(t *testing.T) {
			f := newFakeNomad(t)
			hang := hangUntilDone(t)
			for _, route := range []string{
				"GET /v1/nodes", "GET /v1/vars", "GET /v1/job/web", "GET /v1/job/web/allocations", "GET /v1/job/web/deployment",
				"PUT /v1/jobs", "PUT /v1/job/web/scale", "DELETE /v1/job/web",
			} {
				f.handle(route, hang)
			}
			c := f.client()

			ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
			defer cancel()
			start := time.Now()
			err := op.call(ctx, c)
			elapsed := time.Since(start)
			if err == nil {
				t.Fatal("no error from a server that never answers")
			}
			if elapsed > 2*time.Second {
				t.Errorf("returned after %s, want promptly after the 50ms deadline", elapsed)
			}
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("errors.Is(%v, DeadlineExceeded) = false", err)
			}
			var ce *ConnectError
			if errors.As(err, &ce) {
				t.Errorf("a deadline was reported as a connection error: %v", err)
			}
			if n := f.total(); n != 1 {
				t.Errorf("%d requests, want 1: an expired context is not retried", n)
			}
		})
	}
}

func TestContextCanceledBeforeCall(t *testing.T) {
	f := newFakeNomad(t)
	f.handle("GET /v1/nodes", replyJSON([]*api.NodeListStub{}))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := f.client().ListNodes(ctx, NodeFilter{}, false, "default")
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
	var ce *ConnectError
	if errors.As(err, &ce) {
		t.Errorf("a canceled context was reported as a connection error: %v", err)
	}
	if n := f.total(); n > 1 {
		t.Errorf("%d requests after cancellation", n)
	}
}

// A context that ends while readRetry waits between tries stops the wait.
func TestContextEndsDuringBackoff(t *testing.T) {
	f := newFakeNomad(t)
	f.handle("GET /v1/nodes", replyRaw(503, "no leader"))
	c := f.client(func(c *Config) { c.Retry = RetryPolicy{Attempts: 5, Base: 10 * time.Second, Max: 10 * time.Second} })

	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := c.ListNodes(ctx, NodeFilter{}, false, "default")
	if elapsed := time.Since(start); elapsed > 2*time.Second {
		t.Errorf("returned after %s; the backoff ignored the context", elapsed)
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err = %v, want DeadlineExceeded", err)
	}
	if n := f.total(); n != 1 {
		t.Errorf("%d requests, want 1", n)
	}
}

func TestErrorClassification(t *testing.T) {
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}
	cases := []struct {
		name      string
		err       error
		conn      bool
		retryable bool
	}{
		{name: "nil", err: nil},
		{name: "plain error", err: errors.New("something")},
		{name: "dial refused", err: refused, conn: true, retryable: true},
		{name: "url.Error around dial refused", err: &url.Error{Op: "Get", URL: "http://x", Err: refused}, conn: true, retryable: true},
		{name: "url.Error around EOF", err: &url.Error{Op: "Get", URL: "http://x", Err: io.EOF}, conn: true, retryable: true},
		{name: "wrapped url.Error", err: fmt.Errorf("listing: %w", &url.Error{Op: "Get", URL: "http://x", Err: io.EOF}), conn: true, retryable: true},
		{name: "deadline", err: context.DeadlineExceeded},
		{name: "url.Error around deadline", err: &url.Error{Op: "Get", URL: "http://x", Err: context.DeadlineExceeded}},
		{name: "url.Error around canceled", err: &url.Error{Op: "Get", URL: "http://x", Err: context.Canceled}},
		{name: "JSON syntax error", err: &json.SyntaxError{Offset: 1}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := isConnectionError(tc.err); got != tc.conn {
				t.Errorf("isConnectionError = %v, want %v", got, tc.conn)
			}
			if got := isRetryable(tc.err); got != tc.retryable {
				t.Errorf("isRetryable = %v, want %v", got, tc.retryable)
			}
			if got := statusCode(tc.err); got != 0 {
				t.Errorf("statusCode = %d, want 0", got)
			}
		})
	}
}

func TestConnectErrorMessage(t *testing.T) {
	inner := errors.New("dial tcp 10.0.0.1:4646: connect: connection refused")
	ce := &ConnectError{
		Address: "http://10.0.0.1:4646",
		Err:     &url.Error{Op: "Get", URL: "http://10.0.0.1:4646/v1/nodes?filter=secret", Err: inner},
	}
	msg := ce.Error()
	for _, want := range []string{"http://10.0.0.1:4646", inner.Error(), "NOMAD_ADDR", `"address"`} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q lacks %q", msg, want)
		}
	}
	if strings.Contains(msg, "filter=secret") {
		t.Errorf("message %q carries the request's query string", msg)
	}
	if !errors.Is(ce, inner) {
		t.Error("ConnectError does not unwrap to its cause")
	}
}

// A cluster electing a leader answers 500 for a few seconds: reads keep
// trying through UnavailableAttempts, while an address that does not
// answer at all gives up after Attempts.
func TestReadRetriesRideOverAnElection(t *testing.T) {
	policy := RetryPolicy{Attempts: 2, UnavailableAttempts: 8, Base: time.Millisecond, Max: 2 * time.Millisecond}
	f := newFakeNomad(t)
	var mu sync.Mutex
	answered := 0
	f.handle("GET /v1/job/web", func(w http.ResponseWriter, _ *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		if answered++; answered <= 6 {
			http.Error(w, "No cluster leader", http.StatusInternalServerError)
			return
		}
		_ = json.NewEncoder(w).Encode(&api.Job{ID: ptr("web"), Name: ptr("web")})
	})
	c := f.client(func(c *Config) { c.Retry = policy })
	job, err := c.getJob(context.Background(), "default", "web")
	if err != nil || job == nil {
		t.Fatalf("GetJob during an election: job %v, err %v", job, err)
	}
	if n := f.count("/v1/job/web"); n != 7 {
		t.Errorf("requests = %d, want 7 (six 500s, then the answer)", n)
	}

	f2 := newFakeNomad(t)
	f2.handle("GET /v1/job/web", func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "No cluster leader", http.StatusInternalServerError)
	})
	if _, err := f2.client(func(c *Config) { c.Retry = policy }).getJob(context.Background(), "default", "web"); err == nil {
		t.Fatal("GetJob succeeded against a cluster that never elects a leader")
	}
	if n := f2.count("/v1/job/web"); n != 8 {
		t.Errorf("requests = %d, want UnavailableAttempts = 8", n)
	}

	d := newDroppingListener(t)
	c3 := newTestClient(t, d.url(), func(c *Config) { c.Retry = policy })
	if _, err := c3.GetJob(context.Background(), "default", "web"); err == nil {
		t.Fatal("GetJob succeeded against a server that drops every connection")
	}
	if n := d.count(); n != 2 {
		t.Errorf("connections = %d, want Attempts = 2", n)
	}
}
