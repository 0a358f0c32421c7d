// Package nomadclient is berth's Nomad backend: it builds the Nomad API
// client from plain settings and wraps the calls berth makes with contexts,
// bounded retries, typed errors and structured logging. It knows nothing of
// Terraform schemas; the provider package converts models and calls it.
package nomadclient

import (
	"context"
	"crypto/tls"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"time"

	"github.com/hashicorp/go-cleanhttp"
	"github.com/hashicorp/nomad/api"
	"github.com/hashicorp/terraform-plugin-log/tflog"
)

// DefaultAddress is where a Nomad agent listens unless told otherwise.
const DefaultAddress = "http://127.0.0.1:4646"

// Config is everything needed to talk to Nomad. PEM fields win over their
// file counterparts when both are set (the provider rejects that case
// before it gets here).
type Config struct {
	Address       string
	Region        string
	Namespace     string
	Token         string
	CAFile        string
	CAPEM         string
	CertFile      string
	CertPEM       string
	KeyFile       string
	KeyPEM        string
	TLSServerName string
	SkipVerify    bool
	Headers       map[string]string
	// Retry bounds retries of idempotent calls; the zero value means
	// DefaultRetry.
	Retry RetryPolicy
}

// Client is a configured Nomad API client. Creating one never contacts
// Nomad, so `terraform validate` works before the cluster is reachable.
type Client struct {
	api       *api.Client
	address   string
	namespace string
	token     string
	retry     RetryPolicy
}

// ValidateAddress checks that addr is an absolute http or https URL.
func ValidateAddress(addr string) error {
	u, err := url.Parse(addr)
	if err != nil {
		return fmt.Errorf("%q is not a URL: %v", addr, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return fmt.Errorf("%q must start with http:// or https://", addr)
	}
	if u.Hostname() == "" {
		return fmt.Errorf("%q has no host", addr)
	}
	return nil
}

// New builds a client from cfg. It reads certificate files but does not
// open any connection.
func New(cfg Config) (*Client, error) {
	if cfg.Address == "" {
		cfg.Address = DefaultAddress
	}
	if err := ValidateAddress(cfg.Address); err != nil {
		return nil, err
	}
	if cfg.Namespace == "" {
		cfg.Namespace = "default"
	}

	tlsCfg := &api.TLSConfig{TLSServerName: cfg.TLSServerName, Insecure: cfg.SkipVerify}
	var err error
	if tlsCfg.CACertPEM, err = pemOrFile(cfg.CAPEM, cfg.CAFile, "CA certificate"); err != nil {
		return nil, err
	}
	if tlsCfg.ClientCertPEM, err = pemOrFile(cfg.CertPEM, cfg.CertFile, "client certificate"); err != nil {
		return nil, err
	}
	if tlsCfg.ClientKeyPEM, err = pemOrFile(cfg.KeyPEM, cfg.KeyFile, "client key"); err != nil {
		return nil, err
	}

	httpClient := cleanhttp.DefaultPooledClient()
	// api.ConfigureTLS fills in the transport's TLS config in place and
	// dereferences it, so it must exist first.
	httpClient.Transport.(*http.Transport).TLSClientConfig = &tls.Config{MinVersion: tls.VersionTLS12}
	if err := api.ConfigureTLS(httpClient, tlsCfg); err != nil {
		// The api package's message can name the key material's kind but
		// never its content.
		return nil, fmt.Errorf("configuring TLS: %w", err)
	}
	httpClient.Transport = &loggingTransport{next: httpClient.Transport}

	headers := http.Header{}
	for k, v := range cfg.Headers {
		headers.Set(k, v)
	}
	c, err := api.NewClient(&api.Config{
		Address:    cfg.Address,
		Region:     cfg.Region,
		Namespace:  cfg.Namespace,
		SecretID:   cfg.Token,
		HttpClient: httpClient,
		Headers:    headers,
	})
	if err != nil {
		return nil, err
	}
	retry := cfg.Retry
	if retry.Attempts == 0 {
		retry = DefaultRetry
	}
	return &Client{api: c, address: cfg.Address, namespace: cfg.Namespace, token: cfg.Token, retry: retry}, nil
}

func pemOrFile(pem, file, what string) ([]byte, error) {
	if pem != "" {
		return []byte(pem), nil
	}
	if file == "" {
		return nil, nil
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", what, err)
	}
	return b, nil
}

// Address is the Nomad address the client talks to.
func (c *Client) Address() string { return c.address }

// Namespace is the client's default namespace.
func (c *Client) Namespace() string { return c.namespace }

// API exposes the underlying client for packages that need calls this one
// does not wrap yet (tests, mostly).
func (c *Client) API() *api.Client { return c.api }

// MaskSecrets returns ctx with the token masked in every log message and
// field written through it. Call it at the top of every provider RPC.
func (c *Client) MaskSecrets(ctx context.Context) context.Context {
	if c == nil || c.token == "" {
		return ctx
	}
	ctx = tflog.MaskMessageStrings(ctx, c.token)
	ctx = tflog.MaskAllFieldValuesStrings(ctx, c.token)
	return ctx
}

func (c *Client) query(ctx context.Context, q *api.QueryOptions) *api.QueryOptions {
	if q == nil {
		q = &api.QueryOptions{}
	}
	return q.WithContext(ctx)
}

// loggingTransport writes one debug line per HTTP exchange. It logs the
// method, path and status only: never headers (the token travels in
// X-Nomad-Token) and never bodies.
type loggingTransport struct{ next http.RoundTripper }

func (t *loggingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	start := time.Now()
	resp, err := t.next.RoundTrip(req)
	fields := map[string]any{
		"method":      req.Method,
		"path":        req.URL.Path,
		"duration_ms": time.Since(start).Milliseconds(),
	}
	if err != nil {
		fields["error"] = err.Error()
	} else {
		fields["status"] = resp.StatusCode
	}
	tflog.Debug(req.Context(), "Nomad API request", fields)
	return resp, err
}
