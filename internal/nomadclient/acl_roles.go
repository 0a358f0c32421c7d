package nomadclient

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/hashicorp/nomad/api"

	"github.com/berthhq/terraform-provider-berth/internal/aclpolicy"
)

// GetACLRole reads an ACL role by ID; (nil, nil) when it does not exist.
func (c *Client) GetACLRole(ctx context.Context, id string) (*aclpolicy.Role, error) {
	r, err := getOrNil(ctx, c, "read ACL role", func(ctx context.Context) (*api.ACLRole, error) {
		out, _, err := c.api.ACLRoles().Get(id, c.query(ctx, nil))
		return out, err
	}, "reading ACL role %s", id)
	if err != nil || r == nil {
		return nil, err
	}
	return aclpolicy.RoleFromAPI(r), nil
}

// GetACLRoleByName reads an ACL role by name; (nil, nil) when there is none.
func (c *Client) GetACLRoleByName(ctx context.Context, name string) (*aclpolicy.Role, error) {
	r, err := getOrNil(ctx, c, "read ACL role", func(ctx context.Context) (*api.ACLRole, error) {
		out, _, err := c.api.ACLRoles().GetByName(name, c.query(ctx, nil))
		return out, err
	}, "reading ACL role %q", name)
	if err != nil || r == nil {
		return nil, err
	}
	return aclpolicy.RoleFromAPI(r), nil
}

// ListACLRoles lists the ACL roles whose name starts with namePrefix,
// sorted by name.
func (c *Client) ListACLRoles(ctx context.Context, namePrefix string) ([]aclpolicy.Role, error) {
	stubs, err := readRetry(ctx, c, "list ACL roles", func(ctx context.Context) ([]*api.ACLRoleListStub, error) {
		out, _, err := c.api.ACLRoles().List(c.query(ctx, nil))
		return out, err
	})
	if err != nil {
		return nil, fmt.Errorf("listing ACL roles: %w", err)
	}
	out := make([]aclpolicy.Role, 0, len(stubs))
	for _, s := range stubs {
		if s != nil && strings.HasPrefix(s.Name, namePrefix) {
			out = append(out, aclpolicy.RoleFromStub(s))
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// CreateACLRole creates a role (r.ID empty) and returns it as Nomad holds
// it. Nomad refuses a name that is taken and policies that do not exist.
func (c *Client) CreateACLRole(ctx context.Context, r aclpolicy.Role) (*aclpolicy.Role, error) {
	r.ID = ""
	out, _, err := c.api.ACLRoles().Create(r.ToAPI(), c.write(ctx, ""))
	if err != nil {
		return nil, c.writeError(err)
	}
	return aclpolicy.RoleFromAPI(out), nil
}

// UpdateACLRole replaces role r.ID (its name included).
func (c *Client) UpdateACLRole(ctx context.Context, r aclpolicy.Role) (*aclpolicy.Role, error) {
	out, _, err := c.api.ACLRoles().Update(r.ToAPI(), c.write(ctx, ""))
	if err != nil {
		return nil, c.writeError(err)
	}
	return aclpolicy.RoleFromAPI(out), nil
}

// DeleteACLRole deletes a role; one already gone is not an error.
func (c *Client) DeleteACLRole(ctx context.Context, id string) error {
	_, err := c.api.ACLRoles().Delete(id, c.write(ctx, ""))
	if err != nil && !IsNotFound(err) {
		return c.writeError(err)
	}
	return nil
}
