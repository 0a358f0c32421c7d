package nomadclient

import (
	"context"
	"fmt"
	"sort"

	"github.com/hashicorp/nomad/api"

	"github.com/berthhq/terraform-provider-berth/internal/aclpolicy"
)

// aclPolicies is how Nomad serves ACL policies, which it keys by name.
// A policy write is an upsert (WriteACLPolicy), not a create or update.
func (c *Client) aclPolicies() aclObjects[api.ACLPolicy, aclpolicy.Policy] {
	p := c.api.ACLPolicies()
	return aclObjects[api.ACLPolicy, aclpolicy.Policy]{
		what: "ACL policy", keyFmt: "%q", get: p.Info, del: p.Delete,
		fromAPI: policyFromAPI, toAPI: policyToAPI,
	}
}

// GetACLPolicy reads an ACL policy; (nil, nil) when it does not exist.
func (c *Client) GetACLPolicy(ctx context.Context, name string) (*aclpolicy.Policy, error) {
	return c.aclPolicies().read(ctx, c, name)
}

// ListACLPolicies lists the ACL policies whose name starts with prefix,
// sorted by name (without their rules).
func (c *Client) ListACLPolicies(ctx context.Context, prefix string) ([]aclpolicy.PolicyStub, error) {
	stubs, err := readRetry(ctx, c, "list ACL policies", func(ctx context.Context) ([]*api.ACLPolicyListStub, error) {
		out, _, err := c.api.ACLPolicies().List(c.query(ctx, &api.QueryOptions{Prefix: prefix}))
		return out, err
	})
	if err != nil {
		return nil, fmt.Errorf("listing ACL policies: %w", err)
	}
	out := make([]aclpolicy.PolicyStub, 0, len(stubs))
	for _, s := range stubs {
		if s != nil {
			out = append(out, aclpolicy.PolicyStub{Name: s.Name, Description: s.Description})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// WriteACLPolicy creates or replaces an ACL policy (one call; a policy
// write sends the whole policy, so a retry by the caller is safe).
func (c *Client) WriteACLPolicy(ctx context.Context, p aclpolicy.Policy) error {
	if _, err := c.api.ACLPolicies().Upsert(c.aclPolicies().toAPI(p), c.write(ctx, "")); err != nil {
		return c.writeError(err)
	}
	return nil
}

// DeleteACLPolicy deletes an ACL policy; one that is already gone is not
// an error.
func (c *Client) DeleteACLPolicy(ctx context.Context, name string) error {
	return c.aclPolicies().remove(ctx, c, name)
}
