// Package nomadclient is berth's Nomad backend: it builds the Nomad API
// client from plain settings and wraps the calls berth makes with contexts,
// bounded retries, typed errors and structured logging. It knows nothing of
// Terraform schemas; the provider package converts models and calls it.
package nomadclient

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/hashicorp/go-cleanhttp"
	"github.com/hashicorp/nomad/api"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/berthhq/terraform-provider-berth/internal/lease"
)

// DefaultAddress is where a Nomad agent listens unless told otherwise.
const DefaultAddress = "http://127.0.0.1:4646"

// maxIdleConnsPerHost keeps enough connections to the agent open for
// Terraform's parallelism (10 by default) and a few blocking queries.
const maxIdleConnsPerHost = 32

// DefaultRequestTimeout bounds one request when Config.RequestTimeout is
// zero: long enough for a busy leader, short enough that a hung agent does
// not hold `terraform plan` forever.
const DefaultRequestTimeout = 30 * time.Second

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
	// RequestTimeout bounds every request that is not a blocking query;
	// a blocking query gets its wait time plus this. Zero means
	// DefaultRequestTimeout.
	RequestTimeout time.Duration
	// Retry bounds retries of idempotent calls; the zero value means
	// defaultRetry.
	Retry RetryPolicy
	// HoldDriver runs the task of node reservation hold jobs; "" means
	// DefaultHoldDriver.
	HoldDriver string
}

// DefaultHoldDriver is the hold task's driver when none is configured: the
// lease timer's default, so one driver serves both.
const DefaultHoldDriver = lease.DefaultTimerDriver

// Client is a configured Nomad API client. Creating one never contacts
// Nomad, so `terraform validate` works before the cluster is reachable.
type Client struct {
	api *api.Client
	// address is for messages: credentials embedded in the configured
	// address have their password redacted.
	address        string
	namespace      string
	region         string   // as configured; "" is the agent's own
	secrets        []string // masked in every log line (MaskSecrets)
	retry          RetryPolicy
	requestTimeout time.Duration
	holdDriver     string
	drivers        driverCache      // see DetectedDrivers
	identity       *clusterIdentity // see ClusterKey
	gate           *versionGate     // see ClusterVersion
	listings       *jobListings     // see ListedJobModifyIndex
	// now is the clock waits measure time on (time.Now when nil); tests
	// set a fake one so no test races the wall clock.
	now func() time.Time
}

// clock is the current time on c's clock.
func (c *Client) clock() time.Time {
	if c.now != nil {
		return c.now()
	}
	return time.Now()
}

// ValidateAddress checks that addr is an absolute http or https URL.
// Messages show the address with any embedded password redacted.
func ValidateAddress(addr string) error {
	shown := RedactAddress(addr)
	u, err := url.Parse(addr)
	if err != nil {
		// url.Error repeats the raw address; keep only its reason.
		return fmt.Errorf("%q is not a URL: %v", shown, unwrapURL(err))
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return fmt.Errorf("%q must start with http:// or https://", shown)
	}
	if u.Hostname() == "" {
		return fmt.Errorf("%q has no host", shown)
	}
	return nil
}

