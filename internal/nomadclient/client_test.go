package nomadclient

import (
	"bytes"
	"context"
	"encoding/pem"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/hashicorp/terraform-plugin-log/tflog"
	"github.com/hashicorp/terraform-plugin-log/tflogtest"
)

func TestValidateAddress(t *testing.T) {
	cases := []struct {
		addr    string
		wantErr string // "" means valid
	}{
		{addr: "http://127.0.0.1:4646"},
		{addr: "https://nomad.example.com"},
		{addr: "https://nomad.example.com:4646/"},
		{addr: "http://[::1]:4646"},
		{addr: "://no-scheme", wantErr: "is not a URL"},
		{addr: "127.0.0.1:4646", wantErr: "is not a URL"},
		{addr: "http://nomad.example.com:port", wantErr: "is not a URL"},
		{addr: "http://[::1", wantErr: "is not a URL"},
		{addr: "ftp://nomad.example.com", wantErr: "must start with http:// or https://"},
		{addr: "unix:///var/run/nomad.sock", wantErr: "must start with http:// or https://"},
		{addr: "nomad.example.com", wantErr: "must start with http:// or https://"},
		{addr: "/v1/nodes", wantErr: "must start with http:// or https://"},
		{addr: "http://", wantErr: "has no host"},
		{addr: "https:", wantErr: "has no host"},
		{addr: "http:///v1/nodes", wantErr: "has no host"},
	}
	for _, tc := range cases {
		t.Run(tc.addr, func(t *testing.T) {
			err := ValidateAddress(tc.addr)
			checkErr(t, "ValidateAddress", err, tc.wantErr)
			if tc.wantErr != "" && !strings.Contains(err.Error(), tc.addr) {
				t.Errorf("ValidateAddress error %q does not name the address", err)
			}

			// New applies the same validation, without contacting anything.
			c, err := New(Config{Address: tc.addr})
			checkErr(t, "New", err, tc.wantErr)
			if err == nil && c.Address() != tc.addr {
				t.Errorf("Address() = %q, want %q", c.Address(), tc.addr)
			}
		})
	}
}

// "http://:4646" has a port but no host name. ValidateAddress only checks
// url.URL.Host, which is ":4646" here, so it is accepted and requests go
// to whatever listens on port 4646 of the local machine.
func TestValidateAddressPortWithoutHost(t *testing.T) {
	if err := ValidateAddress("http://:4646"); err == nil || !strings.Contains(err.Error(), "has no host") {
		t.Errorf(`ValidateAddress("http://:4646") = %v, want a "has no host" error`, err)
	}
}

func checkErr(t *testing.T, what string, err error, want string) {
	t.Helper()
	switch {
	case want == "" && err != nil:
		t.Errorf("%s: unexpected error: %v", what, err)
	case want != "" && err == nil:
		t.Errorf("%s: no error, want one containing %q", what, want)
	case want != "" && !strings.Contains(err.Error(), want):
		t.Errorf("%s: error %q does not contain %q", what, err, want)
	}
}

