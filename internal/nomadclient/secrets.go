package nomadclient

import (
	"context"
	"fmt"

	"github.com/hashicorp/nomad/api"
)

// PutSecretEnv writes a task's secrets to the Nomad Variable at path
// (instance.SecretEnvPath), replacing what it held. The write is
// idempotent, so it is retried like a read. Neither the values nor
// Nomad's answer (which echoes them) are logged or put into errors: the
// request log line has the method and path only.
func (c *Client) PutSecretEnv(ctx context.Context, namespace, path string, items map[string]string) error {
	_, err := readRetry(ctx, c, "write secrets", func(ctx context.Context) (struct{}, error) {
		v := &api.Variable{Namespace: namespace, Path: path, Items: api.VariableItems(items)}
		_, _, err := c.api.Variables().Create(v, (&api.WriteOptions{Namespace: namespace}).WithContext(ctx))
		return struct{}{}, err
	})
	if err != nil {
		return fmt.Errorf("writing the secrets Variable %s in namespace %q: %w", path, namespace, err)
	}
	return nil
}

// DeleteSecretEnv deletes a task's secrets Variable; one already gone is
// no error.
func (c *Client) DeleteSecretEnv(ctx context.Context, namespace, path string) error {
	_, err := readRetry(ctx, c, "delete secrets", func(ctx context.Context) (struct{}, error) {
		_, err := c.api.Variables().Delete(path, (&api.WriteOptions{Namespace: namespace}).WithContext(ctx))
		return struct{}{}, err
	})
	if err != nil && !IsNotFound(err) {
		return fmt.Errorf("deleting the secrets Variable %s in namespace %q: %w", path, namespace, err)
	}
	return nil
}

// SecretEnvPathsUnder lists the paths of the Variables under prefix (one
// request: Nomad's list returns metadata only, never the items).
func (c *Client) SecretEnvPathsUnder(ctx context.Context, namespace, prefix string) (map[string]bool, error) {
	metas, err := readRetry(ctx, c, "list secrets", func(ctx context.Context) ([]*api.VariableMetadata, error) {
		out, _, err := c.api.Variables().PrefixList(prefix, c.query(ctx, &api.QueryOptions{Namespace: namespace}))
		return out, err
	})
	if err != nil {
		return nil, fmt.Errorf("listing the secrets Variables under %s in namespace %q: %w", prefix, namespace, err)
	}
	out := make(map[string]bool, len(metas))
	for _, m := range metas {
		if m != nil {
			out[m.Path] = true
		}
	}
	return out, nil
}
