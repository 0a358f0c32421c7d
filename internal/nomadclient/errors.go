package nomadclient

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/url"

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
	if err == nil || statusCode(err) != 0 {
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
	if isTLSVerifyError(err) {
		return false
	}
	if isConnectionError(err) {
		return true
	}
	code := statusCode(err)
	return code == 429 || code >= 500 && code <= 599
}