// splitCredentials takes user:password out of addr, so it travels as a
// basic-auth header and never as part of a URL that errors and logs echo.
func splitCredentials(addr string) (bare string, auth *api.HttpBasicAuth) {
	u, err := url.Parse(addr)
	if err != nil || u.User == nil {
		return addr, nil
	}
	pw, _ := u.User.Password()
	auth = &api.HttpBasicAuth{Username: u.User.Username(), Password: pw}
	u.User = nil
	return u.String(), auth
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

	transport := cleanhttp.DefaultPooledTransport()
	httpClient := &http.Client{Transport: transport}
	// api.ConfigureTLS fills in the transport's TLS config in place and
	// dereferences it, so it must exist first.
	transport.TLSClientConfig = &tls.Config{MinVersion: tls.VersionTLS12}
	// cleanhttp keeps GOMAXPROCS+1 idle connections per host; Terraform
	// runs ten operations at once by default, so most requests would pay
	// for a new connection (and a TLS handshake).
	transport.MaxIdleConnsPerHost = maxIdleConnsPerHost
	if err := api.ConfigureTLS(httpClient, tlsCfg); err != nil {
		// The api package's message can name the key material's kind but
		// never its content.
		return nil, fmt.Errorf("configuring TLS: %w", err)
	}
	shown := RedactAddress(cfg.Address)
	timeout := cfg.RequestTimeout
	if timeout <= 0 {
		timeout = DefaultRequestTimeout
	}
	listings := &jobListings{}
	gate := &versionGate{next: &writeWatch{next: &loggingTransport{next: httpClient.Transport}, listings: listings}, address: shown}
	httpClient.Transport = &deadlineTransport{next: gate, timeout: timeout, address: shown}

	secrets := []string{cfg.Token}
	headers := http.Header{}
	for k, v := range cfg.Headers {
		headers.Set(k, v)
		secrets = append(secrets, headerSecrets(v)...)
	}
	bare, auth := splitCredentials(cfg.Address)
	if auth != nil {
		// https://<token>@host puts the secret in the user name.
		secrets = append(secrets, auth.Password)
		if auth.Password == "" {
			secrets = append(secrets, auth.Username)
		}
	}
	c, err := api.NewClient(&api.Config{
		Address:    bare,
		Region:     cfg.Region,
		Namespace:  cfg.Namespace,
		SecretID:   cfg.Token,
		HttpClient: httpClient,
		HttpAuth:   auth,
		Headers:    headers,
	})
	if err != nil {
		return nil, fmt.Errorf("building the Nomad client for %s: %v", shown, unwrapURL(err))
	}
	retry := cfg.Retry
	if retry.Attempts == 0 {
		retry = defaultRetry
	}
	holdDriver := cfg.HoldDriver
	if holdDriver == "" {
		holdDriver = DefaultHoldDriver
	}
	return &Client{
		api: c, address: shown, namespace: cfg.Namespace, region: cfg.Region, secrets: nonEmpty(secrets),
		retry: retry, requestTimeout: timeout, holdDriver: holdDriver,
		identity: &clusterIdentity{selects: [3]string{bare, cfg.Region, cfg.TLSServerName}},
		gate:     gate, listings: listings,
	}, nil
}

// minMaskedHeaderValue is the shortest header value masked in logs. berth
// never logs header values; masking is a second guard, and masking "1" or
// "true" would blank those strings out of every log line.
const minMaskedHeaderValue = 8

// headerSecrets is what to mask of a header value: all of it and, for
// "<scheme> <credential>" values such as "Bearer abc…", the credential
// alone too, which may be logged without its scheme.
func headerSecrets(v string) []string {
	var out []string
	if len(strings.TrimSpace(v)) >= minMaskedHeaderValue {
		out = append(out, v)
	}
	if _, cred, ok := strings.Cut(strings.TrimSpace(v), " "); ok && len(strings.TrimSpace(cred)) >= minMaskedHeaderValue {
		out = append(out, strings.TrimSpace(cred))
	}
	return out
}

