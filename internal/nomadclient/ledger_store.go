package nomadclient

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"time"

	"github.com/hashicorp/nomad/api"
)

// LedgerPrefix is where berth keeps node reservation ledgers in Nomad
// Variables: one variable per node, at LedgerPrefix + node ID.
const LedgerPrefix = "berth/nodes/"

// LedgerPath is the variable path of a node's ledger.
func LedgerPath(nodeID string) string { return LedgerPrefix + nodeID }

// ledgerRequestPath is LedgerPath with the node ID escaped, for building
// request URLs (the api package does not escape variable paths). A valid
// node ID is unchanged by escaping.
func ledgerRequestPath(nodeID string) string { return LedgerPrefix + url.PathEscape(nodeID) }

// ledgerRetry paces the check-and-set loop: many quick tries, since a lost
// race is resolved by the next read.
var ledgerRetry = RetryPolicy{Attempts: ledgerWriteAttempts, Base: 20 * time.Millisecond, Max: time.Second}

// ErrLedgerContention says a ledger write kept losing check-and-set races.
var ErrLedgerContention = errors.New("the node's reservation ledger is under heavy contention: other writers kept changing it; try again")

// ledgerWriteAttempts bounds the check-and-set retry loop.
const ledgerWriteAttempts = 25

// LedgerItems is a ledger variable as read: its items and the modify
// index a check-and-set write must name (0 when the variable is absent).
type LedgerItems struct {
	Items       map[string]string
	ModifyIndex uint64
}

// ReadLedger reads a node's ledger variable; an absent one is empty.
func (c *Client) ReadLedger(ctx context.Context, namespace, nodeID string) (LedgerItems, error) {
	// Raw rather than Variables().Read: that one reports a 403 (no
	// permission) as "not found", which would make a ledger look empty.
	v, err := getOrNil(ctx, c, "read ledger", func(ctx context.Context) (*api.Variable, error) {
		var out api.Variable
		_, err := c.api.Raw().Query("/v1/var/"+ledgerRequestPath(nodeID), &out, c.query(ctx, &api.QueryOptions{Namespace: namespace}))
		return &out, err
	}, "reading the reservation ledger of node %s (variable %s in namespace %q)", nodeID, LedgerPath(nodeID), namespace)
	if err != nil {
		return LedgerItems{}, err
	}
	if v == nil {
		return LedgerItems{Items: map[string]string{}}, nil
	}
	items := map[string]string(v.Items)
	if items == nil {
		items = map[string]string{}
	}
	return LedgerItems{Items: items, ModifyIndex: v.ModifyIndex}, nil
}

// errCAS marks a lost check-and-set race.
var errCAS = errors.New("check-and-set conflict")

// writeLedger writes items with check-and-set against index: create when
// index is 0, delete when items is empty.
func (c *Client) writeLedger(ctx context.Context, namespace, nodeID string, items map[string]string, index uint64) error {
	w := c.write(ctx, namespace)
	path := ledgerRequestPath(nodeID)
	var err error
	switch {
	case len(items) == 0 && index == 0:
		return nil
	case len(items) == 0:
		_, err = c.api.Variables().CheckedDelete(path, index, w)
	case index == 0:
		_, _, err = c.api.Variables().CheckedCreate(&api.Variable{Namespace: namespace, Path: path, Items: items}, w)
	default:
		_, _, err = c.api.Variables().CheckedUpdate(&api.Variable{Namespace: namespace, Path: path, Items: items, ModifyIndex: index}, w)
	}
	var conflict api.ErrCASConflict
	if errors.As(err, &conflict) {
		return errCAS
	}
	if err != nil {
		return fmt.Errorf("writing the reservation ledger of node %s: %w", nodeID, c.classify(err, "write ledger"))
	}
	return nil
}

// UpdateLedger applies change to a node's ledger under check-and-set. On a
// conflict it re-reads the ledger and calls change again (so change must
// re-check capacity from what it is given), with jittered backoff, up to
// a bound; then it gives up with ErrLedgerContention. A change that leaves
// the items as they are writes nothing. An error from change ends the
// loop and is returned wrapped in a *WriteNotAppliedError (nothing was
// written).
func (c *Client) UpdateLedger(ctx context.Context, namespace, nodeID string, change func(items map[string]string) (map[string]string, error)) error {
	_, err := retry(ctx, ledgerRetry, "write ledger of node "+nodeID, func(ctx context.Context, _ int) (struct{}, bool, error) {
		cur, err := c.ReadLedger(ctx, namespace, nodeID)
		if err != nil {
			return struct{}{}, false, err
		}
		next, err := change(cur.Items)
		if err != nil {
			// Refused before anything was written.
			return struct{}{}, false, &WriteNotAppliedError{Err: err}
		}
		if maps.Equal(next, cur.Items) {
			return struct{}{}, false, nil // nothing changes: write nothing
		}
		err = c.writeLedger(ctx, namespace, nodeID, next, cur.ModifyIndex)
		return struct{}{}, errors.Is(err, errCAS), err
	})
	if errors.Is(err, errCAS) {
		return fmt.Errorf("node %s: %w", nodeID, ErrLedgerContention)
	}
	return err
}

// LedgerNodes lists the node IDs that have a ledger, with one call.
func (c *Client) LedgerNodes(ctx context.Context, namespace string) ([]string, error) {
	metas, err := readRetry(ctx, c, "list ledgers", func(ctx context.Context) ([]*api.VariableMetadata, error) {
		out, _, err := c.api.Variables().PrefixList(LedgerPrefix, c.query(ctx, &api.QueryOptions{Namespace: namespace}))
		return out, err
	})
	if err != nil {
		return nil, fmt.Errorf("listing reservation ledgers in namespace %q: %w", namespace, err)
	}
	ids := make([]string, 0, len(metas))
	for _, m := range metas {
		if len(m.Path) > len(LedgerPrefix) {
			ids = append(ids, m.Path[len(LedgerPrefix):])
		}
	}
	return ids, nil
}

// NodeAllocations lists the non-terminal allocations on a node, with
// their resources, in one call.
func (c *Client) NodeAllocations(ctx context.Context, nodeID string) ([]*api.AllocationListStub, error) {
	stubs, err := readRetry(ctx, c, "list node allocations", func(ctx context.Context) ([]*api.AllocationListStub, error) {
		out, _, err := c.api.Allocations().List(c.query(ctx, &api.QueryOptions{
			Namespace: "*",
			Params:    map[string]string{"resources": "true"},
			Filter:    fmt.Sprintf("NodeID == %q and %s", nodeID, nonTerminalAllocs),
		}))
		return out, err
	})
	if err != nil {
		return nil, fmt.Errorf("listing allocations on node %s: %w", nodeID, err)
	}
	return stubs, nil
}
