package nomadclient

import (
	"context"
	"fmt"
	"strconv"

	"github.com/hashicorp/nomad/api"

	"github.com/berthhq/terraform-provider-berth/internal/volume"
)

// GetCSIVolume reads a CSI volume by ID; (nil, nil) when it does not
// exist. Nomad redacts its secrets.
func (c *Client) GetCSIVolume(ctx context.Context, namespace, id string) (*volume.Volume, error) {
	v, _, err := c.csiVolumeAfter(ctx, namespace, id, 0)
	return v, err
}

// csiVolumeAfter is a blocking read of a CSI volume, as volumeAfter.
func (c *Client) csiVolumeAfter(ctx context.Context, namespace, id string, index uint64) (*volume.Volume, uint64, error) {
	next := index
	v, err := getOrNil(ctx, c, "read CSI volume", func(ctx context.Context) (*api.CSIVolume, error) {
		out, meta, err := c.api.CSIVolumes().Info(id, c.query(ctx, blocking(ctx, namespace, index)))
		if meta != nil {
			next = meta.LastIndex
		}
		return out, err
	}, "reading CSI volume %s", id)
	if err != nil || v == nil {
		return nil, next, err
	}
	return csiVolumeFromAPI(v), next, nil
}

// CreateCSIVolume asks the volume's plugin to create it and registers it
// in Nomad. Not retried. The secrets travel in the request body, which
// berth never logs; the error, which carries the plugin's own words, may
// repeat them, so callers redact it (volume.RedactSecrets).
func (c *Client) CreateCSIVolume(ctx context.Context, v *volume.Volume) (*volume.Volume, string, error) {
	resp, _, err := c.api.CSIVolumes().CreateOpts(&api.CSIVolumeCreateRequest{Volumes: []*api.CSIVolume{csiVolumeToAPI(v)}},
		c.write(ctx, v.Namespace))
	if err != nil {
		return nil, "", c.writeError(err)
	}
	var created *volume.Volume
	if len(resp.Volumes) > 0 {
		created = csiVolumeFromAPI(resp.Volumes[0])
	}
	return created, resp.Warnings, nil
}

// DeleteCSIVolume has the plugin delete the volume and deregisters it;
// Nomad passes the plugin the secrets it stored at create. A volume that
// does not exist is not an error.
func (c *Client) DeleteCSIVolume(ctx context.Context, namespace, id string) error {
	err := c.api.CSIVolumes().DeleteOpts(&api.CSIVolumeDeleteRequest{ExternalVolumeID: id},
		c.write(ctx, namespace))
	if err != nil && !IsNotFound(err) {
		return c.writeError(err)
	}
	return nil
}

// WaitCSIVolumeReady waits until the volume is schedulable: its plugin has
// a healthy controller and node.
func (c *Client) WaitCSIVolumeReady(ctx context.Context, namespace, id string) (*volume.Volume, error) {
	var vol *volume.Volume
	var index uint64
	err := poll(ctx, "CSI volume "+id+" to be schedulable", blockingPause, func() (bool, string, error) {
		v, next, err := c.csiVolumeAfter(ctx, namespace, id, index)
		index = next
		if err != nil {
			return false, "", err
		}
		if v == nil {
			return false, "", fmt.Errorf("CSI volume %s disappeared while waiting for it to be schedulable", id)
		}
		vol = v
		return v.State == volume.StateReady, v.State, nil
	})
	return vol, err
}

// WaitCSIVolumeUnclaimed waits until Nomad has released every claim on the
// volume: claims outlive their allocations until the node unpublishes.
func (c *Client) WaitCSIVolumeUnclaimed(ctx context.Context, namespace, id string) error {
	var index uint64
	return poll(ctx, "CSI volume "+id+" claims to be released", blockingPause, func() (bool, string, error) {
		v, next, err := c.csiVolumeAfter(ctx, namespace, id, index)
		index = next
		if err != nil || v == nil {
			return v == nil && err == nil, "", err
		}
		return v.Claims == 0, strconv.Itoa(v.Claims) + " claims", nil
	})
}

// WaitCSIVolumeGone waits until the volume is no longer registered.
func (c *Client) WaitCSIVolumeGone(ctx context.Context, namespace, id string) error {
	var index uint64
	return poll(ctx, "CSI volume "+id+" to be deleted", blockingPause, func() (bool, string, error) {
		v, next, err := c.csiVolumeAfter(ctx, namespace, id, index)
		index = next
		if err != nil {
			return false, "", err
		}
		return v == nil, "registered", nil
	})
}
