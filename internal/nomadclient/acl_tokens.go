package nomadclient

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/hashicorp/nomad/api"
)

// ACL token types, as Nomad names them.
const (
	ACLTokenTypeClient     = "client"
	ACLTokenTypeManagement = "management"
)

// ACLTokenSpec is what berth writes of an ACL token. Roles are role IDs.
type ACLTokenSpec struct {
	Name          string
	Type          string
	Policies      []string
	Roles         []string
	Global        bool
	ExpirationTTL time.Duration
}

// ACLToken is an ACL token as Nomad holds it. Its secret is unexported:
// the Terraform layer never stores it; only Secret (for the ephemeral
// token, which hands it to Terraform as an ephemeral value) and the
// secret Variable writer below read it.
type ACLToken struct {
	AccessorID     string
	Name           string
	Type           string
	Policies       []string // sorted
	Roles          []string // role IDs, sorted
	Global         bool
	CreateTime     time.Time
	ExpirationTime *time.Time
	ExpirationTTL  time.Duration
	secret         string
}

// Secret is the token's secret ID ("" for a token read from a listing).
func (t *ACLToken) Secret() string { return t.secret }

func aclTokenFromAPI(t *api.ACLToken) *ACLToken {
	out := &ACLToken{AccessorID: t.AccessorID, Name: t.Name, Type: t.Type, Policies: sortedCopy(t.Policies),
		Roles: roleIDs(t.Roles), Global: t.Global, CreateTime: t.CreateTime, ExpirationTTL: t.ExpirationTTL, secret: t.SecretID}
	if t.ExpirationTime != nil && !t.ExpirationTime.IsZero() {
		e := *t.ExpirationTime
		out.ExpirationTime = &e
	}
	return out
}

func aclTokenFromStub(t *api.ACLTokenListStub) ACLToken {
	out := ACLToken{AccessorID: t.AccessorID, Name: t.Name, Type: t.Type, Policies: sortedCopy(t.Policies),
		Roles: roleIDs(t.Roles), Global: t.Global, CreateTime: t.CreateTime}
	if t.ExpirationTime != nil && !t.ExpirationTime.IsZero() {
		e := *t.ExpirationTime
		out.ExpirationTime = &e
	}
	return out
}

func roleIDs(links []*api.ACLTokenRoleLink) []string {
	out := make([]string, 0, len(links))
	for _, l := range links {
		if l != nil {
			out = append(out, l.ID)
		}
	}
	sort.Strings(out)
	return out
}

func sortedCopy(ss []string) []string {
	out := slices.Clone(ss)
	if out == nil {
		out = []string{}
	}
	sort.Strings(out)
	return out
}

func (s ACLTokenSpec) toAPI() *api.ACLToken {
	t := &api.ACLToken{Name: s.Name, Type: s.Type, Policies: s.Policies, Global: s.Global, ExpirationTTL: s.ExpirationTTL}
	for _, id := range s.Roles {
		t.Roles = append(t.Roles, &api.ACLTokenRoleLink{ID: id})
	}
	return t
}

// CreateACLToken creates a token; Nomad generates its accessor and secret
// (it does not accept either from the caller). One call, not retried: a
// retry after a lost answer would create a second token.
func (c *Client) CreateACLToken(ctx context.Context, s ACLTokenSpec) (*ACLToken, error) {
	out, _, err := c.api.ACLTokens().Create(s.toAPI(), c.write(ctx, ""))
	if err != nil {
		return nil, c.writeError(err)
	}
	return aclTokenFromAPI(out), nil
}