func nonEmpty(ss []string) []string {
	var out []string
	for _, s := range ss {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
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

// Address is the Nomad address the client talks to, with any embedded
// password redacted.
func (c *Client) Address() string { return c.address }

// Namespace is the client's default namespace.
func (c *Client) Namespace() string { return c.namespace }

// API exposes the underlying client for packages that need calls this one
// does not wrap yet (tests, mostly).
func (c *Client) API() *api.Client { return c.api }

// RequestTimeout is the bound on one non-blocking request.
func (c *Client) RequestTimeout() time.Duration { return c.requestTimeout }

// MaskSecrets returns ctx with the token, the values of the extra headers
// (often an Authorization value) and the password of an address's
// credentials masked in every log message and field written through it.
// The provider's protocol server applies it to every RPC.
func (c *Client) MaskSecrets(ctx context.Context) context.Context {
	if c == nil || len(c.secrets) == 0 {
		return ctx
	}
	ctx = tflog.MaskMessageStrings(ctx, c.secrets...)
	ctx = tflog.MaskAllFieldValuesStrings(ctx, c.secrets...)
	return ctx
}

func (c *Client) query(ctx context.Context, q *api.QueryOptions) *api.QueryOptions {
	if q == nil {
		q = &api.QueryOptions{}
	}
	return q.WithContext(ctx)
}

// write is the options of every write berth sends: bound to ctx (its
// deadline and cancellation) and aimed at namespace, where "" is the
// client's own (namespace-less objects pass ""). The token and region are
// the client's, as for every request.
func (c *Client) write(ctx context.Context, namespace string) *api.WriteOptions {
	return (&api.WriteOptions{Namespace: namespace}).WithContext(ctx)
}

// deadlineTransport gives every request its own bound, so a Nomad that
// accepts connections and never answers cannot hang a caller whose context
// has no deadline (Read, ModifyPlan, data sources). A blocking query
// (?index=) is bounded by its wait time plus the timeout instead, so one
// short global response-header timeout cannot cut long waits short.
type deadlineTransport struct {
	next    http.RoundTripper
	timeout time.Duration
	address string
}

// nomadMaxWait is what a Nomad server waits on a blocking query without
// ?wait= (and the most it waits with one); it adds up to wait/16 jitter.
const nomadMaxWait = 5 * time.Minute

func (t *deadlineTransport) bound(req *http.Request) time.Duration {
	q := req.URL.Query()
	if q.Get("index") == "" {
		return t.timeout
	}
	wait := nomadMaxWait
	if d, err := time.ParseDuration(q.Get("wait")); err == nil && d > 0 && d < wait {
		wait = d
	}
	return wait + wait/16 + t.timeout
}

func (t *deadlineTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	parent := req.Context()
	bound := t.bound(req)
	ctx, cancel := context.WithTimeout(parent, bound)
	timedOut := func(err error) error {
		if err != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) && parent.Err() == nil {
			return &TimeoutError{Address: t.address, Method: req.Method, Path: req.URL.Path, Waited: bound}
		}
		return err
	}
	resp, err := t.next.RoundTrip(req.WithContext(ctx))
	if err != nil {
		err = timedOut(err)
		cancel()
		return nil, err
	}
	// The bound covers reading the body too; closing it releases the timer.
	resp.Body = &deadlineBody{ReadCloser: resp.Body, cancel: cancel, timedOut: timedOut}
	return resp, nil
}

type deadlineBody struct {
	io.ReadCloser
	cancel   context.CancelFunc
	timedOut func(error) error
}

func (b *deadlineBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err != nil && err != io.EOF {
		err = b.timedOut(err)
	}
	return n, err
}

func (b *deadlineBody) Close() error {
	err := b.ReadCloser.Close()
	b.cancel()
	return err
}

// loggingTransport writes one debug line per HTTP exchange. It logs the
// method, path (loggedPath) and status only: never headers (the token
// travels in X-Nomad-Token) and never bodies.
type loggingTransport struct{ next http.RoundTripper }

func (t *loggingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	start := time.Now()
	resp, err := t.next.RoundTrip(req)
	fields := map[string]any{
		"method":      req.Method,
		"path":        loggedPath(req.URL.Path),
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

// secretPathPrefixes are API paths whose next segment is an ACL token's
// accessor ID: a secret pasted as one (an import ID) would be logged.
var secretPathPrefixes = []string{"/v1/acl/token/"}

// notSecretSegments are the fixed words that follow a secretPathPrefix.
var notSecretSegments = map[string]bool{"self": true, "onetime": true, "bootstrap": true}

// loggedPath is p with any segment that may hold a secret masked.
func loggedPath(p string) string {
	for _, prefix := range secretPathPrefixes {
		rest, ok := strings.CutPrefix(p, prefix)
		if !ok || rest == "" {
			continue
		}
		seg, tail, more := strings.Cut(rest, "/")
		if notSecretSegments[seg] {
			continue
		}
		if more {
			tail = "/" + tail
		}
		return prefix + maskedSegment + tail
	}
	return p
}

// maskedSegment replaces a masked path segment, as tflog's masking does.
const maskedSegment = "***"
