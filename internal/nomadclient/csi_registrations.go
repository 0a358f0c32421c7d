package nomadclient

import (
	"context"
	"strings"

	"github.com/hashicorp/nomad/api"

	"github.com/berthhq/terraform-provider-berth/internal/volume"
)

// GetCSIRegistration reads a CSI volume as a registration; (nil, nil)
// when Nomad does not know it.
func (c *Client) GetCSIRegistration(ctx context.Context, namespace, id string) (*volume.CSIRegistration, error) {
	v, err := getOrNil(ctx, c, "read CSI volume", func(ctx context.Context) (*api.CSIVolume, error) {
		out, _, err := c.api.CSIVolumes().Info(id, c.query(ctx, &api.QueryOptions{Namespace: namespace}))
		return out, err
	}, "reading CSI volume %s", id)
	if err != nil || v == nil {
		return nil, err
	}
	return csiRegistrationFromAPI(v), nil
}

// RegisterCSIVolume registers an existing CSI volume, or updates the
// registration of one Nomad knows (the fields Nomad lets change). Nomad
// asks the plugin's controller, when it has one, to confirm the volume
// and its capabilities; nothing is created. Not retried. The secrets
// travel in the request body, which berth never logs; the error may
// repeat them, so callers redact it (volume.RedactSecrets). It returns
// Nomad's warnings.
func (c *Client) RegisterCSIVolume(ctx context.Context, r *volume.CSIRegistration) (string, error) {
	resp, _, err := c.api.CSIVolumes().RegisterOpts(&api.CSIVolumeRegisterRequest{Volumes: []*api.CSIVolume{csiRegistrationToAPI(r)}},
		c.write(ctx, r.Namespace))
	if err != nil {
		return "", c.writeError(err)
	}
	if resp == nil {
		return "", nil
	}
	return resp.Warnings, nil
}

// DeregisterCSIVolume removes Nomad's record of a CSI volume without
// asking the plugin to delete it: the volume and its data stay. Nomad
// refuses while claims are held. A volume Nomad does not know is not an
// error.
func (c *Client) DeregisterCSIVolume(ctx context.Context, namespace, id string) error {
	err := c.api.CSIVolumes().Deregister(id, false, c.write(ctx, namespace))
	// Nomad 1.10 answers an unknown ID with a 500 saying "volume not found".
	if err != nil && !IsNotFound(err) && !strings.Contains(err.Error(), "volume not found: "+id) {
		return c.writeError(err)
	}
	return nil
}
