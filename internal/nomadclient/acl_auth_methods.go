package nomadclient

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/nomad/api"

	"github.com/berthhq/terraform-provider-berth/internal/aclpolicy"
)

// aclAuthMethods is how Nomad serves auth methods, which it keys by name.
func (c *Client) aclAuthMethods() aclObjects[api.ACLAuthMethod, aclpolicy.AuthMethod] {
	m := c.api.ACLAuthMethods()
	return aclObjects[api.ACLAuthMethod, aclpolicy.AuthMethod]{
		what: "ACL auth method", keyFmt: "%q",
		get: m.Get, create: m.Create, update: m.Update, del: m.Delete,
		fromAPI: authMethodFromAPI, toAPI: authMethodToAPI,
	}
}

// aclBindingRules is how Nomad serves binding rules, which it keys by ID.
func (c *Client) aclBindingRules() aclObjects[api.ACLBindingRule, aclpolicy.BindingRule] {
	b := c.api.ACLBindingRules()
	return aclObjects[api.ACLBindingRule, aclpolicy.BindingRule]{
		what: "ACL binding rule", keyFmt: "%s",
		get: b.Get, create: b.Create, update: b.Update, del: b.Delete,
		fromAPI: bindingRuleFromAPI, toAPI: bindingRuleToAPI,
	}
}

// GetACLAuthMethod reads an auth method, without its secrets; (nil, nil)
// when it does not exist.
func (c *Client) GetACLAuthMethod(ctx context.Context, name string) (*aclpolicy.AuthMethod, error) {
	return c.aclAuthMethods().read(ctx, c, name)
}

// ListACLAuthMethods lists the auth methods whose name starts with
// namePrefix, sorted by name.
func (c *Client) ListACLAuthMethods(ctx context.Context, namePrefix string) ([]aclpolicy.AuthMethodStub, error) {
	out, err := listACL(ctx, c, "list ACL auth methods", c.api.ACLAuthMethods().List,
		func(s *api.ACLAuthMethodListStub) (aclpolicy.AuthMethodStub, bool) {
			return aclpolicy.AuthMethodStub{Name: s.Name, Type: s.Type, Default: s.Default}, strings.HasPrefix(s.Name, namePrefix)
		},
		func(a, b aclpolicy.AuthMethodStub) bool { return a.Name < b.Name })
	if err != nil {
		return nil, fmt.Errorf("listing ACL auth methods: %w", err)
	}
	return out, nil
}

// CreateACLAuthMethod creates an auth method. Nomad's error never holds
// the client secret; neither does the one returned here.
func (c *Client) CreateACLAuthMethod(ctx context.Context, m aclpolicy.AuthMethod) error {
	_, err := c.aclAuthMethods().write(ctx, c, true, m)
	return err
}

// UpdateACLAuthMethod replaces an auth method's settings and its whole
// configuration (a client secret not given is removed).
func (c *Client) UpdateACLAuthMethod(ctx context.Context, m aclpolicy.AuthMethod) error {
	_, err := c.aclAuthMethods().write(ctx, c, false, m)
	return err
}

// DeleteACLAuthMethod deletes an auth method (Nomad deletes its binding
// rules with it); one already gone is not an error.
func (c *Client) DeleteACLAuthMethod(ctx context.Context, name string) error {
	return c.aclAuthMethods().remove(ctx, c, name)
}

// GetACLBindingRule reads a binding rule; (nil, nil) when it does not
// exist.
func (c *Client) GetACLBindingRule(ctx context.Context, id string) (*aclpolicy.BindingRule, error) {
	return c.aclBindingRules().read(ctx, c, id)
}

// ListACLBindingRules lists the binding rules of authMethod (every rule
// when it is ""), sorted by auth method and ID.
func (c *Client) ListACLBindingRules(ctx context.Context, authMethod string) ([]aclpolicy.BindingRule, error) {
	out, err := listACL(ctx, c, "list ACL binding rules", c.api.ACLBindingRules().List,
		func(s *api.ACLBindingRuleListStub) (aclpolicy.BindingRule, bool) {
			return aclpolicy.BindingRule{ID: s.ID, Description: s.Description, AuthMethod: s.AuthMethod},
				authMethod == "" || s.AuthMethod == authMethod
		},
		func(a, b aclpolicy.BindingRule) bool {
			return a.AuthMethod < b.AuthMethod || a.AuthMethod == b.AuthMethod && a.ID < b.ID
		})
	if err != nil {
		return nil, fmt.Errorf("listing ACL binding rules: %w", err)
	}
	return out, nil
}

// CreateACLBindingRule creates a binding rule and returns it as Nomad
// holds it (with its ID).
func (c *Client) CreateACLBindingRule(ctx context.Context, b aclpolicy.BindingRule) (*aclpolicy.BindingRule, error) {
	b.ID = ""
	return c.aclBindingRules().write(ctx, c, true, b)
}

// UpdateACLBindingRule replaces binding rule b.ID.
func (c *Client) UpdateACLBindingRule(ctx context.Context, b aclpolicy.BindingRule) (*aclpolicy.BindingRule, error) {
	return c.aclBindingRules().write(ctx, c, false, b)
}

// DeleteACLBindingRule deletes a binding rule; one already gone is not an
// error.
func (c *Client) DeleteACLBindingRule(ctx context.Context, id string) error {
	return c.aclBindingRules().remove(ctx, c, id)
}
