package bench

import (
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
)

// Proxy is a reverse proxy in front of the Nomad agent that counts the
// requests passing through it. Both providers are pointed at it, so the
// counts cover every request a plugin makes, whatever its logging. With
// an RTT it holds every request that long before passing it on: a
// cluster across a network, for every provider alike.
type Proxy struct {
	URL string // http://127.0.0.1:<port>

	srv *http.Server
	ln  net.Listener

	mu     sync.Mutex
	counts map[string]int // "METHOD /v1/path/:name" -> requests since Reset
	spans  []span         // each request's time in the proxy since Reset
}

// span is when a request entered the proxy and when its answer left.
type span struct{ start, end time.Time }

// StartProxy starts a counting proxy to target on a free loopback port,
// adding rtt to every request.
func StartProxy(target string, rtt time.Duration) (*Proxy, error) {
	u, err := url.Parse(target)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &Proxy{URL: "http://" + ln.Addr().String(), ln: ln, counts: map[string]int{}}
	rp := httputil.NewSingleHostReverseProxy(u)
	// Enough idle connections to the agent that the proxy never has to
	// open new ones under Terraform's parallelism: the providers' own
	// connection handling (to the proxy) is what is measured.
	rp.Transport = &http.Transport{
		Proxy:               nil,
		DialContext:         (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConns:        256,
		MaxIdleConnsPerHost: 256,
		IdleConnTimeout:     90 * time.Second,
	}
	p.srv = &http.Server{
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			start := time.Now()
			if rtt > 0 {
				select {
				case <-time.After(rtt):
				case <-r.Context().Done():
					return
				}
			}
			rp.ServeHTTP(w, r)
			p.record(r.Method+" "+Endpoint(r.URL.Path), span{start, time.Now()})
		}),
		ReadHeaderTimeout: time.Minute,
	}
	go func() { _ = p.srv.Serve(ln) }()
	return p, nil
}

func (p *Proxy) record(key string, s span) {
	p.mu.Lock()
	p.counts[key]++
	p.spans = append(p.spans, s)
	p.mu.Unlock()
}

// Reset starts a new count and returns the one it ends: requests by
// endpoint since the last Reset, and the longest chain among them
// (LongestChain).
func (p *Proxy) Reset() (map[string]int, int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	old, spans := p.counts, p.spans
	p.counts, p.spans = map[string]int{}, nil
	return old, LongestChain(spans)
}

// LongestChain is the most requests of spans that ran one after another:
// each started after the one before it was answered. Across a network a
// command waits at least that many round trips, whatever its parallelism.
func LongestChain(spans []span) int {
	byStart := slices.Clone(spans)
	slices.SortFunc(byStart, func(a, b span) int { return a.start.Compare(b.start) })
	type done struct {
		end   time.Time
		chain int
	}
	var ended []done // chains of the spans already seen, to merge by end
	best, longest := 0, 0
	for _, s := range byStart {
		// Every span that ended before s started may precede it.
		slices.SortFunc(ended, func(a, b done) int { return a.end.Compare(b.end) })
		i := 0
		for ; i < len(ended) && !ended[i].end.After(s.start); i++ {
			best = max(best, ended[i].chain)
		}
		ended = ended[i:]
		ended = append(ended, done{s.end, best + 1})
		longest = max(longest, best+1)
	}
	return longest
}

// Close stops the proxy.
func (p *Proxy) Close() error { return p.srv.Close() }

var uuidRE = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

// Endpoint reduces a request path to its endpoint: bench job names become
// ":name" and UUIDs ":id", so "/v1/job/bench-peer-wait-7/allocations" and
// the same for job 8 count as one endpoint.
func Endpoint(path string) string {
	segs := strings.Split(path, "/")
	for i, s := range segs {
		switch {
		case strings.HasPrefix(s, "bench-"):
			segs[i] = ":name"
		case uuidRE.MatchString(s):
			segs[i] = ":id"
		}
	}
	return strings.Join(segs, "/")
}

// Total is the number of requests in counts.
func Total(counts map[string]int) int {
	n := 0
	for _, c := range counts {
		n += c
	}
	return n
}

// EndpointCount is one endpoint's share of a count.
type EndpointCount struct {
	Endpoint string `json:"endpoint"`
	Requests int    `json:"requests"`
}

// ByEndpoint returns counts sorted by requests, most first.
func ByEndpoint(counts map[string]int) []EndpointCount {
	out := make([]EndpointCount, 0, len(counts))
	for k, v := range counts {
		out = append(out, EndpointCount{k, v})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Requests != out[j].Requests {
			return out[i].Requests > out[j].Requests
		}
		return out[i].Endpoint < out[j].Endpoint
	})
	return out
}
