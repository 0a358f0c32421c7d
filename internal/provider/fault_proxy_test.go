package provider_test

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"sync"
	"testing"
)

// faultProxy is an HTTP reverse proxy in front of a real Nomad agent that
// makes one chosen request's reply get lost: it forwards the request, lets
// the agent carry it out, runs a hook (e.g. SIGKILL the agent, as a crash
// right after the write would) and then drops the connection instead of
// relaying the answer. It makes "the agent died after committing the write
// but before answering" deterministic, which timing a kill from outside
// cannot. Everything else passes through untouched.
type faultProxy struct {
	URL string

	mu    sync.Mutex
	match func(*http.Request) bool
	onHit func()
	hits  []string
}

func startFaultProxy(t *testing.T, target string) *faultProxy {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	p := &faultProxy{}
	base := http.DefaultTransport.(*http.Transport).Clone()
	base.Proxy = nil
	rp := &httputil.ReverseProxy{
		Rewrite:   func(r *httputil.ProxyRequest) { r.SetURL(u) },
		Transport: roundTripFunc(func(req *http.Request) (*http.Response, error) { return p.roundTrip(base, req) }),
		// Abort the client's connection: berth sees the reply lost, not
		// an HTTP error status.
		ErrorHandler: func(http.ResponseWriter, *http.Request, error) { panic(http.ErrAbortHandler) },
	}
	srv := httptest.NewServer(rp)
	t.Cleanup(srv.Close)
	p.URL = srv.URL
	return p
}

// arm makes the next request matching match lose its reply, after onHit
// ran.
func (p *faultProxy) arm(match func(*http.Request) bool, onHit func()) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.match, p.onHit = match, onHit
}

// lost returns the requests whose reply was dropped so far.
func (p *faultProxy) lost() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.hits...)
}

var errReplyLost = errors.New("fault proxy: reply dropped")

func (p *faultProxy) roundTrip(base http.RoundTripper, req *http.Request) (*http.Response, error) {
	p.mu.Lock()
	hit := p.match != nil && p.match(req)
	onHit := p.onHit
	if hit {
		p.match, p.onHit = nil, nil
		p.hits = append(p.hits, req.Method+" "+req.URL.Path)
	}
	p.mu.Unlock()
	resp, err := base.RoundTrip(req)
	if !hit {
		return resp, err
	}
	if err == nil {
		resp.Body.Close()
	}
	if onHit != nil {
		onHit()
	}
	return nil, errReplyLost
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