func TestNewTLSMaterial(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "does-not-exist.pem")
	garbageFile := filepath.Join(dir, "garbage.pem")
	if err := os.WriteFile(garbageFile, []byte("this is not a certificate"), 0o600); err != nil {
		t.Fatal(err)
	}
	certPEM, keyPEM := selfSignedPEM(t)
	certFile := filepath.Join(dir, "cert.pem")
	keyFile := filepath.Join(dir, "key.pem")
	if err := os.WriteFile(certFile, []byte(certPEM), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, []byte(keyPEM), 0o600); err != nil {
		t.Fatal(err)
	}
	// A PEM block whose content is not a certificate.
	bogusPEM := "-----BEGIN CERTIFICATE-----\nc2VjcmV0LWJ1dC1ub3QtYS1jZXJ0aWZpY2F0ZQ==\n-----END CERTIFICATE-----\n"
	const bogusContent = "c2VjcmV0LWJ1dC1ub3QtYS1jZXJ0aWZpY2F0ZQ"
	bogusKey := "-----BEGIN EC PRIVATE KEY-----\nc2VjcmV0LWtleS1tYXRlcmlhbA==\n-----END EC PRIVATE KEY-----\n"
	const bogusKeyContent = "c2VjcmV0LWtleS1tYXRlcmlhbA"

	cases := []struct {
		name     string
		cfg      Config
		wantErr  string   // "" means New succeeds
		mustName []string // further strings the error must contain
	}{
		{name: "unreadable ca_file", cfg: Config{CAFile: missing}, wantErr: "CA certificate", mustName: []string{missing}},
		{name: "unreadable cert_file", cfg: Config{CertFile: missing, KeyFile: keyFile}, wantErr: "client certificate", mustName: []string{missing}},
		{name: "unreadable key_file", cfg: Config{CertFile: certFile, KeyFile: missing}, wantErr: "client key", mustName: []string{missing}},
		{name: "ca_file is a directory", cfg: Config{CAFile: dir}, wantErr: "CA certificate"},
		{name: "bogus ca_pem", cfg: Config{CAPEM: bogusPEM}, wantErr: "TLS"},
		{name: "text ca_pem", cfg: Config{CAPEM: "not a pem at all"}, wantErr: "TLS"},
		{name: "ca_file with garbage", cfg: Config{CAFile: garbageFile}, wantErr: "TLS"},
		{name: "bogus cert_pem and key_pem", cfg: Config{CertPEM: bogusPEM, KeyPEM: bogusKey}, wantErr: "TLS"},
		{name: "cert_pem with a mismatched key", cfg: Config{CertPEM: certPEM, KeyPEM: bogusKey}, wantErr: "TLS"},
		{name: "cert without key", cfg: Config{CertPEM: certPEM}, wantErr: "client key must be provided"},
		{name: "key without cert", cfg: Config{KeyFile: keyFile}, wantErr: "client cert and client key"},
		{name: "valid ca_pem", cfg: Config{CAPEM: certPEM}},
		{name: "valid ca_file", cfg: Config{CAFile: certFile}},
		{name: "ca_pem wins over an unreadable ca_file", cfg: Config{CAPEM: certPEM, CAFile: missing}},
		{name: "valid client cert and key files", cfg: Config{CertFile: certFile, KeyFile: keyFile}},
		{name: "valid client cert and key PEM", cfg: Config{CertPEM: certPEM, KeyPEM: keyPEM}},
		{name: "skip_verify alone", cfg: Config{SkipVerify: true, TLSServerName: "nomad.example.com"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tc.cfg.Address = "https://nomad.example.com:4646"
			c, err := New(tc.cfg)
			checkErr(t, "New", err, tc.wantErr)
			if err != nil {
				if c != nil {
					t.Errorf("New returned a client along with error %v", err)
				}
				for _, s := range tc.mustName {
					if !strings.Contains(err.Error(), s) {
						t.Errorf("error %q does not contain %q", err, s)
					}
				}
				// Key material never appears in messages.
				for _, secret := range []string{bogusContent, bogusKeyContent, "PRIVATE KEY"} {
					if strings.Contains(err.Error(), secret) {
						t.Errorf("error %q leaks PEM content %q", err, secret)
					}
				}
			}
		})
	}
}

func TestNewDefaults(t *testing.T) {
	// New takes its settings from Config only; environment handling is the
	// provider's job.
	t.Setenv("NOMAD_ADDR", "http://10.255.255.1:1")
	t.Setenv("NOMAD_NAMESPACE", "from-env")

	c, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	if DefaultAddress != "http://127.0.0.1:4646" {
		t.Errorf("DefaultAddress = %q", DefaultAddress)
	}
	if got := c.Address(); got != DefaultAddress {
		t.Errorf("Address() = %q, want %q", got, "http://127.0.0.1:4646")
	}
	if got := c.Namespace(); got != "default" {
		t.Errorf("Namespace() = %q, want %q", got, "default")
	}
	if c.retry != defaultRetry {
		t.Errorf("retry = %+v, want defaultRetry %+v", c.retry, defaultRetry)
	}
	if c.API() == nil {
		t.Error("API() is nil")
	}

	c, err = New(Config{Namespace: "apps", Retry: fastRetry})
	if err != nil {
		t.Fatal(err)
	}
	if c.Namespace() != "apps" || c.retry != fastRetry {
		t.Errorf("Namespace() = %q, retry = %+v; want apps and %+v", c.Namespace(), c.retry, fastRetry)
	}
}

