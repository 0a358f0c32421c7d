package nomadclient

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/hashicorp/nomad/api"

	"github.com/berthhq/terraform-provider-berth/internal/volume"
)

// GetHostRegistration reads a host volume as a registration; (nil, nil)
// when Nomad does not know it.
func (c *Client) GetHostRegistration(ctx context.Context, namespace, id string) (*volume.HostRegistration, error) {
	v, err := getOrNil(ctx, c, "read host volume", func(ctx context.Context) (*api.HostVolume, error) {
		out, _, err := c.api.HostVolumes().Get(id, c.query(ctx, &api.QueryOptions{Namespace: namespace}))
		return out, err
	}, "reading host volume %s", id)
	if err != nil || v == nil {
		return nil, err
	}
	return hostRegistrationFromAPI(v), nil
}

// RegisterHostVolume registers an existing directory on a node as a
// dynamic host volume (r without an ID), or updates the registration of
// one Nomad knows (r with its ID). The node's client checks the path
// exists; nothing is created. Not retried. It returns the volume's ID and
// Nomad's warnings.
func (c *Client) RegisterHostVolume(ctx context.Context, r *volume.HostRegistration) (string, string, error) {
	resp, _, err := c.api.HostVolumes().Register(&api.HostVolumeRegisterRequest{Volume: hostRegistrationToAPI(r)},
		c.write(ctx, r.Namespace))
	if err != nil {
		return "", "", c.writeError(err)
	}
	if resp == nil || resp.Volume == nil {
		return "", "", fmt.Errorf("registering host volume %q: Nomad answered without the volume", r.Name)
	}
	return resp.Volume.ID, resp.Warnings, nil
}

// DeregisterHostVolume removes Nomad's record of a host volume that has
// no plugin: with none, the node's client only forgets it, and the
// directory and its data stay. Callers check the plugin first (with one,
// Nomad asks the plugin to delete the data). A volume Nomad does not know
// is not an error.
func (c *Client) DeregisterHostVolume(ctx context.Context, namespace, id string) error {
	_, _, err := c.api.HostVolumes().Delete(&api.HostVolumeDeleteRequest{ID: id},
		c.write(ctx, namespace))
	// Nomad 1.10 answers an unknown ID with a 500 saying "no such volume".
	if err != nil && !IsNotFound(err) && !strings.Contains(err.Error(), "no such volume: "+id) {
		return c.writeError(err)
	}
	return nil
}

// ListHostRegistrations lists the host volumes without a plugin in a
// namespace ("*" for every namespace the token can read) whose name
// starts with namePrefix, sorted by namespace, name and ID.
func (c *Client) ListHostRegistrations(ctx context.Context, namespace, namePrefix string) ([]volume.Summary, error) {
	stubs, err := readRetry(ctx, c, "list volumes", func(ctx context.Context) ([]*api.HostVolumeStub, error) {
		out, _, err := c.api.HostVolumes().List(nil, c.query(ctx, &api.QueryOptions{Namespace: namespace}))
		return out, err
	})
	if err != nil {
		return nil, fmt.Errorf("listing host volumes in namespace %q: %w", namespace, err)
	}
	var out []volume.Summary
	for _, s := range stubs {
		if s != nil && s.PluginID == "" && strings.HasPrefix(s.Name, namePrefix) {
			out = append(out, hostVolumeSummary(s))
		}
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		return a.Namespace+"/"+a.Name+"/"+a.ID < b.Namespace+"/"+b.Name+"/"+b.ID
	})
	return out, nil
}