// UpdateACLToken rewrites the token's name, type, policies and roles.
// Nomad refuses a change of its expiration or global flag, so those are
// sent as Nomad holds them (read first). The write is idempotent.
func (c *Client) UpdateACLToken(ctx context.Context, accessorID string, s ACLTokenSpec) (*ACLToken, error) {
	cur, err := readRetry(ctx, c, "read ACL token", func(ctx context.Context) (*api.ACLToken, error) {
		out, _, err := c.api.ACLTokens().Info(accessorID, c.query(ctx, nil))
		return out, err
	})
	if err != nil {
		return nil, fmt.Errorf("reading ACL token %s: %w", accessorID, err)
	}
	t := s.toAPI()
	t.AccessorID, t.Global, t.ExpirationTTL, t.ExpirationTime = accessorID, cur.Global, cur.ExpirationTTL, cur.ExpirationTime
	out, err := readRetry(ctx, c, "update ACL token", func(ctx context.Context) (*api.ACLToken, error) {
		out, _, err := c.api.ACLTokens().Update(t, c.write(ctx, ""))
		return out, err
	})
	if err != nil {
		return nil, c.writeError(err)
	}
	return aclTokenFromAPI(out), nil
}

// GetACLToken reads a token by accessor ID; (nil, nil) when Nomad has none.
func (c *Client) GetACLToken(ctx context.Context, accessorID string) (*ACLToken, error) {
	t, err := getOrNil(ctx, c, "read ACL token", func(ctx context.Context) (*api.ACLToken, error) {
		out, _, err := c.api.ACLTokens().Info(accessorID, c.query(ctx, nil))
		return out, err
	}, "reading ACL token %s", accessorID)
	if err != nil || t == nil {
		return nil, err
	}
	return aclTokenFromAPI(t), nil
}

// ListACLTokens lists every token (never their secrets), sorted by
// accessor ID.
func (c *Client) ListACLTokens(ctx context.Context) ([]ACLToken, error) {
	stubs, err := readRetry(ctx, c, "list ACL tokens", func(ctx context.Context) ([]*api.ACLTokenListStub, error) {
		out, _, err := c.api.ACLTokens().List(c.query(ctx, nil))
		return out, err
	})
	if err != nil {
		return nil, fmt.Errorf("listing ACL tokens: %w", err)
	}
	out := make([]ACLToken, 0, len(stubs))
	for _, s := range stubs {
		if s != nil {
			out = append(out, aclTokenFromStub(s))
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].AccessorID < out[j].AccessorID })
	return out, nil
}

// DeleteACLToken deletes a token; one already gone is not an error (Nomad
// answers "Cannot delete nonexistent tokens" then).
func (c *Client) DeleteACLToken(ctx context.Context, accessorID string) error {
	_, err := readRetry(ctx, c, "delete ACL token", func(ctx context.Context) (struct{}, error) {
		_, err := c.api.ACLTokens().Delete(accessorID, c.write(ctx, ""))
		return struct{}{}, err
	})
	if err == nil || IsNotFound(err) || strings.Contains(err.Error(), "nonexistent token") {
		return nil
	}
	return c.writeError(fmt.Errorf("deleting ACL token %s: %w", accessorID, err))
}

// AlreadyBootstrappedError says Nomad refused a bootstrap because its ACL
// system was bootstrapped before.
type AlreadyBootstrappedError struct{ Err error }

func (e *AlreadyBootstrappedError) Error() string { return e.Err.Error() }
func (e *AlreadyBootstrappedError) Unwrap() error { return e.Err }

// BootstrapACL bootstraps the ACL system with secret as the management
// token's secret ID and returns the token's accessor ID. Not retried: a
// second bootstrap is refused. Nomad answers with the token, secret
// included; only the accessor ID leaves this function.
func (c *Client) BootstrapACL(ctx context.Context, secret string) (string, error) {
	out, _, err := c.api.ACLTokens().BootstrapOpts(secret, c.write(ctx, ""))
	if err != nil {
		if strings.Contains(err.Error(), "ACL bootstrap already done") {
			return "", &AlreadyBootstrappedError{Err: err}
		}
		return "", c.writeError(err)
	}
	if out == nil || out.AccessorID == "" {
		return "", errors.New("the ACL bootstrap answer has no token")
	}
	return out.AccessorID, nil
}

// Items of the Variable berth writes a token's secret to.
const (
	TokenVariableSecretItem   = "secret_id"
	TokenVariableAccessorItem = "accessor_id"
)

