package nomadclient

import (
	"context"
	"sort"

	"github.com/hashicorp/nomad/api"
)

// aclObjects is one kind of ACL object (roles, auth methods, binding
// rules) as Nomad's API serves them: A is the api type, T berth's. Nomad
// reads, creates, updates and deletes each kind the same way, so the
// kinds share these calls and differ only in the fields below.
type aclObjects[A, T any] struct {
	what    string // in messages, e.g. "ACL role"
	keyFmt  string // how a key shows in messages: %q for a name, %s for an ID
	get     func(key string, q *api.QueryOptions) (*A, *api.QueryMeta, error)
	create  func(obj *A, w *api.WriteOptions) (*A, *api.WriteMeta, error)
	update  func(obj *A, w *api.WriteOptions) (*A, *api.WriteMeta, error)
	del     func(key string, w *api.WriteOptions) (*api.WriteMeta, error)
	fromAPI func(*A) *T
	toAPI   func(T) *A
}

// read reads the object key; (nil, nil) when Nomad has none.
func (k aclObjects[A, T]) read(ctx context.Context, c *Client, key string) (*T, error) {
	a, err := getOrNil(ctx, c, "read "+k.what, func(ctx context.Context) (*A, error) {
		out, _, err := k.get(key, c.query(ctx, nil))
		return out, err
	}, "reading "+k.what+" "+k.keyFmt, key)
	if err != nil || a == nil {
		return nil, err
	}
	return k.fromAPI(a), nil
}

// write creates obj (create) or replaces the object it names, once (a
// write is not retried), and returns it as Nomad holds it. Nomad's error
// never holds an object's secrets (an auth method's client secret).
func (k aclObjects[A, T]) write(ctx context.Context, c *Client, create bool, obj T) (*T, error) {
	call := k.update
	if create {
		call = k.create
	}
	out, _, err := call(k.toAPI(obj), c.write(ctx, ""))
	if err != nil {
		return nil, c.writeError(err)
	}
	if out == nil {
		return nil, nil
	}
	return k.fromAPI(out), nil
}

// remove deletes the object key; one already gone is not an error.
func (k aclObjects[A, T]) remove(ctx context.Context, c *Client, key string) error {
	_, err := k.del(key, c.write(ctx, ""))
	if err != nil && !IsNotFound(err) {
		return c.writeError(err)
	}
	return nil
}

// listACL lists one kind's stubs (readRetry), keeps those keep takes (as
// berth's type) and sorts them with less.
func listACL[S, T any](ctx context.Context, c *Client, op string, list func(q *api.QueryOptions) ([]*S, *api.QueryMeta, error),
	keep func(*S) (T, bool), less func(a, b T) bool,
) ([]T, error) {
	stubs, err := readRetry(ctx, c, op, func(ctx context.Context) ([]*S, error) {
		out, _, err := list(c.query(ctx, nil))
		return out, err
	})
	if err != nil {
		return nil, err
	}
	out := make([]T, 0, len(stubs))
	for _, s := range stubs {
		if s == nil {
			continue
		}
		if t, ok := keep(s); ok {
			out = append(out, t)
		}
	}
	sort.Slice(out, func(i, j int) bool { return less(out[i], out[j]) })
	return out, nil
}