func TestNewMakesNoRequest(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		t.Errorf("New contacted Nomad: %s %s", r.Method, r.URL)
	}))
	t.Cleanup(srv.Close)
	tlsSrv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("New contacted Nomad over TLS: %s %s", r.Method, r.URL)
	}))
	t.Cleanup(tlsSrv.Close)
	caPEM := string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: tlsSrv.Certificate().Raw}))

	for _, cfg := range []Config{
		{Address: srv.URL},
		{Address: srv.URL, Token: "secret", Region: "global", Namespace: "apps", Headers: map[string]string{"X-Test": "1"}},
		{Address: tlsSrv.URL, CAPEM: caPEM},
	} {
		c, err := New(cfg)
		if err != nil {
			t.Fatalf("New(%+v): %v", cfg, err)
		}
		c.MaskSecrets(context.Background())
	}
	if n := calls.Load(); n != 0 {
		t.Errorf("%d requests while creating clients", n)
	}
}

// The CA given to New is the one requests verify the agent against, and an
// untrusted certificate is an error (reported as a connection problem).
func TestTLSVerification(t *testing.T) {
	srv := httptest.NewUnstartedServer(replyJSON([]any{}))
	// The untrusted client's failed handshakes would be logged otherwise.
	srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	srv.StartTLS()
	t.Cleanup(srv.Close)
	caPEM := string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}))

	trusted := newTestClient(t, srv.URL, func(c *Config) { c.CAPEM = caPEM })
	if _, err := trusted.ListNodes(context.Background(), NodeFilter{}, false, "default"); err != nil {
		t.Errorf("ListNodes with the server's CA: %v", err)
	}

	untrusted := newTestClient(t, srv.URL)
	_, err := untrusted.ListNodes(context.Background(), NodeFilter{}, false, "default")
	if err == nil {
		t.Fatal("ListNodes against an untrusted certificate succeeded")
	}
	if !strings.Contains(err.Error(), "certificate") {
		t.Errorf("error %q does not mention the certificate", err)
	}

	insecure := newTestClient(t, srv.URL, func(c *Config) { c.SkipVerify = true })
	if _, err := insecure.ListNodes(context.Background(), NodeFilter{}, false, "default"); err != nil {
		t.Errorf("ListNodes with skip_verify: %v", err)
	}
}

// Token, namespace, region and custom headers travel with requests.
func TestRequestCarriesSettings(t *testing.T) {
	f := newFakeNomad(t)
	f.handle("GET /v1/job/web", replyRaw(http.StatusForbidden, "Permission denied"))
	c := f.client(func(c *Config) {
		c.Token = "s3cr3t-token"
		c.Region = "eu"
		c.Namespace = "apps"
		c.Headers = map[string]string{"x-custom": "yes"}
	})

	_, err := c.getJob(context.Background(), "", "web")
	if !IsForbidden(err) {
		t.Fatalf("GetJob error %v: IsForbidden = false", err)
	}
	reqs := f.requests("/v1/job/web")
	if len(reqs) != 1 {
		t.Fatalf("%d requests, want 1 (403 is not retried)", len(reqs))
	}
	r := reqs[0]
	if got := r.Header.Get("X-Nomad-Token"); got != "s3cr3t-token" {
		t.Errorf("X-Nomad-Token = %q", got)
	}
	if got := r.Header.Get("X-Custom"); got != "yes" {
		t.Errorf("X-Custom = %q", got)
	}
	if got := r.Query.Get("namespace"); got != "apps" {
		t.Errorf("namespace = %q, want the client's default apps", got)
	}
	if got := r.Query.Get("region"); got != "eu" {
		t.Errorf("region = %q", got)
	}
	if strings.Contains(err.Error(), "s3cr3t-token") {
		t.Errorf("error %q contains the token", err)
	}
}

