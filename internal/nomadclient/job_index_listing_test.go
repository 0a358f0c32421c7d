package nomadclient

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"
)

// listedJobs answers GET /v1/jobs with jobs web-1..web-n at index 10+i of
// the namespace asked for, and the listing with its namespace recorded.
func listedJobs(n int) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ns := r.URL.Query().Get("namespace")
		var stubs []map[string]any
		for i := 1; i <= n; i++ {
			stubs = append(stubs, map[string]any{"ID": fmt.Sprintf("web-%d", i), "Namespace": ns, "JobModifyIndex": 10 + i, "ModifyIndex": 99})
		}
		replyJSON(stubs)(w, r)
	}
}

func TestListedJobModifyIndex_oneListingPerNamespaceForConcurrentRefreshes(t *testing.T) {
	f := newFakeNomad(t)
	f.handle("GET /v1/jobs", listedJobs(50))
	c := f.client()
	clock := &fakeClock{now: time.Unix(1_000_000, 0)}
	c.now = clock.Now

	var wg sync.WaitGroup
	errs := make(chan error, 100)
	for _, ns := range []string{"default", "prod"} {
		for i := 1; i <= 50; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				index, found, err := c.ListedJobModifyIndex(context.Background(), ns, fmt.Sprintf("web-%d", i))
				if err != nil || !found || index != uint64(10+i) {
					errs <- fmt.Errorf("%s web-%d: index %d found %v err %v", ns, i, index, found, err)
				}
			}()
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	reqs := f.requests("/v1/jobs")
	if len(reqs) != 2 {
		t.Fatalf("100 refreshes in 2 namespaces made %d listings, want 2", len(reqs))
	}
	if a, b := reqs[0].Query.Get("namespace"), reqs[1].Query.Get("namespace"); a == b {
		t.Errorf("both listings were of namespace %q", a)
	}
	if _, found, err := c.ListedJobModifyIndex(context.Background(), "default", "gone"); err != nil || found {
		t.Errorf("a job the listing lacks: found %v, err %v; want not found", found, err)
	}
	if n := f.count("/v1/jobs"); n != 2 {
		t.Errorf("a job the listing lacks made another listing (%d in all)", n)
	}
}

func TestListedJobModifyIndex_listsAgainAfterItsAge(t *testing.T) {
	f := newFakeNomad(t)
	f.handle("GET /v1/jobs", listedJobs(1))
	c := f.client()
	clock := &fakeClock{now: time.Unix(1_000_000, 0)}
	c.now = clock.Now
	ask := func() {
		t.Helper()
		if _, found, err := c.ListedJobModifyIndex(context.Background(), "default", "web-1"); err != nil || !found {
			t.Fatalf("found %v, err %v", found, err)
		}
	}
	ask()
	clock.advance(jobListingMaxAge - time.Millisecond)
	ask()
	if n := f.count("/v1/jobs"); n != 1 {
		t.Fatalf("a listing younger than its age was made again: %d listings", n)
	}
	clock.advance(time.Millisecond)
	ask()
	if n := f.count("/v1/jobs"); n != 2 {
		t.Fatalf("a listing of age %s answered: %d listings, want 2", jobListingMaxAge, n)
	}
	clock.advance(-time.Hour) // a clock stepped back never makes a listing young again
	ask()
	if n := f.count("/v1/jobs"); n != 3 {
		t.Fatalf("after the clock stepped back: %d listings, want 3", n)
	}
}

func TestListedJobModifyIndex_aWriteEndsTheListing(t *testing.T) {
	for _, tc := range []struct {
		method, path string
		ends         bool
	}{
		{"PUT", "/v1/job/web-1/scale", true},
		{"DELETE", "/v1/job/web-1", true},
		{"PUT", "/v1/var/app", true},
		{"PUT", "/v1/jobs/parse", false},
		{"PUT", "/v1/job/web-1/plan", false},
		{"PUT", "/v1/validate/job", false},
		{"GET", "/v1/job/web-1", false},
	} {
		t.Run(tc.method+" "+tc.path, func(t *testing.T) {
			f := newFakeNomad(t)
			f.handle("GET /v1/jobs", listedJobs(1))
			f.handle(tc.method+" "+tc.path, replyJSON(map[string]any{}))
			c := f.client()
			if _, _, err := c.ListedJobModifyIndex(context.Background(), "default", "web-1"); err != nil {
				t.Fatal(err)
			}
			var err error
			switch tc.method {
			case "PUT":
				_, err = c.API().Raw().Write(tc.path, map[string]any{}, nil, nil)
			case "DELETE":
				_, err = c.API().Raw().Delete(tc.path, nil, nil)
			case "GET":
				_, err = c.API().Raw().Query(tc.path, &map[string]any{}, nil)
			}
			if err != nil {
				t.Fatalf("the request itself: %v", err)
			}
			if _, _, err := c.ListedJobModifyIndex(context.Background(), "default", "web-1"); err != nil {
				t.Fatal(err)
			}
			want := 1
			if tc.ends {
				want = 2
			}
			if n := f.count("/v1/jobs"); n != want {
				t.Errorf("after %s %s: %d listings, want %d", tc.method, tc.path, n, want)
			}
		})
	}
}

func TestListedJobModifyIndex_aFailedListingIsAnErrorTheCallerReadsPast(t *testing.T) {
	f := newFakeNomad(t)
	f.handle("GET /v1/jobs", replyRaw(http.StatusForbidden, "Permission denied"))
	c := f.client()
	for range 3 {
		if _, _, err := c.ListedJobModifyIndex(context.Background(), "default", "web-1"); err == nil {
			t.Fatal("a refused listing answered")
		}
	}
	if n := f.count("/v1/jobs"); n != 1 {
		t.Errorf("a refused listing was asked for %d times within its age, want 1", n)
	}
}

func TestListedJobModifyIndex_aWaiterGivingUpDoesNotEndTheListing(t *testing.T) {
	f := newFakeNomad(t)
	release := make(chan struct{})
	f.handle("GET /v1/jobs", func(w http.ResponseWriter, r *http.Request) {
		<-release
		listedJobs(1)(w, r)
	})
	c := f.client()
	first := make(chan error, 1)
	go func() {
		_, _, err := c.ListedJobModifyIndex(context.Background(), "default", "web-1")
		first <- err
	}()
	for f.count("/v1/jobs") == 0 {
		time.Sleep(time.Millisecond) // waits on a condition: the listing was asked for
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := c.ListedJobModifyIndex(ctx, "default", "web-1"); err == nil {
		t.Error("a waiter whose context ended got an answer")
	}
	close(release)
	if err := <-first; err != nil {
		t.Errorf("the listing's own caller: %v", err)
	}
}
