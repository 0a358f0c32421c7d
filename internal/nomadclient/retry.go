package nomadclient

import (
	"context"
	"math/rand/v2"
	"time"

	"github.com/hashicorp/terraform-plugin-log/tflog"
)

// RetryPolicy bounds how idempotent calls are retried.
type RetryPolicy struct {
	Attempts int           // total tries, including the first
	Base     time.Duration // wait before the second try; doubles each time
	Max      time.Duration // cap on one wait
}

// DefaultRetry tries four times over roughly two seconds: long enough to
// ride out a leader election, short enough that an unreachable address
// fails promptly.
var DefaultRetry = RetryPolicy{Attempts: 4, Base: 250 * time.Millisecond, Max: 2 * time.Second}

// readRetry runs an idempotent call, retrying connection errors and 5xx
// answers with jittered exponential backoff. A final connection error
// becomes a *ConnectError naming the address.
func readRetry[T any](ctx context.Context, c *Client, op string, call func(context.Context) (T, error)) (T, error) {
	var zero T
	wait := c.retry.Base
	for attempt := 1; ; attempt++ {
		v, err := call(ctx)
		if err == nil {
			return v, nil
		}
		if !isRetryable(err) || attempt >= c.retry.Attempts || ctx.Err() != nil {
			if isConnectionError(err) {
				return zero, &ConnectError{Address: c.address, Err: err}
			}
			return zero, err
		}
		// Full jitter: somewhere in [wait/2, wait).
		sleep := wait/2 + time.Duration(rand.Int64N(int64(wait/2)+1))
		tflog.Debug(ctx, "Retrying Nomad call", map[string]any{
			"operation": op, "attempt": attempt, "error": err.Error(), "backoff_ms": sleep.Milliseconds(),
		})
		select {
		case <-ctx.Done():
			return zero, ctx.Err()
		case <-time.After(sleep):
		}
		if wait *= 2; wait > c.retry.Max {
			wait = c.retry.Max
		}
	}
}
