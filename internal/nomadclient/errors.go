package nomadclient

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"time"

	"github.com/hashicorp/nomad/api"
)

// IsNotFound reports whether err is Nomad answering 404.
func IsNotFound(err error) bool { return statusCode(err) == 404 }

// IsForbidden reports whether err is Nomad answering 403 (ACL denied).
func IsForbidden(err error) bool { return statusCode(err) == 403 }

// statusCode returns the HTTP status of an unexpected Nomad response, or 0.
func statusCode(err error) int {
	var ure api.UnexpectedResponseError
	if errors.As(err, &ure) && ure.HasStatusCode() {
		return ure.StatusCode()
	}
	var pure *api.UnexpectedResponseError
	if errors.As(err, &pure) && pure != nil && pure.HasStatusCode() {
		return pure.StatusCode()
	}
	return 0
}

// OutcomeUnknown reports whether a failed write may still have been carried
// out by Nomad. Job registrations settle that themselves (they ask Nomad
// after a lost answer): a *WriteNotAppliedError was not applied, an
// *UncertainWriteError may have been. For other writes: no answer (other
// than a failure to connect at all, when nothing was sent), a timeout, or a
// server-side error (5xx).
func OutcomeUnknown(err error) bool {
	if err == nil {
		return false
	}
	var refused *WriteNotAppliedError
	if errors.As(err, &refused) {
		return false
	}
	var uncertain *UncertainWriteError
	if errors.As(err, &uncertain) {
		return true
	}
	var opErr *net.OpError
	if errors.As(err, &opErr) && opErr.Op == "dial" {
		return false
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return true
	}
	if code := statusCode(err); code != 0 {
		return code >= 500
	}
	return true // no answer at all
}

// ConnectError says Nomad could not be reached at all.
type ConnectError struct {
	Address string
	Err     error
}

func (e *ConnectError) Error() string {
	if isTLSVerifyError(e.Err) {
		return fmt.Sprintf("the TLS certificate of the Nomad agent at %s is not trusted: %v. Give the provider the CA that "+
			"signed it with \"ca_file\" or \"ca_pem\" (or NOMAD_CACERT), and \"tls_server_name\" if the certificate "+
			"is for another name", e.Address, unwrapURL(e.Err))
	}
	return fmt.Sprintf("cannot reach Nomad at %s: %v. Check that the agent is running and reachable, "+
		"and set the provider's \"address\" attribute or the NOMAD_ADDR environment variable "+
		"to the address of a Nomad agent (for example https://nomad.example.com:4646)", e.Address, unwrapURL(e.Err))
}

func (e *ConnectError) Unwrap() error { return e.Err }

// isTLSVerifyError reports whether err is a failed certificate check,
// which no retry or address change fixes.
func isTLSVerifyError(err error) bool {
	var unknownCA x509.UnknownAuthorityError
	var hostname x509.HostnameError
	var invalid x509.CertificateInvalidError
	var verify *tls.CertificateVerificationError
	return errors.As(err, &unknownCA) || errors.As(err, &hostname) || errors.As(err, &invalid) || errors.As(err, &verify)
}

// unwrapURL drops url.Error's "Get \"http://...\":" prefix, which repeats
// the address and can carry query strings.
func unwrapURL(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// isConnectionError reports whether err means no HTTP answer came back.
func isConnectionError(err error) bool {
	if err == nil || statusCode(err) != 0 || isTimeout(err) {
		return false
	}
	if _, ok := asVersionError(err); ok {
		return false
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	var netErr net.Error
	var opErr *net.OpError
	var ue *url.Error
	return errors.As(err, &opErr) || errors.As(err, &netErr) || errors.As(err, &ue)
}

// isRetryable reports whether an idempotent call that failed with err may
// succeed when tried again: no answer at all, a server-side 5xx, or 429
// (Nomad's per-client connection limit).
func isRetryable(err error) bool {
	if isTLSVerifyError(err) || isTimeout(err) {
		return false
	}
	if isConnectionError(err) {
		return true
	}
	code := statusCode(err)
	return code == 429 || code >= 500 && code <= 599
}

// TimeoutError says Nomad accepted a request but did not answer it within
// berth's bound (request_timeout, or a blocking query's wait plus that).
// It is not a ConnectError: the agent was reachable but stuck, overloaded
// or paused, and retrying it at once would only wait again.
type TimeoutError struct {
	Address string        // redacted: never carries credentials
	Op      string        // what berth was doing, e.g. "read job"; may be empty
	Method  string        // HTTP method
	Path    string        // request path, without the query string
	Waited  time.Duration // how long berth waited for the answer
}

func (e *TimeoutError) Error() string {
	doing := e.Method + " " + e.Path
	if e.Op != "" {
		doing = e.Op + " (" + doing + ")"
	}
	return fmt.Sprintf("Nomad at %s did not answer within %s while berth was doing: %s. The agent accepted the "+
		"connection but sent no reply: it may be overloaded, paused, or behind a proxy that holds requests. Check the "+
		"agent (nomad agent-info, its log), or raise the provider's \"request_timeout\" if it is merely slow",
		e.Address, e.Waited, doing)
}

// isTimeout reports whether err is berth's own per-request deadline.
func isTimeout(err error) bool {
	var te *TimeoutError
	return errors.As(err, &te)
}

// nameTimeout records op in a TimeoutError that does not say yet what
// berth was doing.
func nameTimeout(err error, op string) {
	var te *TimeoutError
	if errors.As(err, &te) && te.Op == "" {
		te.Op = op
	}
}

// RedactAddress hides the password of credentials embedded in an address
// (https://user:pass@host becomes https://user:xxxxx@host). An address
// that does not parse (or parses as an opaque URL) loses everything between "://" and the last "@" of
// its authority instead, so a malformed one cannot leak either.
func RedactAddress(addr string) string {
	// "user:pw@host" without a scheme parses as an opaque URL whose
	// Redacted form still holds the password, so only hierarchical URLs
	// take the library path.
	if u, err := url.Parse(addr); err == nil && u.Opaque == "" {
		if u.User == nil {
			return addr
		}
		if _, hasPassword := u.User.Password(); !hasPassword {
			// A user name alone is usually a token: hide it too.
			u.User = url.User("xxxxx")
			return u.String()
		}
		return u.Redacted()
	}
	scheme, rest, ok := strings.Cut(addr, "://")
	if !ok {
		scheme, rest = "", addr
	}
	end := len(rest)
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		end = i
	}
	if at := strings.LastIndex(rest[:end], "@"); at >= 0 {
		rest = "xxxxx" + rest[at:]
	}
	if ok {
		return scheme + "://" + rest
	}
	return rest
}
