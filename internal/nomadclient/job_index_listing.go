package nomadclient

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/nomad/api"
)

// The refresh of an unchanged job asks only whether the job still has the
// modify index its last full read saw. Asked one job at a time, that is a
// request per resource on every plan, which across a network is what a
// plan of many jobs waits on. So the question is answered from one
// listing of the namespace's jobs (GET /v1/jobs, which carries every
// job's modify index), made by the first refresh that asks and shared by
// every refresh of the same command.
//
// A listing answers for at most jobListingMaxAge after it was asked for,
// and never after this client wrote anything (writeWatch): a listing then
// is made again. An answer from a listing is what Nomad held at the moment
// of the listing, during this command, just as a read of its own is what
// Nomad held at the moment of that read; a change made in Nomad after the
// listing is found by the next command's listing, as a change made after
// a job's own read is found by the next read.

// jobListingMaxAge is how long a listing answers after it was asked for:
// about as long as the refresh of a few thousand jobs takes (47 s for
// 3,000 on a loaded 2-core machine), so one listing serves a plan, and an
// answer is never older than the refresh's own first reads are by its end.
// A command that runs longer lists again.
const jobListingMaxAge = time.Minute

// jobListings holds a client's listings, one per namespace.
type jobListings struct {
	// writes counts the client's requests that may change something;
	// a listing made while it moved answers nothing.
	writes atomic.Uint64

	mu   sync.Mutex
	byNS map[string]*jobListing
}

// jobListing is one namespace's listing: ready closes once it is made.
type jobListing struct {
	ready  chan struct{}
	asked  time.Time
	writes uint64 // jobListings.writes when it was asked for
	index  map[string]uint64
	err    error
}

// ListedJobModifyIndex is JobModifyIndex answered from the namespace's
// shared listing: the job's modify index as the listing saw it, found
// false when the listing has no such job. An error means the listing
// could not be made (a token without list-jobs, say); the caller then
// reads the job itself.
func (c *Client) ListedJobModifyIndex(ctx context.Context, namespace, id string) (index uint64, found bool, err error) {
	l := c.listings.get(ctx, c, namespace)
	if l == nil {
		return 0, false, errNoListings
	}
	select {
	case <-l.ready:
	case <-ctx.Done():
		return 0, false, ctx.Err()
	}
	if l.err != nil {
		return 0, false, l.err
	}
	if c.listings.writes.Load() != l.writes {
		return 0, false, errListingStale
	}
	index, found = l.index[id]
	return index, found, nil
}

var (
	errNoListings   = errors.New("this client shares no job listings")
	errListingStale = errors.New("the client wrote to Nomad since the job listing was made")
)

// get returns the namespace's listing, asking for a new one (in this
// goroutine; later callers wait for it) when there is none or the one
// there may no longer answer.
func (ls *jobListings) get(ctx context.Context, c *Client, namespace string) *jobListing {
	if ls == nil {
		return nil
	}
	now := c.clock()
	ls.mu.Lock()
	l := ls.byNS[namespace]
	if l != nil && l.usable(ls, now) {
		ls.mu.Unlock()
		return l
	}
	l = &jobListing{ready: make(chan struct{}), asked: now, writes: ls.writes.Load()}
	if ls.byNS == nil {
		ls.byNS = map[string]*jobListing{}
	}
	ls.byNS[namespace] = l
	ls.mu.Unlock()

	// The listing answers refreshes besides the one that asked for it, so
	// that one's cancellation does not end it (the client's per-request
	// deadline still bounds it).
	l.index, l.err = c.listJobIndexes(context.WithoutCancel(ctx), namespace)
	close(l.ready)
	return l
}

// usable reports whether l may still answer at now: made or being made,
// young enough, and no write since it was asked for. A failed listing is
// asked for again after the same age.
func (l *jobListing) usable(ls *jobListings, now time.Time) bool {
	return now.Sub(l.asked) < jobListingMaxAge && now.Sub(l.asked) >= 0 && ls.writes.Load() == l.writes
}

// listJobIndexes lists the namespace's jobs, decoding only each job's ID
// and modify index.
func (c *Client) listJobIndexes(ctx context.Context, namespace string) (map[string]uint64, error) {
	type stub struct {
		ID             string
		JobModifyIndex uint64
	}
	stubs, err := readRetry(ctx, c, "list jobs", func(ctx context.Context) ([]stub, error) {
		var out []stub
		_, err := c.api.Raw().Query("/v1/jobs", &out, c.query(ctx, &api.QueryOptions{Namespace: namespace}))
		return out, err
	})
	if err != nil {
		return nil, err
	}
	out := make(map[string]uint64, len(stubs))
	for _, s := range stubs {
		out[s.ID] = s.JobModifyIndex
	}
	return out, nil
}

// writeWatch counts the requests that may change something in Nomad
// (jobListings.writes), before they are sent and once they are answered,
// so that no listing asked for in between answers. Reads, and the
// requests that only ask Nomad a question (parse, plan, validate,
// search), change nothing.
type writeWatch struct {
	next     http.RoundTripper
	listings *jobListings
}

func (t *writeWatch) RoundTrip(req *http.Request) (*http.Response, error) {
	if changesNothing(req) {
		return t.next.RoundTrip(req)
	}
	t.listings.writes.Add(1)
	defer t.listings.writes.Add(1)
	return t.next.RoundTrip(req)
}

// changesNothing reports whether req only reads or asks: a GET or HEAD,
// or one of the question endpoints berth sends a body to.
func changesNothing(req *http.Request) bool {
	if req.Method == http.MethodGet || req.Method == http.MethodHead {
		return true
	}
	p := req.URL.Path
	switch {
	case p == "/v1/jobs/parse", p == "/v1/validate/job", p == "/v1/search", p == "/v1/search/fuzzy":
		return true
	case strings.HasPrefix(p, "/v1/job/") && strings.HasSuffix(p, "/plan"):
		return true
	}
	return false
}

// ForgetJobListings drops the client's listings, so the next refresh lists
// again, as the next command's client does. For tests that play several
// commands on one client.
func (c *Client) ForgetJobListings() {
	if c.listings == nil {
		return
	}
	c.listings.mu.Lock()
	c.listings.byNS = nil
	c.listings.mu.Unlock()
}
