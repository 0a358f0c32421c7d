package nomadclient

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/hashicorp/nomad/api"

	"github.com/berthhq/terraform-provider-berth/internal/volume"
)

// GetVolume reads a host volume by ID; (nil, nil) when it does not exist.
func (c *Client) GetVolume(ctx context.Context, namespace, id string) (*volume.Volume, error) {
	v, _, err := c.volumeAfter(ctx, namespace, id, 0)
	return v, err
}

// volumeAfter reads a volume once it changed after index (a blocking
// query; index 0 answers at once) and returns the index to wait on next.
// A volume that does not exist is (nil, index, nil).
func (c *Client) volumeAfter(ctx context.Context, namespace, id string, index uint64) (*volume.Volume, uint64, error) {
	next := index
	v, err := getOrNil(ctx, c, "read volume", func(ctx context.Context) (*api.HostVolume, error) {
		out, meta, err := c.api.HostVolumes().Get(id, c.query(ctx, blocking(ctx, namespace, index)))
		if meta != nil {
			next = meta.LastIndex
		}
		return out, err
	}, "reading host volume %s", id)
	if err != nil || v == nil {
		return nil, next, err
	}
	return hostVolumeFromAPI(v), next, nil
}

// VolumesNamed lists the host volumes called name in a namespace.
func (c *Client) VolumesNamed(ctx context.Context, namespace, name string) ([]volume.Summary, error) {
	stubs, err := readRetry(ctx, c, "list volumes", func(ctx context.Context) ([]*api.HostVolumeStub, error) {
		out, _, err := c.api.HostVolumes().List(nil, c.query(ctx, &api.QueryOptions{Namespace: namespace}))
		return out, err
	})
	if err != nil {
		return nil, fmt.Errorf("listing host volumes in namespace %q: %w", namespace, err)
	}
	var out []volume.Summary
	for _, s := range stubs {
		if s != nil && s.Name == name {
			out = append(out, hostVolumeSummary(s))
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}

// VolumeFilter selects host volumes for a listing. Empty fields select
// everything; Namespace "*" is every namespace the token can read.
// Type ("host", "csi", "" for both) is read by ListAllVolumes only.
type VolumeFilter struct {
	Namespace, NamePrefix, NodeID, NodePool, Type string
}

// ListVolumes lists the host volumes f selects, sorted by namespace, name
// and ID, in one request.
func (c *Client) ListVolumes(ctx context.Context, f VolumeFilter) ([]volume.Summary, error) {
	stubs, err := readRetry(ctx, c, "list volumes", func(ctx context.Context) ([]*api.HostVolumeStub, error) {
		out, _, err := c.api.HostVolumes().List(&api.HostVolumeListRequest{NodeID: f.NodeID, NodePool: f.NodePool},
			c.query(ctx, &api.QueryOptions{Namespace: f.Namespace}))
		return out, err
	})
	if err != nil {
		return nil, fmt.Errorf("listing host volumes in namespace %q: %w", f.Namespace, err)
	}
	var out []volume.Summary
	for _, s := range stubs {
		if s != nil && strings.HasPrefix(s.Name, f.NamePrefix) {
			out = append(out, hostVolumeSummary(s))
		}
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		return a.Namespace+"/"+a.Name+"/"+a.ID < b.Namespace+"/"+b.Name+"/"+b.ID
	})
	return out, nil
}

// AmbiguousVolumeError says several volumes answer to a name in a
// namespace (host volumes, CSI volumes, or one of each).
type AmbiguousVolumeError struct {
	Namespace, Name string
	Matches         []volume.Summary
}

func (e *AmbiguousVolumeError) Error() string {
	lines := make([]string, 0, len(e.Matches))
	kinds := map[string]bool{}
	for _, m := range e.Matches {
		typ := m.Type
		if typ == "" {
			typ = volume.TypeHost
		}
		kinds[typ] = true
		lines = append(lines, fmt.Sprintf("  %s volume %s (name %q) node=%s state=%s", typ, m.ID, m.Name, m.NodeID, m.State))
	}
	if len(kinds) > 1 {
		return fmt.Sprintf("%d volumes answer to %q in namespace %q, of both types; set type (data source, list), or "+
			"import the host volume by its ID:\n%s", len(e.Matches), e.Name, e.Namespace, strings.Join(lines, "\n"))
	}
	return fmt.Sprintf("%d volumes are named %q in namespace %q; use the volume ID instead:\n%s",
		len(e.Matches), e.Name, e.Namespace, strings.Join(lines, "\n"))
}

// FindVolume resolves a volume by namespace and name; it must be unique.
// It returns (nil, nil) when there is none.
func (c *Client) FindVolume(ctx context.Context, namespace, name string) (*volume.Volume, error) {
	stubs, err := c.VolumesNamed(ctx, namespace, name)
	if err != nil {
		return nil, err
	}
	switch len(stubs) {
	case 0:
		return nil, nil
	case 1:
		return c.GetVolume(ctx, namespace, stubs[0].ID)
	}
	return nil, &AmbiguousVolumeError{Namespace: namespace, Name: name, Matches: stubs}
}

// CreateVolume creates a dynamic host volume, or updates it in place when
// v.ID is set (Nomad's create endpoint accepts both). Not retried. It
// returns the volume Nomad answered with (nil when it named none) and
// Nomad's warnings. A volume placed on a node Nomad cannot reach is a
// *VolumeNoPathError (inside a *WriteNotAppliedError: nothing was made).
func (c *Client) CreateVolume(ctx context.Context, v *volume.Volume) (*volume.Volume, string, error) {
	resp, _, err := c.api.HostVolumes().Create(&api.HostVolumeCreateRequest{Volume: hostVolumeToAPI(v)},
		c.write(ctx, v.Namespace))
	if err != nil && isNoPathToNode(err) {
		return nil, "", &WriteNotAppliedError{Err: c.noPathError(ctx, v, err)}
	}
	if err != nil {
		return nil, "", c.writeError(err)
	}
	return hostVolumeFromAPI(resp.Volume), resp.Warnings, nil
}

// VolumeNodeUnreachableError is Nomad refusing to delete a host volume
// without force because the servers cannot reach its node: the node is
// unknown, down, or its client has not reconnected since a restart.
// Nothing was deleted.
type VolumeNodeUnreachableError struct{ Err error }

func (e *VolumeNodeUnreachableError) Error() string { return e.Err.Error() }
func (e *VolumeNodeUnreachableError) Unwrap() error { return e.Err }

// nodeUnreachableRefusal is Nomad's answer (1.10) to a delete without
// force when the node's RPC fails with "unknown node" or "no path to node".
const nodeUnreachableRefusal = "cannot be removed from unknown node"

// DeleteVolume deletes a host volume; force deletes it even when its node
// is gone. A volume that does not exist is not an error; a refusal because
// the node cannot be reached is a *VolumeNodeUnreachableError.
func (c *Client) DeleteVolume(ctx context.Context, namespace, id string, force bool) error {
	_, _, err := c.api.HostVolumes().Delete(&api.HostVolumeDeleteRequest{ID: id, Force: force},
		c.write(ctx, namespace))
	switch {
	case err == nil || IsNotFound(err):
		return nil
	case statusCode(err) != 0 && strings.Contains(err.Error(), nodeUnreachableRefusal):
		return &VolumeNodeUnreachableError{Err: err}
	}
	return c.writeError(err)
}

// WaitVolumeReady waits until the volume is ready. A volume that stays
// pending ends the wait with the context, naming its state.
func (c *Client) WaitVolumeReady(ctx context.Context, namespace, id string) (*volume.Volume, error) {
	var vol *volume.Volume
	var index uint64
	err := poll(ctx, "host volume "+idPrefix(id)+" to be ready", blockingPause, func() (bool, string, error) {
		v, next, err := c.volumeAfter(ctx, namespace, id, index)
		index = next
		if err != nil {
			return false, "", err
		}
		if v == nil {
			return false, "", fmt.Errorf("host volume %s disappeared while waiting for it to be ready", id)
		}
		vol = v
		return v.State == volume.StateReady, v.State, nil
	})
	return vol, err
}

// WaitVolumeGone waits until the volume no longer exists.
func (c *Client) WaitVolumeGone(ctx context.Context, namespace, id string) error {
	var index uint64
	return poll(ctx, "host volume "+idPrefix(id)+" to be deleted", blockingPause, func() (bool, string, error) {
		v, next, err := c.volumeAfter(ctx, namespace, id, index)
		index = next
		if err != nil {
			return false, "", err
		}
		if v == nil {
			return true, "", nil
		}
		return false, v.State, nil
	})
}
