package nomadclient

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-log/tflog"
	"github.com/hashicorp/terraform-plugin-log/tflogtest"
)

// A listener that accepts and never answers: every call, read or write,
// fails with a *TimeoutError naming the address, what berth was doing and
// how long it waited, although the caller's context has no deadline. The
// timeout is not retried (one connection per call).
func TestRequestTimeoutOnSilentListener(t *testing.T) {
	addr := silentListener(t)
	for _, op := range allOps() {
		t.Run(op.name, func(t *testing.T) {
			c := newTestClient(t, addr, func(c *Config) { c.RequestTimeout = 300 * time.Millisecond })
			err := op.call(context.Background(), c)
			var te *TimeoutError
			if !errors.As(err, &te) {
				t.Fatalf("err = %v (%T), want a *TimeoutError", err, err)
			}
			if te.Address != addr || te.Waited != 300*time.Millisecond || te.Op == "" || te.Path == "" {
				t.Errorf("TimeoutError = %+v; want address %s, waited 300ms, an operation and a path", te, addr)
			}
			for _, want := range []string{addr, "300ms", te.Op, "request_timeout"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("message %q lacks %q", err, want)
				}
			}
			var ce *ConnectError
			if errors.As(err, &ce) {
				t.Errorf("a timeout was reported as a connection error: %v", err)
			}
			if errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("berth's own request bound looks like the caller's deadline: %v", err)
			}
		})
	}
}

// A timeout is not retried: one request reaches the hanging server.
func TestRequestTimeoutIsNotRetried(t *testing.T) {
	f := newFakeNomad(t)
	f.handle("GET /v1/job/web", hangUntilDone(t))
	c := f.client(func(c *Config) { c.RequestTimeout = 200 * time.Millisecond })
	_, err := c.getJob(context.Background(), "apps", "web")
	if !isTimeout(err) {
		t.Fatalf("err = %v, want a TimeoutError", err)
	}
	if n := f.total(); n != 1 {
		t.Errorf("%d requests, want 1", n)
	}
}

// The caller's own earlier deadline wins and stays a context error.
func TestCallerDeadlineBeatsRequestTimeout(t *testing.T) {
	f := newFakeNomad(t)
	f.handle("GET /v1/job/web", hangUntilDone(t))
	c := f.client(func(c *Config) { c.RequestTimeout = time.Hour })
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err := c.getJob(ctx, "apps", "web")
	if isTimeout(err) || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err = %v, want the caller's DeadlineExceeded", err)
	}
}

