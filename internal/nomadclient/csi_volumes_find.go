package nomadclient

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/hashicorp/nomad/api"

	"github.com/berthhq/terraform-provider-berth/internal/volume"
)

// ListCSIVolumes lists the CSI volumes in a namespace ("*": every
// namespace the token can read) whose name starts with namePrefix,
// sorted by namespace, name and ID, in one request.
func (c *Client) ListCSIVolumes(ctx context.Context, namespace, namePrefix string) ([]volume.Summary, error) {
	stubs, err := readRetry(ctx, c, "list CSI volumes", func(ctx context.Context) ([]*api.CSIVolumeListStub, error) {
		out, _, err := c.api.CSIVolumes().List(c.query(ctx, &api.QueryOptions{Namespace: namespace}))
		return out, err
	})
	if err != nil {
		return nil, fmt.Errorf("listing CSI volumes in namespace %q: %w", namespace, err)
	}
	var out []volume.Summary
	for _, s := range stubs {
		if s != nil && strings.HasPrefix(s.Name, namePrefix) {
			out = append(out, csiVolumeSummary(s))
		}
	}
	sortSummaries(out)
	return out, nil
}

// ListAllVolumes lists the volumes f selects: host volumes unless
// f.Type is "csi", CSI volumes unless it is "host" or a node filter is
// set (a CSI volume lives on no node of its own). Sorted as ListVolumes.
func (c *Client) ListAllVolumes(ctx context.Context, f VolumeFilter) ([]volume.Summary, error) {
	var out []volume.Summary
	if f.Type != volume.TypeCSI {
		host, err := c.ListVolumes(ctx, f)
		if err != nil {
			return nil, err
		}
		out = append(out, host...)
	}
	if f.Type != volume.TypeHost && f.NodeID == "" && f.NodePool == "" {
		csi, err := c.ListCSIVolumes(ctx, f.Namespace, f.NamePrefix)
		if err != nil {
			return nil, err
		}
		out = append(out, csi...)
	}
	sortSummaries(out)
	return out, nil
}

func sortSummaries(out []volume.Summary) {
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		return a.Namespace+"/"+a.Name+"/"+a.Type+"/"+a.ID < b.Namespace+"/"+b.Name+"/"+b.Type+"/"+b.ID
	})
}

// ResolveVolume finds the volume ref names in a namespace: a host volume
// by ID (a UUID) or by its unique name, or a CSI volume by ID or by its
// unique name. typ ("host", "csi" or "" for either) narrows the search.
// (nil, nil) when nothing answers; an *AmbiguousVolumeError when more
// than one volume does.
func (c *Client) ResolveVolume(ctx context.Context, namespace, ref, typ string) (*volume.Volume, error) {
	var found []*volume.Volume
	if typ != volume.TypeCSI {
		var v *volume.Volume
		var err error
		if isUUID(ref) {
			v, err = c.GetVolume(ctx, namespace, ref)
		} else {
			v, err = c.FindVolume(ctx, namespace, ref)
		}
		if err != nil {
			return nil, err
		}
		if v != nil {
			if isUUID(ref) {
				return v, nil // a host volume's own ID: nothing else answers to it
			}
			found = append(found, v)
		}
	}
	if typ != volume.TypeHost {
		v, err := c.findCSIVolume(ctx, namespace, ref)
		if err != nil {
			return nil, err
		}
		if v != nil {
			found = append(found, v)
		}
	}
	switch len(found) {
	case 0:
		return nil, nil
	case 1:
		return found[0], nil
	}
	matches := make([]volume.Summary, 0, len(found))
	for _, v := range found {
		matches = append(matches, volume.Summary{Namespace: v.Namespace, ID: v.ID, Name: v.Name, NodeID: v.NodeID, State: v.State, Type: v.Type})
	}
	return nil, &AmbiguousVolumeError{Namespace: namespace, Name: ref, Matches: matches}
}

// findCSIVolume reads a CSI volume by ID, or else by its name when one
// CSI volume in the namespace has it (a registered volume's ID may
// differ from its name).
func (c *Client) findCSIVolume(ctx context.Context, namespace, ref string) (*volume.Volume, error) {
	v, err := c.GetCSIVolume(ctx, namespace, ref)
	if err != nil || v != nil {
		return v, err
	}
	all, err := c.ListCSIVolumes(ctx, namespace, ref)
	if err != nil {
		return nil, err
	}
	var named []volume.Summary
	for _, s := range all {
		if s.Name == ref {
			named = append(named, s)
		}
	}
	switch len(named) {
	case 0:
		return nil, nil
	case 1:
		return c.GetCSIVolume(ctx, namespace, named[0].ID)
	}
	return nil, &AmbiguousVolumeError{Namespace: namespace, Name: ref, Matches: named}
}

// isUUID reports whether s has the shape of a Nomad ID.
func isUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i, r := range s {
		switch {
		case i == 8 || i == 13 || i == 18 || i == 23:
			if r != '-' {
				return false
			}
		case (r < '0' || r > '9') && (r < 'a' || r > 'f'):
			return false
		}
	}
	return true
}
