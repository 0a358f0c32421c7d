package nomadclient

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"

	"github.com/hashicorp/go-version"
)

// OldestSupportedNomad is the oldest Nomad release berth is tested on (the
// main suite's agent). A cluster older than it is refused on the first
// request of each process, naming both versions.
const OldestSupportedNomad = "1.10.5"

// agentSelfPath answers with the agent's configuration, its version
// among it (ACL: agent:read).
const agentSelfPath = "/v1/agent/self"

// NomadVersionError says the cluster runs a Nomad too old for berth, or
// for one feature of berth's.
type NomadVersionError struct {
	Address string // redacted
	Have    string // the cluster's version
	Need    string // the oldest version that works
	Feature string // what needs Need; "" for berth as a whole
}

func (e *NomadVersionError) Error() string {
	if e.Feature == "" {
		return fmt.Sprintf("the Nomad agent at %s runs Nomad %s, and berth supports Nomad %s and later: "+
			"upgrade the cluster to Nomad %s or later", e.Address, e.Have, e.Need, e.Need)
	}
	return fmt.Sprintf("%s needs Nomad %s or later, and the Nomad agent at %s runs Nomad %s: "+
		"upgrade the cluster, or leave %s out of the configuration", e.Feature, e.Need, e.Address, e.Have, e.Feature)
}

// asVersionError finds a NomadVersionError in err (the HTTP client wraps
// what a transport returns).
func asVersionError(err error) (*NomadVersionError, bool) {
	var ve *NomadVersionError
	ok := errors.As(err, &ve)
	return ve, ok
}

// versionGate learns the cluster's version from the first request of a
// process (one GET /v1/agent/self, or that request itself when it is one)
// and then fails every request with a NomadVersionError when the version
// is older than OldestSupportedNomad. It sits in the transport so that no
// call can bypass it. A version berth cannot read (a token without
// agent:read, a proxy that hides the endpoint) is "unknown" and lets
// requests through: Nomad then answers for itself.
type versionGate struct {
	next    http.RoundTripper
	address string

	mu      sync.Mutex
	asking  sync.Mutex // held by ClusterVersion while it asks
	done    bool
	version string // "" while unknown
	err     error  // the refusal, once the version is known too old
}

func (g *versionGate) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.URL.Path == agentSelfPath {
		return g.selfRequest(req)
	}
	g.mu.Lock()
	var err error
	if !g.done {
		err = g.readVersion(req)
	}
	if g.err != nil {
		err = g.err
	}
	g.mu.Unlock()
	if err != nil {
		return nil, err
	}
	return g.next.RoundTrip(req)
}

// selfRequest sends a request for /v1/agent/self and, while the version
// is unknown, learns it from the answer (which its caller still reads in
// full). Other requests wait for that answer as they would for the
// gate's own read.
func (g *versionGate) selfRequest(req *http.Request) (*http.Response, error) {
	g.mu.Lock()
	if g.done {
		err := g.err
		g.mu.Unlock()
		if err != nil {
			return nil, err
		}
		return g.next.RoundTrip(req)
	}
	defer g.mu.Unlock()
	resp, err := g.next.RoundTrip(req)
	if err != nil {
		return resp, err
	}
	body, readErr := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(body))
	if readErr != nil {
		return nil, readErr
	}
	g.learn(resp.StatusCode, plainBody(resp.Header, body))
	return resp, g.err
}

// readVersion asks for /v1/agent/self with req's headers (token, custom
// headers, basic auth) and context (its deadline). When that gets no
// answer, neither would req: its error is req's (the caller retries as it
// would have, and the retry asks again), and req is never sent.
func (g *versionGate) readVersion(req *http.Request) error {
	u := *req.URL
	u.Path, u.RawPath, u.RawQuery = agentSelfPath, "", ""
	self, err := http.NewRequestWithContext(req.Context(), http.MethodGet, u.String(), nil)
	if err != nil {
		return err
	}
	self.Header = req.Header.Clone()
	self.Host = req.Host
	resp, err := g.next.RoundTrip(self)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxSelfBody))
	if err != nil {
		return err
	}
	g.learn(resp.StatusCode, plainBody(resp.Header, body))
	return nil
}

// maxSelfBody bounds what the gate reads of an answer of /v1/agent/self.
const maxSelfBody = 4 << 20

// plainBody is body as JSON: Nomad gzips its answer to /v1/agent/self
// (several KiB) for the api client, which asks for gzip and unzips itself,
// so the transport sees it compressed. A body that does not unzip is nil
// (the version stays unknown).
func plainBody(h http.Header, body []byte) []byte {
	if !strings.EqualFold(h.Get("Content-Encoding"), "gzip") {
		return body
	}
	zr, err := gzip.NewReader(bytes.NewReader(body))
	if err != nil {
		return nil
	}
	defer zr.Close()
	plain, err := io.ReadAll(io.LimitReader(zr, maxSelfBody))
	if err != nil {
		return nil
	}
	return plain
}

// learn records what an answer of /v1/agent/self says of the version.
func (g *versionGate) learn(status int, body []byte) {
	g.done = true
	if status != http.StatusOK {
		return // forbidden, or not a Nomad agent's answer: unknown
	}
	var self struct {
		Config struct {
			Version struct{ Version string }
		} `json:"config"`
	}
	if json.Unmarshal(body, &self) != nil || self.Config.Version.Version == "" {
		return
	}
	g.version = self.Config.Version.Version
	if !versionAtLeast(g.version, OldestSupportedNomad) {
		g.err = &NomadVersionError{Address: g.address, Have: g.version, Need: OldestSupportedNomad}
	}
}

// known is the version when the gate has read it, "" otherwise.
func (g *versionGate) known() string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.version
}

// versionAtLeast compares release numbers only: a pre-release or build
// of 1.11.0 counts as 1.11.0. An unreadable version passes.
func versionAtLeast(have, need string) bool {
	h, err := version.NewVersion(have)
	if err != nil {
		return true
	}
	n := version.Must(version.NewVersion(need))
	return !h.Core().LessThan(n.Core())
}

// ClusterVersion is the Nomad version of the agent berth talks to, read
// once per process (the first request reads it); "" when it cannot be
// read (a token without agent:read).
func (c *Client) ClusterVersion(ctx context.Context) string {
	if c.gate == nil {
		return ""
	}
	if v := c.gate.known(); v != "" {
		return v
	}
	// One caller asks; the others wait for its answer.
	c.gate.asking.Lock()
	defer c.gate.asking.Unlock()
	c.gate.mu.Lock()
	done := c.gate.done
	c.gate.mu.Unlock()
	if !done {
		var self json.RawMessage
		_, _ = c.api.Raw().Query(agentSelfPath, &self, c.query(ctx, nil))
	}
	return c.gate.known()
}

// RequireNomad refuses feature on a cluster older than need, naming both
// versions. A cluster whose version berth cannot read passes: Nomad then
// answers the request itself.
func (c *Client) RequireNomad(ctx context.Context, need, feature string) error {
	have := c.ClusterVersion(ctx)
	if have == "" || versionAtLeast(have, need) {
		return nil
	}
	return &NomadVersionError{Address: c.address, Have: have, Need: need, Feature: feature}
}