func TestMaskSecrets(t *testing.T) {
	ctx := context.Background()

	var nilClient *Client
	if got := nilClient.MaskSecrets(ctx); got != ctx {
		t.Error("nil client: MaskSecrets changed the context")
	}
	noToken, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	if got := noToken.MaskSecrets(ctx); got != ctx {
		t.Error("empty token: MaskSecrets changed the context")
	}

	var buf bytes.Buffer
	logCtx := tflogtest.RootLogger(ctx, &buf)
	withToken, err := New(Config{Token: "s3cr3t-token"})
	if err != nil {
		t.Fatal(err)
	}
	logCtx = withToken.MaskSecrets(logCtx)
	tflog.Info(logCtx, "token is s3cr3t-token", map[string]any{"field": "Bearer s3cr3t-token"})
	out := buf.String()
	if out == "" {
		t.Fatal("nothing logged")
	}
	if strings.Contains(out, "s3cr3t-token") {
		t.Errorf("token not masked in log output: %s", out)
	}
}

// The request log names method, path and status, never the token.
func TestLoggingTransportOmitsToken(t *testing.T) {
	f := newFakeNomad(t)
	f.handle("GET /v1/nodes", replyRaw(http.StatusInternalServerError, "boom"))
	c := f.client(func(c *Config) { c.Token = "s3cr3t-token" })

	var buf bytes.Buffer
	ctx := tflogtest.RootLogger(context.Background(), &buf)
	if _, err := c.ListNodes(ctx, NodeFilter{}, false, "default"); err == nil {
		t.Fatal("ListNodes against a 500 succeeded")
	}
	out := buf.String()
	for _, want := range []string{"Nomad API request", "/v1/nodes", `"status":500`, "Retrying Nomad call"} {
		if !strings.Contains(out, want) {
			t.Errorf("log output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "s3cr3t-token") {
		t.Errorf("log output contains the token:\n%s", out)
	}
}

// TestLoggingTransportMasksTokenPath: the request log never prints the ID
// in /v1/acl/token/<id> (an accessor ID, or a secret pasted as an import
// ID), while it still shows the rest of the path and fixed words.
func TestLoggingTransportMasksTokenPath(t *testing.T) {
	const id = "5b1e0c1d-8f2a-4c6e-9d3b-7a4f2e1c9b80"
	f := newFakeNomad(t)
	f.handle("GET /v1/acl/token/"+id, replyRaw(http.StatusInternalServerError, "boom"))
	c := f.client()

	var buf bytes.Buffer
	ctx := tflogtest.RootLogger(context.Background(), &buf)
	if _, err := c.GetACLToken(ctx, id); err == nil {
		t.Fatal("GetACLToken against a 500 succeeded")
	}
	out := buf.String()
	if strings.Contains(out, id) {
		t.Errorf("the request log holds the token's ID:\n%s", out)
	}
	if !strings.Contains(out, "/v1/acl/token/***") {
		t.Errorf("the request log does not show the masked path:\n%s", out)
	}
	for in, want := range map[string]string{
		"/v1/acl/token/" + id:       "/v1/acl/token/***",
		"/v1/acl/token/" + id + "/": "/v1/acl/token/***/",
		"/v1/acl/token/self":        "/v1/acl/token/self",
		"/v1/acl/token/onetime":     "/v1/acl/token/onetime",
		"/v1/acl/tokens":            "/v1/acl/tokens",
		"/v1/job/web":               "/v1/job/web",
	} {
		if got := loggedPath(in); got != want {
			t.Errorf("loggedPath(%q) = %q, want %q", in, got, want)
		}
	}
}
