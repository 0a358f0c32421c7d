package nomadclient

import (
	"context"
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
	return fmt.Sprintf("cannot reach Nomad at %s: %v. Check that the agent is running and reachable, "+
		"and set the provider's \"address\" attribute or the NOMAD_ADDR environment variable "+
		"to the address of a Nomad agent (for example https://nomad.example.com:4646)", e.Address, unwrapURL(e.Err))
}

func (e *ConnectError) Unwrap() error { return e.Err }

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
	if isConnectionError(err) {
		return true
	}
	code := statusCode(err)
	return code == 429 || code >= 500 && code <= 599
}