// WriteTokenSecretVariable writes t's secret (and accessor ID) to the
// Variable at path in namespace, check-and-set: a new Variable, or one
// that already names t's accessor (berth's own, being put back). A
// Variable that holds anything else is never overwritten. Neither the
// secret nor Nomad's answer (which echoes it) is logged or put into
// errors.
func (c *Client) WriteTokenSecretVariable(ctx context.Context, t *ACLToken, namespace, path string) error {
	if t.secret == "" {
		return errors.New("the token's secret is not known (read from a listing)")
	}
	cur, err := c.readTokenVariable(ctx, namespace, path)
	if err != nil {
		return err
	}
	v := &api.Variable{Namespace: namespace, Path: path, Items: api.VariableItems{
		TokenVariableSecretItem: t.secret, TokenVariableAccessorItem: t.AccessorID}}
	if cur != nil {
		if cur.Items[TokenVariableAccessorItem] != t.AccessorID {
			return &TokenVariableTakenError{Namespace: namespace, Path: path}
		}
		v.ModifyIndex = cur.ModifyIndex
	}
	wo := c.write(ctx, namespace)
	if cur != nil {
		_, _, err = c.api.Variables().CheckedUpdate(v, wo)
	} else {
		_, _, err = c.api.Variables().CheckedCreate(v, wo)
	}
	var conflict api.ErrCASConflict
	if errors.As(err, &conflict) {
		return &TokenVariableTakenError{Namespace: namespace, Path: path}
	}
	if err != nil {
		return c.writeError(fmt.Errorf("writing the token's secret to the Variable %s in namespace %q: %w", path, namespace, err))
	}
	return nil
}

// TokenVariableTakenError refuses to write a token's secret to a Variable
// that holds something else.
type TokenVariableTakenError struct{ Namespace, Path string }

func (e *TokenVariableTakenError) Error() string {
	return fmt.Sprintf("the Variable %s in namespace %q already exists and does not belong to this token (or was written "+
		"while berth wrote it); berth writes a token's secret only to a new Variable or to the one it wrote for that token, "+
		"so it never overwrites someone else's", e.Path, e.Namespace)
}

// TokenSecretVariableHolds reports whether the Variable at path holds t's
// current secret and accessor ID (false when it is missing or holds
// anything else). t must have been read with its secret (GetACLToken).
func (c *Client) TokenSecretVariableHolds(ctx context.Context, t *ACLToken, namespace, path string) (bool, error) {
	v, err := c.readTokenVariable(ctx, namespace, path)
	if err != nil || v == nil {
		return false, err
	}
	return t.secret != "" && v.Items[TokenVariableSecretItem] == t.secret && v.Items[TokenVariableAccessorItem] == t.AccessorID, nil
}

// DeleteTokenSecretVariable deletes the Variable at path if it still names
// the token accessorID; a Variable gone or since rewritten by someone else
// is left alone.
func (c *Client) DeleteTokenSecretVariable(ctx context.Context, accessorID, namespace, path string) error {
	v, err := c.readTokenVariable(ctx, namespace, path)
	if err != nil || v == nil || v.Items[TokenVariableAccessorItem] != accessorID {
		return err
	}
	_, err = c.api.Variables().CheckedDelete(path, v.ModifyIndex, c.write(ctx, namespace))
	var conflict api.ErrCASConflict
	if errors.As(err, &conflict) {
		return nil // rewritten since: no longer this token's
	}
	if err != nil && !IsNotFound(err) {
		return fmt.Errorf("deleting the token's secret Variable %s in namespace %q: %w", path, namespace, err)
	}
	return nil
}

// readTokenVariable reads the Variable (with its items); nil when it is
// missing.
func (c *Client) readTokenVariable(ctx context.Context, namespace, path string) (*api.Variable, error) {
	return getOrNil(ctx, c, "read token secret Variable", func(ctx context.Context) (*api.Variable, error) {
		out, _, err := c.api.Variables().Read(path, c.query(ctx, &api.QueryOptions{Namespace: namespace}))
		if errors.Is(err, api.ErrVariablePathNotFound) {
			return nil, nil
		}
		return out, err
	}, "reading the token's secret Variable %s in namespace %q", path, namespace)
}
