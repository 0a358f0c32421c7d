package nomadclient

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/hashicorp/nomad/api"

	"github.com/berthhq/terraform-provider-berth/internal/aclpolicy"
)

// aclRoles is how Nomad serves ACL roles, which it keys by ID.
func (c *Client) aclRoles() aclObjects[api.ACLRole, aclpolicy.Role] {
	r := c.api.ACLRoles()
	return aclObjects[api.ACLRole, aclpolicy.Role]{
		what: "ACL role", keyFmt: "%s",
		get: r.Get, create: r.Create, update: r.Update, del: r.Delete,
		fromAPI: roleFromAPI, toAPI: roleToAPI,
	}
}

// GetACLRole reads an ACL role by ID; (nil, nil) when it does not exist.
func (c *Client) GetACLRole(ctx context.Context, id string) (*aclpolicy.Role, error) {
	return c.aclRoles().read(ctx, c, id)
}

// GetACLRoleByName reads an ACL role by name; (nil, nil) when there is none.
func (c *Client) GetACLRoleByName(ctx context.Context, name string) (*aclpolicy.Role, error) {
	byName := c.aclRoles()
	byName.get, byName.keyFmt = c.api.ACLRoles().GetByName, "%q"
	return byName.read(ctx, c, name)
}

// ListACLRoles lists the ACL roles whose name starts with namePrefix,
// sorted by name.
func (c *Client) ListACLRoles(ctx context.Context, namePrefix string) ([]aclpolicy.Role, error) {
	out, err := listACL(ctx, c, "list ACL roles", c.api.ACLRoles().List,
		func(s *api.ACLRoleListStub) (aclpolicy.Role, bool) {
			return roleFromStub(s), strings.HasPrefix(s.Name, namePrefix)
		},
		func(a, b aclpolicy.Role) bool { return a.Name < b.Name })
	if err != nil {
		return nil, fmt.Errorf("listing ACL roles: %w", err)
	}
	return out, nil
}

// ACLRoleExistsError says Nomad refused to create a role, or to rename
// one, because another role already has the name.
type ACLRoleExistsError struct {
	Name string
	Err  error // Nomad's answer
}

func (e *ACLRoleExistsError) Error() string { return e.Err.Error() }

func (e *ACLRoleExistsError) Unwrap() error { return e.Err }

// IsACLRoleExists reports whether err is Nomad refusing a role name that
// another role has (*ACLRoleExistsError).
func IsACLRoleExists(err error) bool {
	var exists *ACLRoleExistsError
	return errors.As(err, &exists)
}

// roleWriteError types Nomad's refusal of a taken name. Nomad says it in
// words only: a 400 with "role with name <name> already exists".
func roleWriteError(name string, err error) error {
	if statusCode(err) == http.StatusBadRequest && strings.Contains(err.Error(), "already exists") {
		return &ACLRoleExistsError{Name: name, Err: err}
	}
	return err
}

// CreateACLRole creates a role (r.ID empty) and returns it as Nomad holds
// it. Nomad refuses policies that do not exist, and a name that is taken
// (an *ACLRoleExistsError).
func (c *Client) CreateACLRole(ctx context.Context, r aclpolicy.Role) (*aclpolicy.Role, error) {
	r.ID = ""
	out, err := c.aclRoles().write(ctx, c, true, r)
	return out, roleWriteError(r.Name, err)
}

// UpdateACLRole replaces role r.ID (its name included; a name another role
// has is an *ACLRoleExistsError).
func (c *Client) UpdateACLRole(ctx context.Context, r aclpolicy.Role) (*aclpolicy.Role, error) {
	out, err := c.aclRoles().write(ctx, c, false, r)
	return out, roleWriteError(r.Name, err)
}

// DeleteACLRole deletes a role; one already gone is not an error.
func (c *Client) DeleteACLRole(ctx context.Context, id string) error {
	return c.aclRoles().remove(ctx, c, id)
}
