package csiplugin

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// NodeGetInfo names the node; volumes have no topology.
func (p *Plugin) NodeGetInfo(context.Context, *csi.NodeGetInfoRequest) (*csi.NodeGetInfoResponse, error) {
	return &csi.NodeGetInfoResponse{NodeId: p.cfg.NodeID}, nil
}

// NodeGetCapabilities advertises staging only when configured, so both of
// Nomad's paths (stage then publish, publish alone) can be exercised.
func (p *Plugin) NodeGetCapabilities(context.Context, *csi.NodeGetCapabilitiesRequest) (*csi.NodeGetCapabilitiesResponse, error) {
	out := &csi.NodeGetCapabilitiesResponse{}
	if p.cfg.Staging {
		out.Capabilities = append(out.Capabilities, &csi.NodeServiceCapability{
			Type: &csi.NodeServiceCapability_Rpc{Rpc: &csi.NodeServiceCapability_RPC{
				Type: csi.NodeServiceCapability_RPC_STAGE_UNSTAGE_VOLUME,
			}},
		})
	}
	return out, nil
}

// NodeStageVolume bind-mounts the volume's directory onto the staging path.
func (p *Plugin) NodeStageVolume(_ context.Context, req *csi.NodeStageVolumeRequest) (*csi.NodeStageVolumeResponse, error) {
	if !p.cfg.Staging {
		return nil, status.Error(codes.Unimplemented, "this plugin was started without staging")
	}
	if req.GetStagingTargetPath() == "" {
		return nil, status.Error(codes.InvalidArgument, "a staging target path is required")
	}
	if err := checkCapabilities([]*csi.VolumeCapability{req.GetVolumeCapability()}); err != nil {
		return nil, status.Error(codes.InvalidArgument, err.Error())
	}
	src, err := p.existingVolumeDir(req.GetVolumeId())
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if err := bindMount(src, req.GetStagingTargetPath(), false); err != nil {
		return nil, status.Error(codes.Internal, err.Error())
	}
	return &csi.NodeStageVolumeResponse{}, nil
}

// NodeUnstageVolume unmounts the staging path.
func (p *Plugin) NodeUnstageVolume(_ context.Context, req *csi.NodeUnstageVolumeRequest) (*csi.NodeUnstageVolumeResponse, error) {
	if req.GetStagingTargetPath() == "" {
		return nil, status.Error(codes.InvalidArgument, "a staging target path is required")
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if err := unmount(req.GetStagingTargetPath()); err != nil {
		return nil, status.Error(codes.Internal, err.Error())
	}
	return &csi.NodeUnstageVolumeResponse{}, nil
}

// NodePublishVolume bind-mounts the staged path (or, without staging, the
// volume's directory) onto the target path, read-only when asked.
func (p *Plugin) NodePublishVolume(_ context.Context, req *csi.NodePublishVolumeRequest) (*csi.NodePublishVolumeResponse, error) {
	if req.GetTargetPath() == "" {
		return nil, status.Error(codes.InvalidArgument, "a target path is required")
	}
	if err := checkCapabilities([]*csi.VolumeCapability{req.GetVolumeCapability()}); err != nil {
		return nil, status.Error(codes.InvalidArgument, err.Error())
	}
	src, err := p.existingVolumeDir(req.GetVolumeId())
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cfg.Staging {
		staged := req.GetStagingTargetPath()
		if staged == "" {
			return nil, status.Error(codes.FailedPrecondition, "the volume must be staged first: no staging target path")
		}
		// Nomad 1.10 frees a volume's last user and unstages it in two
		// steps, so another allocation's stage can land in between and
		// find the path unstaged by the time it publishes. Stage again
		// rather than publish an empty directory (bindMount leaves a
		// mounted path alone).
		if err := bindMount(src, staged, false); err != nil {
			return nil, status.Error(codes.Internal, err.Error())
		}
		src = staged
	}
	if err := bindMount(src, req.GetTargetPath(), req.GetReadonly()); err != nil {
		return nil, status.Error(codes.Internal, err.Error())
	}
	return &csi.NodePublishVolumeResponse{}, nil
}

// NodeUnpublishVolume unmounts the target path and removes it.
func (p *Plugin) NodeUnpublishVolume(_ context.Context, req *csi.NodeUnpublishVolumeRequest) (*csi.NodeUnpublishVolumeResponse, error) {
	if req.GetTargetPath() == "" {
		return nil, status.Error(codes.InvalidArgument, "a target path is required")
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if err := unmount(req.GetTargetPath()); err != nil {
		return nil, status.Error(codes.Internal, err.Error())
	}
	if err := os.Remove(req.GetTargetPath()); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, status.Errorf(codes.Internal, "removing %s: %v", req.GetTargetPath(), err)
	}
	return &csi.NodeUnpublishVolumeResponse{}, nil
}

// existingVolumeDir is the directory of a volume that must exist, as a
// gRPC status error otherwise.
func (p *Plugin) existingVolumeDir(id string) (string, error) {
	dir, err := p.volumeDir(id)
	if err != nil {
		return "", status.Error(codes.InvalidArgument, err.Error())
	}
	if _, err := os.Stat(dir); err != nil {
		return "", status.Error(codes.NotFound, fmt.Sprintf("volume %s: %v", id, err))
	}
	return dir, nil
}
