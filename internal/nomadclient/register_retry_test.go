package nomadclient

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/hashicorp/nomad/api"
)

// fakeJobStore is a fake Nomad job register endpoint with Nomad's
// check-and-set semantics: it keeps one job and its modify index.
type fakeJobStore struct {
	mu    sync.Mutex
	job   *api.Job
	index uint64
	puts  int
	// dropAfterApply lists the PUT numbers (from 1) whose reply is lost:
	// the write is applied, then the connection is reset.
	dropAfterApply map[int]bool
	// failBeforeApply lists PUT numbers answered 503 without applying.
	failBeforeApply map[int]bool
}

func (s *fakeJobStore) register(w http.ResponseWriter, r *http.Request) {
	var req api.JobRegisterRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		replyRaw(400, err.Error())(w, r)
		return
	}
	s.mu.Lock()
	s.puts++
	n := s.puts
	if s.failBeforeApply[n] {
		s.mu.Unlock()
		replyRaw(503, "No cluster leader")(w, r)
		return
	}
	if req.EnforceIndex && req.JobModifyIndex != s.index {
		// Nomad's own wording for each case.
		msg := "Enforcing job modify index " + itoa(req.JobModifyIndex) + ": job exists with conflicting job modify index: " + itoa(s.index)
		if req.JobModifyIndex == 0 {
			msg = "Enforcing job modify index 0: job already exists"
		}
		s.mu.Unlock()
		replyRaw(500, msg)(w, r)
		return
	}
	s.index += 10
	job := *req.Job
	job.JobModifyIndex = ptr(s.index)
	s.job = &job
	idx := s.index
	s.mu.Unlock()
	if s.dropAfterApply[n] {
		resetConnection(w, r)
		return
	}
	replyJSON(api.JobRegisterResponse{EvalID: "eval-" + itoa(idx), JobModifyIndex: idx})(w, r)
}

func (s *fakeJobStore) info(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	job := s.job
	s.mu.Unlock()
	if job == nil {
		replyRaw(404, "job not found")(w, r)
		return
	}
	replyJSON(job)(w, r)
}

func (s *fakeJobStore) evals(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	idx := s.index
	s.mu.Unlock()
	replyJSON([]*api.Evaluation{
		{ID: "eval-later", JobModifyIndex: idx, CreateIndex: idx + 5},
		{ID: "eval-" + itoa(idx), JobModifyIndex: idx, CreateIndex: idx + 1},
		{ID: "eval-old", JobModifyIndex: idx - 10, CreateIndex: idx - 9},
	})(w, r)
}

func itoa(n uint64) string { b, _ := json.Marshal(n); return string(b) }

func newJobStore(t *testing.T, s *fakeJobStore) *fakeNomad {
	f := newFakeNomad(t)
	f.handle("PUT /v1/jobs", s.register)
	f.handle("GET /v1/job/web", s.info)
	f.handle("GET /v1/job/web/evaluations", s.evals)
	return f
}

func webJob(image string) *api.Job {
	return &api.Job{ID: ptr("web"), Name: ptr("web"), Namespace: ptr("apps"), Meta: map[string]string{"team": "a"},
		TaskGroups: []*api.TaskGroup{{Name: ptr("app"), Tasks: []*api.Task{{Name: "app", Config: map[string]any{"image": image}}}}}}
}

