package nomadclient

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/hashicorp/nomad/api"

	"github.com/berthhq/terraform-provider-berth/internal/lease"
)

// LeaseResultSignature reads the signature of a lease's result: the JWT
// the lease's timer printed first in its log (lease.ResultIdentity), ""
// when there is none (a lease from before results were signed, or a log
// already gone).
func (c *Client) LeaseResultSignature(ctx context.Context, namespace, allocID string) (string, error) {
	path := fmt.Sprintf("alloc/logs/%s.stdout.0", lease.TimerTask)
	first, err := getOrNil(ctx, c, "read lease timer log", func(ctx context.Context) (string, error) {
		alloc, _, err := c.api.Allocations().Info(allocID, c.query(ctx, &api.QueryOptions{Namespace: namespace}))
		if err != nil {
			return "", err
		}
		r, err := c.api.AllocFS().Cat(alloc, path, c.query(ctx, &api.QueryOptions{Namespace: namespace}))
		if err != nil {
			return "", err
		}
		defer r.Close()
		line, err := bufio.NewReader(io.LimitReader(r, 16<<10)).ReadString('\n')
		if err != nil && err != io.EOF {
			return "", err
		}
		return strings.TrimSpace(line), nil
	}, "reading the result signature of allocation %s", allocID)
	if err != nil {
		return "", err
	}
	if !compactJWS.MatchString(first) {
		// Not a JWT: an older lease's timer prints nothing, and a log not
		// written yet can read as an error text (with dots in its path).
		return "", nil
	}
	return first, nil
}

// compactJWS is the shape of a JWT: three base64url parts.
var compactJWS = regexp.MustCompile(`^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$`)

// ClusterKeySet is the JSON Web Key Set of the cluster's keyring, which
// verifies the workload identities Nomad signs (/.well-known/jwks.json).
func (c *Client) ClusterKeySet(ctx context.Context) ([]byte, error) {
	raw, err := readRetry(ctx, c, "read the cluster's key set", func(ctx context.Context) (json.RawMessage, error) {
		var out json.RawMessage
		_, err := c.api.Raw().Query("/.well-known/jwks.json", &out, c.query(ctx, nil))
		return out, err
	})
	if err != nil {
		return nil, fmt.Errorf("reading the cluster's key set: %w", err)
	}
	return raw, nil
}

// AllocationJob is the job allocation allocID ran, at the version it ran
// (Nomad keeps it with the allocation), or nil when Nomad no longer has
// the allocation (garbage-collected, or never existed). Each request is
// bounded like every other (deadlineTransport).
func (c *Client) AllocationJob(ctx context.Context, namespace, allocID string) (*Job, error) {
	alloc, err := getOrNil(ctx, c, "read allocation", func(ctx context.Context) (*api.Allocation, error) {
		a, _, err := c.api.Allocations().Info(allocID, c.query(ctx, &api.QueryOptions{Namespace: namespace}))
		return a, err
	}, "reading allocation %s", allocID)
	if err != nil {
		return nil, err
	}
	if alloc == nil || alloc.Namespace != namespace && namespace != "" {
		return nil, nil
	}
	return jobOf(alloc.Job), nil
}
