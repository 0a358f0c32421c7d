package nomadclient

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/hashicorp/terraform-plugin-log/tflog"
)

// RetryPolicy bounds how a call is retried.
type RetryPolicy struct {
	Attempts int           // total tries, including the first
	Base     time.Duration // wait before the second try; doubles each time
	Max      time.Duration // cap on one wait
	// UnavailableAttempts, when larger than Attempts, is the total tries
	// for a read that Nomad answered with 5xx or 429: the agent is there
	// but its cluster is not ready (a leader election, "No cluster leader",
	// "rpc error: failed to get conn"), which takes seconds to pass.
	UnavailableAttempts int
}

// defaultRetry gives up on an address that does not answer after four
// tries (about two seconds), so a wrong address fails promptly, but keeps
// reading through up to eight tries (about ten seconds) while an agent
// answers 5xx: a three-server cluster elects a new leader in two to four
// seconds after its leader dies.
var defaultRetry = RetryPolicy{Attempts: 4, UnavailableAttempts: 8, Base: 250 * time.Millisecond, Max: 2 * time.Second}

// retry is berth's one retry loop: it runs try until it succeeds, says the
// error is final, the policy's attempts run out or ctx ends, waiting with
// jittered exponential backoff in between. try gets the attempt number
// (from 1) and reports whether its error is worth another try. The last
// error is returned as is; a context that ends during a wait returns the
// context's error.
func retry[T any](ctx context.Context, p RetryPolicy, op string, try func(ctx context.Context, attempt int) (T, bool, error)) (T, error) {
	var zero T
	wait := p.Base
	for attempt := 1; ; attempt++ {
		v, again, err := try(ctx, attempt)
		if err == nil {
			return v, nil
		}
		if !again || attempt >= p.Attempts || ctx.Err() != nil {
			return zero, err
		}
		// Full jitter: somewhere in [wait/2, wait].
		sleep := wait/2 + time.Duration(rand.Int64N(int64(wait/2)+1))
		tflog.Debug(ctx, "Retrying Nomad call", map[string]any{
			"operation": op, "attempt": attempt, "error": err.Error(), "backoff_ms": sleep.Milliseconds(),
		})
		t := time.NewTimer(sleep)
		select {
		case <-ctx.Done():
			t.Stop()
			return zero, ctx.Err()
		case <-t.C:
		}
		if wait *= 2; wait > p.Max {
			wait = p.Max
		}
	}
}

// readRetry runs an idempotent call through retry, retrying connection
// errors, 5xx and 429 answers. A final connection error becomes a
// *ConnectError naming the address; a request that hit berth's own
// deadline is a *TimeoutError naming op and is not retried (it already
// waited its full bound).
func readRetry[T any](ctx context.Context, c *Client, op string, call func(context.Context) (T, error)) (T, error) {
	p := c.retry
	p.Attempts = max(p.Attempts, p.UnavailableAttempts)
	v, err := retry(ctx, p, op, func(ctx context.Context, attempt int) (T, bool, error) {
		v, err := call(ctx)
		again := isRetryable(err) && (attempt < c.retry.Attempts || statusCode(err) != 0)
		return v, again, err
	})
	if err != nil {
		return v, c.classify(err, op)
	}
	return v, nil
}

// getOrNil is readRetry for reading one thing that may not exist: Nomad
// answering 404 gives the zero T (nil for a pointer) and no error. Any
// other failure is wrapped with what was being read (format and args,
// e.g. "reading ACL role %s", id).
func getOrNil[T any](ctx context.Context, c *Client, op string, call func(context.Context) (T, error), format string, args ...any) (T, error) {
	v, err := readRetry(ctx, c, op, call)
	if IsNotFound(err) {
		var zero T
		return zero, nil
	}
	if err != nil {
		return v, fmt.Errorf(format+": %w", append(args, err)...)
	}
	return v, nil
}

// classify turns a final transport failure into berth's typed errors.
func (c *Client) classify(err error, op string) error {
	if ve, ok := asVersionError(err); ok {
		return ve
	}
	if isTimeout(err) {
		nameTimeout(err, op)
		return err
	}
	if isConnectionError(err) {
		return &ConnectError{Address: c.address, Err: err}
	}
	return err
}