// A blocking query may wait past request_timeout: its bound is the wait
// (Nomad's 5 minutes when unset) plus Nomad's jitter plus the timeout.
func TestRequestBound(t *testing.T) {
	tr := &deadlineTransport{timeout: 2 * time.Second}
	cases := []struct {
		query string
		want  time.Duration
	}{
		{"", 2 * time.Second},
		{"namespace=x&prefix=ab", 2 * time.Second},
		{"index=7&wait=60000ms", 60*time.Second + 3750*time.Millisecond + 2*time.Second},
		{"index=7", 5*time.Minute + 5*time.Minute/16 + 2*time.Second},
		{"index=7&wait=3600000ms", 5*time.Minute + 5*time.Minute/16 + 2*time.Second},
		{"index=7&wait=bogus", 5*time.Minute + 5*time.Minute/16 + 2*time.Second},
	}
	for _, tc := range cases {
		req, err := http.NewRequest(http.MethodGet, "http://nomad/v1/job/web?"+tc.query, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := tr.bound(req); got != tc.want {
			t.Errorf("bound(%q) = %s, want %s", tc.query, got, tc.want)
		}
	}
}

// A blocking query that Nomad holds longer than request_timeout still
// succeeds: the answer comes when the test releases it, after the
// request has demonstrably outlived request_timeout.
func TestBlockingQueryOutlivesRequestTimeout(t *testing.T) {
	f := newFakeNomad(t)
	outlived := make(chan struct{})
	f.handle("GET /v1/job/web", func(w http.ResponseWriter, r *http.Request) {
		<-outlived
		replyJSON(map[string]any{"ID": "web"})(w, r)
	})
	c := f.client(func(c *Config) { c.RequestTimeout = 50 * time.Millisecond })
	go func() {
		// Outlive the 50ms request_timeout by a wide margin, then answer.
		time.Sleep(300 * time.Millisecond)
		close(outlived)
	}()
	var out map[string]any
	q := c.query(context.Background(), nil)
	q.WaitIndex, q.WaitTime = 7, time.Minute
	if _, err := c.api.Raw().Query("/v1/job/web", &out, q); err != nil {
		t.Fatalf("blocking query failed: %v", err)
	}
}

// Credentials in the address travel as basic auth, never in a URL, and
// never appear in errors or the log.
func TestAddressCredentials(t *testing.T) {
	const password = "pa55-w0rd-x"
	f := newFakeNomad(t)
	f.handle("GET /v1/job/web", replyRaw(http.StatusForbidden, "Permission denied"))
	u, _ := url.Parse(f.srv.URL)
	withCreds := "http://admin:" + password + "@" + u.Host

	var buf bytes.Buffer
	c := newTestClient(t, withCreds)
	ctx := c.MaskSecrets(tflogtest.RootLogger(context.Background(), &buf))
	_, err := c.getJob(ctx, "apps", "web")
	if !IsForbidden(err) {
		t.Fatalf("err = %v, want 403", err)
	}
	r := f.requests("/v1/job/web")[0]
	want := "Basic " + base64.StdEncoding.EncodeToString([]byte("admin:"+password))
	if got := r.Header.Get("Authorization"); got != want {
		t.Errorf("Authorization = %q, want basic auth %q", got, want)
	}
	if strings.Contains(c.Address(), password) || !strings.Contains(c.Address(), "admin:xxxxx@") {
		t.Errorf("Address() = %q, want the password redacted", c.Address())
	}
	tflog.Info(ctx, "address is "+withCreds)

	// Unreachable, timed out and invalid: no message carries the password.
	closed, _ := url.Parse(closedAddress(t))
	unreachable := newTestClient(t, "http://admin:"+password+"@"+closed.Host)
	_, errUnreach := unreachable.GetJob(context.Background(), "apps", "web")
	silent, _ := url.Parse(silentListener(t))
	hung := newTestClient(t, "http://admin:"+password+"@"+silent.Host, func(c *Config) { c.RequestTimeout = 100 * time.Millisecond })
	_, errHung := hung.GetJob(context.Background(), "apps", "web")
	_, errNew := New(Config{Address: "ftp://admin:" + password + "@nomad:4646"})
	errBadPort := ValidateAddress("http://admin:" + password + "@nomad:port")
	for name, e := range map[string]error{"403": err, "unreachable": errUnreach, "timeout": errHung, "scheme": errNew, "port": errBadPort} {
		if e == nil {
			t.Errorf("%s: no error", name)
			continue
		}
		if strings.Contains(e.Error(), password) {
			t.Errorf("%s error carries the password: %v", name, e)
		}
	}
	var ce *ConnectError
	if !errors.As(errUnreach, &ce) || !strings.Contains(errUnreach.Error(), "admin:xxxxx@") {
		t.Errorf("unreachable: %v, want a ConnectError naming the redacted address", errUnreach)
	}
	if !isTimeout(errHung) {
		t.Errorf("silent: %v, want a TimeoutError", errHung)
	}
	if buf.Len() == 0 || strings.Contains(buf.String(), password) {
		t.Errorf("log empty or carries the password:\n%s", buf.String())
	}
}

func TestRedactAddress(t *testing.T) {
	cases := map[string]string{
		"http://127.0.0.1:4646":            "http://127.0.0.1:4646",
		"https://u:p4ss@nomad:4646/x":      "https://u:xxxxx@nomad:4646/x",
		"https://u@nomad":                  "https://xxxxx@nomad",
		"u:p4ss@nomad:4646":                "xxxxx@nomad:4646",
		"http://u:p4ss@nomad:po rt/":       "http://xxxxx@nomad:po rt/",
		"http://u:p4ss@nomad:port?x=@y":    "http://xxxxx@nomad:port?x=@y",
		"http://":                          "http://",
		"http://u:p4ss@[::1:4646/v1?q=1#f": "http://xxxxx@[::1:4646/v1?q=1#f",
	}
	for in, want := range cases {
		if got := RedactAddress(in); got != want {
			t.Errorf("RedactAddress(%q) = %q, want %q", in, got, want)
		}
	}
}

// Header values (often an Authorization value) are masked like the token.
func TestMaskSecretsMasksHeaderValues(t *testing.T) {
	c := newTestClient(t, "http://127.0.0.1:4646", func(c *Config) {
		c.Headers = map[string]string{"Authorization": "Bearer hdr-s3cret"}
	})
	var buf bytes.Buffer
	ctx := c.MaskSecrets(tflogtest.RootLogger(context.Background(), &buf))
	tflog.Info(ctx, "sent Bearer hdr-s3cret", map[string]any{"h": "hdr-s3cret"})
	if buf.Len() == 0 || strings.Contains(buf.String(), "hdr-s3cret") {
		t.Errorf("header value not masked:\n%s", buf.String())
	}

	// Short values (flags such as "1" or "true") are not secrets worth
	// blanking out of every log line; a token as the address's user name is.
	c = newTestClient(t, "http://tok3n-in-user@127.0.0.1:4646", func(c *Config) {
		c.Headers = map[string]string{"X-Debug": "1"}
	})
	buf.Reset()
	ctx = c.MaskSecrets(tflogtest.RootLogger(context.Background(), &buf))
	tflog.Info(ctx, "retry 1 of tok3n-in-user")
	if !strings.Contains(buf.String(), "retry 1 of") || strings.Contains(buf.String(), "tok3n-in-user") {
		t.Errorf("want the short header value kept and the user-name token masked:\n%s", buf.String())
	}
}

// A node ID from user input is one escaped path segment: it cannot add
// segments, a query string or a fragment to the request.
func TestNodeIDIsEscapedInPaths(t *testing.T) {
	const id = "ab/../x?y#z"
	f := newFakeNomad(t)
	f.handle("GET /v1/var/berth/nodes/ab/../x?y#z", replyRaw(404, "variable not found"))
	f.handle("GET /v1/node/ab/../x?y#z", replyRaw(404, "node not found"))
	c := f.client()
	if _, err := c.ReadLedger(context.Background(), "default", id); err != nil {
		t.Fatalf("ReadLedger: %v", err)
	}
	if _, err := c.NodeName(context.Background(), id); err != nil {
		t.Fatalf("NodeName: %v", err)
	}
	want := map[string]bool{
		"/v1/var/berth/nodes/ab%2F..%2Fx%3Fy%23z": false,
		"/v1/node/ab%2F..%2Fx%3Fy%23z":            false,
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, r := range f.reqs {
		if _, ok := want[r.RawPath]; !ok {
			t.Errorf("request to %q: the node ID was not escaped as one segment", r.RawPath)
		}
		want[r.RawPath] = true
		if len(r.Query) > 1 || r.Query.Has("y") {
			t.Errorf("request %q grew a query from the node ID: %v", r.RawPath, r.Query)
		}
	}
	for p, seen := range want {
		if !seen {
			t.Errorf("no request to %s", p)
		}
	}
}
