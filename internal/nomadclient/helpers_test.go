package nomadclient

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"

	"github.com/berthhq/terraform-provider-berth/internal/hold"
	"github.com/berthhq/terraform-provider-berth/internal/ledger"
)

// fastRetry keeps retry tests fast: three tries, millisecond backoff.
var fastRetry = RetryPolicy{Attempts: 3, Base: time.Millisecond, Max: 5 * time.Millisecond}

// recordedRequest is what the fake server remembers of one request.
type recordedRequest struct {
	Method  string
	Path    string
	RawPath string // as sent, escapes intact
	Query   url.Values
	Header  http.Header
	Body    []byte
}

// fakeNomad is an httptest server answering canned responses per
// "METHOD /path" route. A request to a route that was not set fails the
// test. It counts and records every request.
type fakeNomad struct {
	t   *testing.T
	srv *httptest.Server

	mu     sync.Mutex
	routes map[string]http.HandlerFunc
	reqs   []recordedRequest
}

func newFakeNomad(t *testing.T) *fakeNomad {
	t.Helper()
	f := &fakeNomad{t: t, routes: map[string]http.HandlerFunc{}}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeNomad) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	// Handlers may read the body too.
	r.Body = io.NopCloser(bytes.NewReader(body))
	key := r.Method + " " + r.URL.Path
	f.mu.Lock()
	if h := f.routes[key]; h == nil && key == "GET "+agentSelfPath {
		// The version gate's one read per client: answered as the oldest
		// supported Nomad and left out of the counts, which are berth's
		// calls. A test of the gate sets its own route.
		f.mu.Unlock()
		fmt.Fprintf(w, `{"config":{"Version":{"Version":%q}}}`, OldestSupportedNomad)
		return
	}
	f.reqs = append(f.reqs, recordedRequest{
		Method: r.Method, Path: r.URL.Path, RawPath: r.URL.EscapedPath(), Query: r.URL.Query(), Header: r.Header.Clone(), Body: body,
	})
	h := f.routes[key]
	f.mu.Unlock()
	if h == nil {
		f.t.Errorf("fake Nomad: unexpected request %s %s", r.Method, r.URL.RequestURI())
		http.Error(w, "unexpected request", http.StatusTeapot)
		return
	}
	h(w, r)
}

// handle sets the handler of "METHOD /path".
func (f *fakeNomad) handle(route string, h http.HandlerFunc) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.routes[route] = h
}

// count returns how many requests reached path (any method).
func (f *fakeNomad) count(path string) int {
	return len(f.requests(path))
}

// total returns how many requests reached the server.
func (f *fakeNomad) total() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.reqs)
}

// requests returns the recorded requests to path (any method).
func (f *fakeNomad) requests(path string) []recordedRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []recordedRequest
	for _, r := range f.reqs {
		if r.Path == path {
			out = append(out, r)
		}
	}
	return out
}

// client builds a Client for the fake server with the fast retry policy.
func (f *fakeNomad) client(mods ...func(*Config)) *Client {
	f.t.Helper()
	return newTestClient(f.t, f.srv.URL, mods...)
}

func newTestClient(t *testing.T, addr string, mods ...func(*Config)) *Client {
	t.Helper()
	cfg := Config{Address: addr, Retry: fastRetry}
	for _, m := range mods {
		m(&cfg)
	}
	c, err := New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return c
}

// replyJSON answers 200 with v encoded the way Nomad does, with the index
// headers Nomad sets.
func replyJSON(v any) http.HandlerFunc {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("replyJSON: %v", err))
	}
	return replyRaw(http.StatusOK, string(b))
}

// replyRaw answers with a status and a raw body.
func replyRaw(status int, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("X-Nomad-Index", "7")
		w.Header().Set("X-Nomad-LastContact", "0")
		w.Header().Set("X-Nomad-KnownLeader", "true")
		w.WriteHeader(status)
		_, _ = w.Write([]byte(body))
	}
}

// replySequence answers the i-th request with the i-th handler and every
// later request with the last one.
func replySequence(hs ...http.HandlerFunc) http.HandlerFunc {
	var mu sync.Mutex
	n := 0
	return func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		h := hs[min(n, len(hs)-1)]
		n++
		mu.Unlock()
		h(w, r)
	}
}

// hangUntilDone blocks until the client goes away or the test ends.
func hangUntilDone(t *testing.T) http.HandlerFunc {
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	return func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}
}

// closedAddress returns an http address nothing listens on.
func closedAddress(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	return "http://" + addr
}

// droppingListener accepts TCP connections and closes them at once, so
// every request gets no HTTP answer at all. It counts the connections.
type droppingListener struct {
	l     net.Listener
	mu    sync.Mutex
	conns int
	done  chan struct{}
}

func newDroppingListener(t *testing.T) *droppingListener {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	d := &droppingListener{l: l, done: make(chan struct{})}
	go func() {
		defer close(d.done)
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			d.mu.Lock()
			d.conns++
			d.mu.Unlock()
			_ = c.Close()
		}
	}()
	t.Cleanup(func() {
		_ = l.Close()
		<-d.done
	})
	return d
}

func (d *droppingListener) url() string { return "http://" + d.l.Addr().String() }

func (d *droppingListener) count() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.conns
}

// selfSignedPEM returns a self-signed certificate and its key, PEM encoded.
func selfSignedPEM(t *testing.T) (certPEM, keyPEM string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "berth test"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kb, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})),
		string(pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb}))
}

func bptr(b bool) *bool { return &b }

// leaseJobsPath is where ListNodes and FindNode list berth's lease jobs.
const leaseJobsPath = "/v1/jobs"

// handleLeases answers the lease job listing with jobs (none when empty).
func (f *fakeNomad) handleLeases(jobs ...*api.JobListStub) {
	if jobs == nil {
		jobs = []*api.JobListStub{}
	}
	f.handle("GET "+leaseJobsPath, replyJSON(jobs))
}

// holdStubs are the hold job stubs (with meta) that mirror the ledger of
// nodeID, as the berth job listing returns them.
func holdStubs(t *testing.T, nodeID string, l map[string]ledger.Reservation) []*api.JobListStub {
	t.Helper()
	var out []*api.JobListStub
	for name, r := range l {
		item, err := ledger.EncodeItem(name, r)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, &api.JobListStub{ID: hold.JobID(nodeID, name), Namespace: ledgerNS, Meta: map[string]string{
			hold.MetaKind: hold.KindHold, hold.MetaNodeID: nodeID, hold.MetaNodeReservation: name, hold.MetaLedgerItem: item,
		}})
	}
	return out
}

// resetConnection answers with a TCP reset: the client sees "connection
// reset by peer" (or EOF) and no HTTP answer at all.
func resetConnection(w http.ResponseWriter, _ *http.Request) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		panic("resetConnection: ResponseWriter cannot be hijacked")
	}
	conn, _, err := hj.Hijack()
	if err != nil {
		panic(fmt.Sprintf("resetConnection: %v", err))
	}
	if tcp, ok := conn.(*net.TCPConn); ok {
		_ = tcp.SetLinger(0) // RST instead of FIN
	}
	_ = conn.Close()
}

// silentListener accepts TCP connections and never answers or closes
// them, like an agent that is paused or wedged. It closes them all when
// the test ends.
func silentListener(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		_ = l.Close()
		<-done
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			_ = c.Close()
		}
	})
	return "http://" + l.Addr().String()
}
