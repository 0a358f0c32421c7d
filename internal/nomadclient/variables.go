package nomadclient

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"strings"
	"time"

	"github.com/hashicorp/nomad/api"

	"github.com/berthhq/terraform-provider-berth/internal/variable"
)

// Variables are managed here for berth_variable. Every write is
// check-and-set: a create only where nothing is (cas=0), an update or a
// delete only at the modify index berth last read. Writes are not retried
// (a retried CAS write that had been applied would then conflict with
// itself); a create whose answer was lost is settled by reading back.
// Items are never logged nor put into errors: Nomad's answers to reads and
// to conflicts carry them, and only the metadata is kept.

// VariableConflictError says a check-and-set write of a Variable was
// refused because the Variable in Nomad is not at the index berth sent:
// someone wrote it (or created it, or deleted it) since berth read it.
// Found is what Nomad holds now (zero ModifyIndex: nothing).
type VariableConflictError struct {
	Ref      variable.Ref
	Expected uint64
	Found    variable.Meta
}

func (e *VariableConflictError) Error() string {
	if e.Found.ModifyIndex == 0 {
		return fmt.Sprintf("check-and-set conflict on Variable %s in namespace %q: berth expected it at modify index %d "+
			"and Nomad has none", e.Ref.Path, e.Ref.Namespace, e.Expected)
	}
	return fmt.Sprintf("check-and-set conflict on Variable %s in namespace %q: berth expected modify index %d, Nomad has %d "+
		"(written %s)", e.Ref.Path, e.Ref.Namespace, e.Expected, e.Found.ModifyIndex, e.Found.ModifyTime.UTC().Format(time.RFC3339))
}

func variableMeta(v *api.Variable) variable.Meta {
	if v == nil {
		return variable.Meta{}
	}
	return variable.Meta{Namespace: v.Namespace, Path: v.Path, CreateIndex: v.CreateIndex, ModifyIndex: v.ModifyIndex,
		CreateTime: time.Unix(0, v.CreateTime), ModifyTime: time.Unix(0, v.ModifyTime)}
}

func variableMetaOf(m *api.VariableMetadata) variable.Meta {
	return variable.Meta{Namespace: m.Namespace, Path: m.Path, CreateIndex: m.CreateIndex, ModifyIndex: m.ModifyIndex,
		CreateTime: time.Unix(0, m.CreateTime), ModifyTime: time.Unix(0, m.ModifyTime)}
}

// variableEndpoint is the read/write endpoint of a path; each segment is
// escaped, the slashes kept.
func variableEndpoint(path string) string {
	segs := strings.Split(path, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return "/v1/var/" + strings.Join(segs, "/")
}

// GetVariable reads a Variable with its items; (nil, nil) when there is
// none at that path. A token that may not read it gets an error (403), not
// "gone": the api package's Read would report both as not found.
func (c *Client) GetVariable(ctx context.Context, namespace, path string) (*variable.Variable, error) {
	v, err := getOrNil(ctx, c, "read variable", func(ctx context.Context) (*api.Variable, error) {
		var out api.Variable
		_, err := c.api.Raw().Query(variableEndpoint(path), &out, c.query(ctx, &api.QueryOptions{Namespace: namespace}))
		return &out, err
	}, "reading Variable %s in namespace %q", path, namespace)
	if err != nil || v == nil {
		return nil, err
	}
	items := map[string]string(v.Items)
	if items == nil {
		items = map[string]string{}
	}
	return &variable.Variable{Meta: variableMeta(v), Items: items}, nil
}

// ListVariables lists the Variables under prefix in namespace ("*": every
// namespace the token can read), metadata only: Nomad's listing never
// carries items.
func (c *Client) ListVariables(ctx context.Context, namespace, prefix string) ([]variable.Meta, error) {
	metas, err := readRetry(ctx, c, "list variables", func(ctx context.Context) ([]*api.VariableMetadata, error) {
		out, _, err := c.api.Variables().PrefixList(prefix, c.query(ctx, &api.QueryOptions{Namespace: namespace}))
		return out, err
	})
	if err != nil {
		return nil, fmt.Errorf("listing Variables under %q in namespace %q: %w", prefix, namespace, err)
	}
	out := make([]variable.Meta, 0, len(metas))
	for _, m := range metas {
		if m != nil {
			out = append(out, variableMetaOf(m))
		}
	}
	return out, nil
}

// casError turns a refused check-and-set into a *VariableConflictError and
// any other failure into berth's typed errors.
func (c *Client) casError(err error, ref variable.Ref, expected uint64) error {
	var conflict api.ErrCASConflict
	if errors.As(err, &conflict) {
		return &VariableConflictError{Ref: ref, Expected: expected, Found: variableMeta(conflict.Conflict)}
	}
	return fmt.Errorf("writing Variable %s in namespace %q: %w", ref.Path, ref.Namespace, c.writeError(err))
}

// CreateVariable creates a Variable where there is none (cas=0): an
// existing one is a *VariableConflictError. When the answer is lost, the
// Variable is read back: the same items there mean the create was
// applied; anything else is an *UncertainWriteError.
func (c *Client) CreateVariable(ctx context.Context, ref variable.Ref, items map[string]string) (variable.Meta, error) {
	w := c.write(ctx, ref.Namespace)
	out, _, err := c.api.Variables().CheckedCreate(&api.Variable{Namespace: ref.Namespace, Path: ref.Path, Items: items}, w)
	if err == nil {
		return variableMeta(out), nil
	}
	err = c.casError(err, ref, 0)
	var conflict *VariableConflictError
	if errors.As(err, &conflict) || !OutcomeUnknown(err) {
		return variable.Meta{}, err
	}
	// The caller's deadline may have passed: read back on a fresh one.
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), c.requestTimeout)
	defer cancel()
	got, rerr := c.GetVariable(rctx, ref.Namespace, ref.Path)
	if rerr == nil && got != nil && maps.Equal(got.Items, items) {
		return got.Meta, nil
	}
	if rerr == nil && got == nil {
		return variable.Meta{}, &WriteNotAppliedError{Err: err}
	}
	return variable.Meta{}, &UncertainWriteError{Op: "create of Variable " + ref.Path, Err: err}
}

