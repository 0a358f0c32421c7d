package nomadclient

import (
	"context"
	"fmt"
	"sort"

	"github.com/hashicorp/nomad/api"

	"github.com/berthhq/terraform-provider-berth/internal/aclpolicy"
)

// GetACLPolicy reads an ACL policy; (nil, nil) when it does not exist.
func (c *Client) GetACLPolicy(ctx context.Context, name string) (*aclpolicy.Policy, error) {
	p, err := getOrNil(ctx, c, "read ACL policy", func(ctx context.Context) (*api.ACLPolicy, error) {
		out, _, err := c.api.ACLPolicies().Info(name, c.query(ctx, nil))
		return out, err
	}, "reading ACL policy %q", name)
	if err != nil || p == nil {
		return nil, err
	}
	return aclpolicy.PolicyFromAPI(p), nil
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
	if _, err := c.api.ACLPolicies().Upsert(p.ToAPI(), c.write(ctx, "")); err != nil {
		return c.writeError(err)
	}
	return nil
}

// DeleteACLPolicy deletes an ACL policy; one that is already gone is not
// an error.
func (c *Client) DeleteACLPolicy(ctx context.Context, name string) error {
	_, err := c.api.ACLPolicies().Delete(name, c.write(ctx, ""))
	if err != nil && !IsNotFound(err) {
		return c.writeError(err)
	}
	return nil
}
