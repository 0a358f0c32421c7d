package nomadclient

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/hashicorp/nomad/api"

	"github.com/berthhq/terraform-provider-berth/internal/aclpolicy"
)

// GetACLAuthMethod reads an auth method, without its secrets; (nil, nil)
// when it does not exist.
func (c *Client) GetACLAuthMethod(ctx context.Context, name string) (*aclpolicy.AuthMethod, error) {
	m, err := getOrNil(ctx, c, "read ACL auth method", func(ctx context.Context) (*api.ACLAuthMethod, error) {
		out, _, err := c.api.ACLAuthMethods().Get(name, c.query(ctx, nil))
		return out, err
	}, "reading ACL auth method %q", name)
	if err != nil || m == nil {
		return nil, err
	}
	return aclpolicy.AuthMethodFromAPI(m), nil
}

// ListACLAuthMethods lists the auth methods whose name starts with
// namePrefix, sorted by name.
func (c *Client) ListACLAuthMethods(ctx context.Context, namePrefix string) ([]aclpolicy.AuthMethodStub, error) {
	stubs, err := readRetry(ctx, c, "list ACL auth methods", func(ctx context.Context) ([]*api.ACLAuthMethodListStub, error) {
		out, _, err := c.api.ACLAuthMethods().List(c.query(ctx, nil))
		return out, err
	})
	if err != nil {
		return nil, fmt.Errorf("listing ACL auth methods: %w", err)
	}
	out := make([]aclpolicy.AuthMethodStub, 0, len(stubs))
	for _, s := range stubs {
		if s != nil && strings.HasPrefix(s.Name, namePrefix) {
			out = append(out, aclpolicy.AuthMethodStub{Name: s.Name, Type: s.Type, Default: s.Default})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// CreateACLAuthMethod creates an auth method. Nomad's error never holds
// the client secret; neither does the one returned here.
func (c *Client) CreateACLAuthMethod(ctx context.Context, m aclpolicy.AuthMethod) error {
	if _, _, err := c.api.ACLAuthMethods().Create(m.ToAPI(), c.write(ctx, "")); err != nil {
		return c.writeError(err)
	}
	return nil
}

// UpdateACLAuthMethod replaces an auth method's settings and its whole
// configuration (a client secret not given is removed).
func (c *Client) UpdateACLAuthMethod(ctx context.Context, m aclpolicy.AuthMethod) error {
	if _, _, err := c.api.ACLAuthMethods().Update(m.ToAPI(), c.write(ctx, "")); err != nil {
		return c.writeError(err)
	}
	return nil
}

// DeleteACLAuthMethod deletes an auth method (Nomad deletes its binding
// rules with it); one already gone is not an error.
func (c *Client) DeleteACLAuthMethod(ctx context.Context, name string) error {
	_, err := c.api.ACLAuthMethods().Delete(name, c.write(ctx, ""))
	if err != nil && !IsNotFound(err) {
		return c.writeError(err)
	}
	return nil
}

// GetACLBindingRule reads a binding rule; (nil, nil) when it does not
// exist.
func (c *Client) GetACLBindingRule(ctx context.Context, id string) (*aclpolicy.BindingRule, error) {
	b, err := getOrNil(ctx, c, "read ACL binding rule", func(ctx context.Context) (*api.ACLBindingRule, error) {
		out, _, err := c.api.ACLBindingRules().Get(id, c.query(ctx, nil))
		return out, err
	}, "reading ACL binding rule %s", id)
	if err != nil || b == nil {
		return nil, err
	}
	return aclpolicy.BindingRuleFromAPI(b), nil
}

// ListACLBindingRules lists the binding rules of authMethod (every rule
// when it is ""), sorted by auth method and ID.
func (c *Client) ListACLBindingRules(ctx context.Context, authMethod string) ([]aclpolicy.BindingRule, error) {
	stubs, err := readRetry(ctx, c, "list ACL binding rules", func(ctx context.Context) ([]*api.ACLBindingRuleListStub, error) {
		out, _, err := c.api.ACLBindingRules().List(c.query(ctx, nil))
		return out, err
	})
	if err != nil {
		return nil, fmt.Errorf("listing ACL binding rules: %w", err)
	}
	out := make([]aclpolicy.BindingRule, 0, len(stubs))
	for _, s := range stubs {
		if s != nil && (authMethod == "" || s.AuthMethod == authMethod) {
			out = append(out, aclpolicy.BindingRule{ID: s.ID, Description: s.Description, AuthMethod: s.AuthMethod})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		return out[i].AuthMethod < out[j].AuthMethod || out[i].AuthMethod == out[j].AuthMethod && out[i].ID < out[j].ID
	})
	return out, nil
}

// CreateACLBindingRule creates a binding rule and returns it as Nomad
// holds it (with its ID).
func (c *Client) CreateACLBindingRule(ctx context.Context, b aclpolicy.BindingRule) (*aclpolicy.BindingRule, error) {
	b.ID = ""
	out, _, err := c.api.ACLBindingRules().Create(b.ToAPI(), c.write(ctx, ""))
	if err != nil {
		return nil, c.writeError(err)
	}
	return aclpolicy.BindingRuleFromAPI(out), nil
}

// UpdateACLBindingRule replaces binding rule b.ID.
func (c *Client) UpdateACLBindingRule(ctx context.Context, b aclpolicy.BindingRule) (*aclpolicy.BindingRule, error) {
	out, _, err := c.api.ACLBindingRules().Update(b.ToAPI(), c.write(ctx, ""))
	if err != nil {
		return nil, c.writeError(err)
	}
	return aclpolicy.BindingRuleFromAPI(out), nil
}

// DeleteACLBindingRule deletes a binding rule; one already gone is not an
// error.
func (c *Client) DeleteACLBindingRule(ctx context.Context, id string) error {
	_, err := c.api.ACLBindingRules().Delete(id, c.write(ctx, ""))
	if err != nil && !IsNotFound(err) {
		return c.writeError(err)
	}
	return nil
}