// UpdateVariable replaces a Variable's items if it is still at index.
// When the answer is lost, the Variable is read back (settleLost).
func (c *Client) UpdateVariable(ctx context.Context, ref variable.Ref, items map[string]string, index uint64) (variable.Meta, error) {
	w := c.write(ctx, ref.Namespace)
	out, _, err := c.api.Variables().CheckedUpdate(
		&api.Variable{Namespace: ref.Namespace, Path: ref.Path, Items: items, ModifyIndex: index}, w)
	if err == nil {
		return variableMeta(out), nil
	}
	err = c.casError(err, ref, index)
	var conflict *VariableConflictError
	if errors.As(err, &conflict) || !OutcomeUnknown(err) {
		return variable.Meta{}, err
	}
	return c.settleLost(ctx, ref, items, index, err)
}

// settleLost reads back a Variable whose write at index lost its answer:
// berth's items at a newer index mean the write was applied; the
// Variable still at index means it was not (*WriteNotAppliedError);
// anything else, or no answer, is an *UncertainWriteError. items nil is a
// delete: nothing there means it was applied.
func (c *Client) settleLost(ctx context.Context, ref variable.Ref, items map[string]string, index uint64, err error) (variable.Meta, error) {
	// The caller's deadline may have passed: read back on a fresh one.
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), c.requestTimeout)
	defer cancel()
	got, rerr := c.GetVariable(rctx, ref.Namespace, ref.Path)
	op := "write of Variable " + ref.Path
	switch {
	case rerr != nil:
	case items == nil && got == nil:
		return variable.Meta{}, nil
	case items == nil:
		op = "delete of Variable " + ref.Path
		if got.ModifyIndex == index {
			return variable.Meta{}, &WriteNotAppliedError{Err: err}
		}
	case got == nil:
	case got.ModifyIndex == index:
		return variable.Meta{}, &WriteNotAppliedError{Err: err}
	case got.ModifyIndex > index && maps.Equal(got.Items, items):
		return got.Meta, nil
	}
	return variable.Meta{}, &UncertainWriteError{Op: op, Err: err}
}

// DeleteVariable deletes a Variable if it is still at index; one already
// gone is no error. A lost answer is settled by reading back.
func (c *Client) DeleteVariable(ctx context.Context, ref variable.Ref, index uint64) error {
	w := c.write(ctx, ref.Namespace)
	_, err := c.api.Variables().CheckedDelete(ref.Path, index, w)
	if err == nil || IsNotFound(err) {
		return nil
	}
	err = c.casError(err, ref, index)
	var conflict *VariableConflictError
	if errors.As(err, &conflict) && conflict.Found.ModifyIndex == 0 {
		return nil
	}
	if conflict != nil || !OutcomeUnknown(err) {
		return err
	}
	_, err = c.settleLost(ctx, ref, nil, index, err)
	return err
}