// The server applies the write, then the connection is reset. The retry
// meets "conflicting job modify index", recognizes berth's own write by its
// hash, and returns it: one write in Nomad, no error.
func TestRegisterJobRecognizesItsOwnLostWrite(t *testing.T) {
	for _, tc := range []struct {
		name  string
		index uint64 // the job's modify index before the write; 0 creates
	}{{"update", 20}, {"create", 0}} {
		t.Run(tc.name, func(t *testing.T) {
			s := &fakeJobStore{index: tc.index, dropAfterApply: map[int]bool{1: true}}
			if tc.index != 0 {
				s.job = webJob("old")
				s.job.JobModifyIndex = ptr(tc.index)
			}
			f := newJobStore(t, s)
			in := webJob("new")
			res, err := f.client().RegisterJob(context.Background(), in, tc.index)
			if err != nil {
				t.Fatalf("RegisterJob: %v", err)
			}
			want := tc.index + 10
			if res.JobModifyIndex != want || res.EvalID != "eval-"+itoa(want) {
				t.Errorf("result %+v, want index %d and the register's own evaluation eval-%d", res, want, want)
			}
			if s.puts != 2 || s.index != want {
				t.Errorf("%d PUTs, job index %d; want 2 PUTs and exactly one applied write (index %d)", s.puts, s.index, want)
			}
			if s.job.Meta[MetaWriteHash] == "" || s.job.Meta["team"] != "a" {
				t.Errorf("stored meta %v, want the user's meta plus %s", s.job.Meta, MetaWriteHash)
			}
			if _, ok := in.Meta[MetaWriteHash]; ok {
				t.Error("RegisterJob changed the caller's job meta")
			}
		})
	}
}

// A conflict on the first attempt is someone else's change: returned as
// is, without looking at the live job.
func TestRegisterJobConflictOnFirstAttempt(t *testing.T) {
	s := &fakeJobStore{index: 30, job: webJob("theirs")}
	f := newJobStore(t, s)
	_, err := f.client().RegisterJob(context.Background(), webJob("new"), 20)
	if !IsJobIndexConflict(err) {
		t.Fatalf("err = %v, want the modify index conflict", err)
	}
	if s.puts != 1 || f.count("/v1/job/web") != 0 {
		t.Errorf("%d PUTs, %d job reads; want 1 and 0", s.puts, f.count("/v1/job/web"))
	}
}

// The reply was lost, but what Nomad holds now is not berth's write (its
// hash differs: someone else wrote in between): the conflict is reported.
func TestRegisterJobLostWriteOverwrittenBySomeoneElse(t *testing.T) {
	s := &fakeJobStore{index: 20, dropAfterApply: map[int]bool{1: true}}
	f := newJobStore(t, s)
	f.handle("GET /v1/job/web", func(w http.ResponseWriter, r *http.Request) {
		j := webJob("theirs")
		j.JobModifyIndex = ptr(uint64(99))
		j.Meta[MetaWriteHash] = "0000"
		replyJSON(j)(w, r)
	})
	_, err := f.client().RegisterJob(context.Background(), webJob("new"), 20)
	if !IsJobIndexConflict(err) {
		t.Fatalf("err = %v, want the conflict", err)
	}
}

// 503 before anything was applied, then success: retried, one write.
func TestRegisterJobRetriesTransientFailures(t *testing.T) {
	s := &fakeJobStore{index: 20, failBeforeApply: map[int]bool{1: true}}
	f := newJobStore(t, s)
	res, err := f.client().RegisterJob(context.Background(), webJob("new"), 20)
	if err != nil || res.JobModifyIndex != 30 || s.puts != 2 {
		t.Fatalf("res %+v, err %v, %d PUTs; want index 30 after 2 PUTs", res, err, s.puts)
	}
}

// The write hash depends on the content only: equal jobs hash equally,
// a stale hash key in the input is ignored, a change changes it.
func TestWriteHash(t *testing.T) {
	_, h1, _ := withWriteHash(webJob("a"))
	stale := webJob("a")
	stale.Meta[MetaWriteHash] = "stale"
	_, h2, _ := withWriteHash(stale)
	_, h3, _ := withWriteHash(webJob("b"))
	if h1 == "" || h1 != h2 || h1 == h3 {
		t.Errorf("hashes %q %q %q: want equal content equal and different content different", h1, h2, h3)
	}
	if strings.Contains(h1, " ") || len(h1) != 32 {
		t.Errorf("hash %q is not 32 hex digits", h1)
	}
}
