package nomadclient

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
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
	// readsFail makes every job read answer 503 (the agent is gone).
	readsFail bool
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
	job, fail := s.job, s.readsFail
	s.mu.Unlock()
	if fail {
		replyRaw(503, "No cluster leader")(w, r)
		return
	}
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

// plan answers a plan with a diff as Nomad does for the question berth
// asks: "None" when the submitted job is the stored one.
func (s *fakeJobStore) plan(w http.ResponseWriter, r *http.Request) {
	var req api.JobPlanRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		replyRaw(400, err.Error())(w, r)
		return
	}
	s.mu.Lock()
	stored := s.job
	s.mu.Unlock()
	diff := "Added"
	if stored != nil {
		a, b := *stored, *req.Job
		a.JobModifyIndex, b.JobModifyIndex = nil, nil
		ja, _ := json.Marshal(a)
		jb, _ := json.Marshal(b)
		diff = "Edited"
		if string(ja) == string(jb) {
			diff = "None"
		}
	}
	replyJSON(api.JobPlanResponse{Diff: &api.JobDiff{Type: diff}})(w, r)
}

func itoa(n uint64) string { b, _ := json.Marshal(n); return string(b) }

func newJobStore(t *testing.T, s *fakeJobStore) *fakeNomad {
	f := newFakeNomad(t)
	f.handle("PUT /v1/jobs", s.register)
	f.handle("GET /v1/job/web", s.info)
	f.handle("GET /v1/job/web/evaluations", s.evals)
	f.handle("PUT /v1/job/web/plan", s.plan)
	return f
}

func webJob(image string) *api.Job {
	return &api.Job{ID: ptr("web"), Name: ptr("web"), Namespace: ptr("apps"), Meta: map[string]string{"team": "a"},
		TaskGroups: []*api.TaskGroup{{Name: ptr("app"), Tasks: []*api.Task{{Name: "app", Config: map[string]any{"image": image}}}}}}
}

// The server applies the write, then the connection is reset. The retry
// meets "conflicting job modify index", recognizes berth's own write (Nomad
// plans it against the live job and finds no difference), and returns it:
// one write in Nomad, no error, and no marker added to the job.
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
			if len(s.job.Meta) != 1 || s.job.Meta["team"] != "a" {
				t.Errorf("stored meta %v, want exactly the user's meta", s.job.Meta)
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
// content differs: someone else wrote in between): the conflict is
// reported, as a write that was not applied.
func TestRegisterJobLostWriteOverwrittenBySomeoneElse(t *testing.T) {
	s := &fakeJobStore{index: 20, dropAfterApply: map[int]bool{1: true}}
	f := newJobStore(t, s)
	f.handle("GET /v1/job/web", func(w http.ResponseWriter, r *http.Request) {
		j := webJob("theirs")
		j.JobModifyIndex = ptr(uint64(99))
		replyJSON(j)(w, r)
	})
	f.handle("PUT /v1/job/web/plan", replyJSON(api.JobPlanResponse{Diff: &api.JobDiff{Type: "Edited"}}))
	_, err := f.client().RegisterJob(context.Background(), webJob("new"), 20)
	var refused *WriteNotAppliedError
	if !IsJobIndexConflict(err) || !errors.As(err, &refused) {
		t.Fatalf("err = %v, want the conflict as a *WriteNotAppliedError", err)
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

// The reply to the write was lost and the agent went away for good: every
// later attempt and the read that would settle it fail. Nobody knows
// whether the job was registered, and RegisterJob says so.
func TestRegisterJobLostWriteUnsettled(t *testing.T) {
	s := &fakeJobStore{index: 20, dropAfterApply: map[int]bool{1: true}, failBeforeApply: map[int]bool{2: true, 3: true}, readsFail: true}
	f := newJobStore(t, s)
	_, err := f.client().RegisterJob(context.Background(), webJob("new"), 20)
	var uncertain *UncertainWriteError
	if !errors.As(err, &uncertain) {
		t.Fatalf("err = %v (%T), want an *UncertainWriteError", err, err)
	}
}

// Nomad refuses with a 500 every time (as its register hooks do, for a
// node pool that does not exist): the job is unchanged, so the write was
// definitely not applied, whatever the status code suggests.
func TestRegisterJobRefusedWith500(t *testing.T) {
	s := &fakeJobStore{index: 20, failBeforeApply: map[int]bool{1: true, 2: true, 3: true}}
	s.job = webJob("old")
	s.job.JobModifyIndex = ptr(uint64(20))
	f := newJobStore(t, s)
	_, err := f.client().RegisterJob(context.Background(), webJob("new"), 20)
	var refused *WriteNotAppliedError
	if !errors.As(err, &refused) || s.puts != 3 {
		t.Fatalf("err = %v (%T) after %d PUTs, want a *WriteNotAppliedError after 3", err, err, s.puts)
	}
	if deref(s.job.JobModifyIndex) != 20 {
		t.Errorf("job index %d, want it untouched", deref(s.job.JobModifyIndex))
	}
}
