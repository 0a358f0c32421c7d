package nomadclient

import (
	"context"
	"errors"
	"fmt"

	"github.com/hashicorp/nomad/api"

	"github.com/berthhq/terraform-provider-berth/internal/variable"
)

// Secrets Variables (variables_wo of berth_job, secret_env_wo of
// berth_instance) are written and deleted only if berth wrote them, with
// check-and-set like every Variable berth writes (variables.go): a new one
// at cas=0, so a Variable someone else holds at the path (a berth_variable,
// an operator's) is a *VariableConflictError and stays as it is; a rewrite
// or delete at the modify index berth recorded when it wrote it. Writes
// are not retried; a lost answer is settled by reading back. Neither the
// values nor Nomad's answer (which echoes them) are logged or put into
// errors: the request log line has the method and path only.

// SecretIndexUnrecorded is the index of a secrets Variable berth wrote
// before it recorded the index it wrote at (an older state): the next
// write or delete takes the index Nomad has now, as berth did then.
const SecretIndexUnrecorded = ^uint64(0)

// currentIndex resolves SecretIndexUnrecorded to the Variable's index now
// (0: there is none).
func (c *Client) currentIndex(ctx context.Context, namespace, path string, index uint64) (uint64, error) {
	if index != SecretIndexUnrecorded {
		return index, nil
	}
	v, err := c.GetVariable(ctx, namespace, path)
	if err != nil || v == nil {
		return 0, err
	}
	return v.ModifyIndex, nil
}

// PutSecretEnv writes a task's or job's secrets to the Variable at path:
// created where nothing is when index is 0 (berth holds none there), else
// replaced if still at index. It returns the modify index written, for
// the next write or the delete.
func (c *Client) PutSecretEnv(ctx context.Context, namespace, path string, items map[string]string, index uint64) (uint64, error) {
	ref := variable.Ref{Namespace: namespace, Path: path}
	var meta variable.Meta
	index, err := c.currentIndex(ctx, namespace, path, index)
	if err != nil {
		return 0, err
	}
	if index == 0 {
		meta, err = c.CreateVariable(ctx, ref, items)
	} else {
		meta, err = c.UpdateVariable(ctx, ref, items, index)
		var conflict *VariableConflictError
		if errors.As(err, &conflict) && conflict.Found.ModifyIndex == 0 {
			// berth's Variable was deleted since: nothing is there to
			// overwrite, so write it anew where nothing is.
			meta, err = c.CreateVariable(ctx, ref, items)
		}
	}
	if err != nil {
		return 0, fmt.Errorf("writing the secrets Variable %s in namespace %q: %w", path, namespace, err)
	}
	return meta.ModifyIndex, nil
}

// DeleteSecretEnv deletes a secrets Variable berth wrote at index; one
// already gone is no error, one written since by someone else is a
// *VariableConflictError and is left. Index 0 means berth holds none
// there: nothing is deleted.
func (c *Client) DeleteSecretEnv(ctx context.Context, namespace, path string, index uint64) error {
	ref := variable.Ref{Namespace: namespace, Path: path}
	index, err := c.currentIndex(ctx, namespace, path, index)
	if err != nil || index == 0 {
		return err
	}
	if err := c.DeleteVariable(ctx, ref, index); err != nil {
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
