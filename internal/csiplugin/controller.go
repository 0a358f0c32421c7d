package csiplugin

import (
	"context"
	"errors"
	"io/fs"
	"os"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/wrapperspb"
)

// GetPluginInfo names the plugin.
func (p *Plugin) GetPluginInfo(context.Context, *csi.GetPluginInfoRequest) (*csi.GetPluginInfoResponse, error) {
	return &csi.GetPluginInfoResponse{Name: p.cfg.Name, VendorVersion: p.cfg.Version}, nil
}

// GetPluginCapabilities advertises the controller service; without it
// Nomad never sends CreateVolume to this plugin.
func (p *Plugin) GetPluginCapabilities(context.Context, *csi.GetPluginCapabilitiesRequest) (*csi.GetPluginCapabilitiesResponse, error) {
	return &csi.GetPluginCapabilitiesResponse{Capabilities: []*csi.PluginCapability{{
		Type: &csi.PluginCapability_Service_{Service: &csi.PluginCapability_Service{
			Type: csi.PluginCapability_Service_CONTROLLER_SERVICE,
		}},
	}}}, nil
}

// Probe reports ready once the base directory is there.
func (p *Plugin) Probe(context.Context, *csi.ProbeRequest) (*csi.ProbeResponse, error) {
	if _, err := os.Stat(p.cfg.BaseDir); err != nil {
		return nil, status.Errorf(codes.FailedPrecondition, "base directory: %v", err)
	}
	return &csi.ProbeResponse{Ready: wrapperspb.Bool(true)}, nil
}

// ControllerGetCapabilities: create and delete only. Without
// PUBLISH_UNPUBLISH_VOLUME Nomad skips ControllerPublish, which a local
// directory has no use for.
func (p *Plugin) ControllerGetCapabilities(context.Context, *csi.ControllerGetCapabilitiesRequest) (*csi.ControllerGetCapabilitiesResponse, error) {
	return &csi.ControllerGetCapabilitiesResponse{Capabilities: []*csi.ControllerServiceCapability{{
		Type: &csi.ControllerServiceCapability_Rpc{Rpc: &csi.ControllerServiceCapability_RPC{
			Type: csi.ControllerServiceCapability_RPC_CREATE_DELETE_VOLUME,
		}},
	}}}, nil
}

// CreateVolume makes the volume's directory, named after the request. A
// second call with the same name answers with the same volume, as CSI
// requires of retries.
func (p *Plugin) CreateVolume(_ context.Context, req *csi.CreateVolumeRequest) (*csi.CreateVolumeResponse, error) {
	if len(req.GetVolumeCapabilities()) == 0 {
		return nil, status.Error(codes.InvalidArgument, "volume capabilities are required")
	}
	if err := checkCapabilities(req.GetVolumeCapabilities()); err != nil {
		return nil, status.Error(codes.InvalidArgument, err.Error())
	}
	dir, err := p.volumeDir(req.GetName())
	if err != nil {
		return nil, status.Error(codes.InvalidArgument, err.Error())
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if err := os.Mkdir(dir, 0o777); err != nil && !errors.Is(err, fs.ErrExist) {
		return nil, status.Errorf(codes.Internal, "creating %s: %v", dir, err)
	}
	// World-writable like a fresh disk: tasks run as any user.
	if err := os.Chmod(dir, 0o777); err != nil {
		return nil, status.Errorf(codes.Internal, "chmod %s: %v", dir, err)
	}
	// A directory has no size; report what was asked for so Nomad shows
	// the requested capacity.
	capacity := req.GetCapacityRange().GetRequiredBytes()
	if capacity == 0 {
		capacity = req.GetCapacityRange().GetLimitBytes()
	}
	return &csi.CreateVolumeResponse{Volume: &csi.Volume{
		VolumeId: req.GetName(), CapacityBytes: capacity, VolumeContext: req.GetParameters(),
	}}, nil
}

// DeleteVolume removes the volume's directory; a missing one is success.
func (p *Plugin) DeleteVolume(_ context.Context, req *csi.DeleteVolumeRequest) (*csi.DeleteVolumeResponse, error) {
	dir, err := p.volumeDir(req.GetVolumeId())
	if err != nil {
		return nil, status.Error(codes.InvalidArgument, err.Error())
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if err := os.RemoveAll(dir); err != nil {
		return nil, status.Errorf(codes.Internal, "removing %s: %v", dir, err)
	}
	return &csi.DeleteVolumeResponse{}, nil
}

// ValidateVolumeCapabilities confirms the capabilities this plugin can
// serve for an existing volume.
func (p *Plugin) ValidateVolumeCapabilities(_ context.Context, req *csi.ValidateVolumeCapabilitiesRequest) (*csi.ValidateVolumeCapabilitiesResponse, error) {
	dir, err := p.volumeDir(req.GetVolumeId())
	if err != nil {
		return nil, status.Error(codes.InvalidArgument, err.Error())
	}
	if len(req.GetVolumeCapabilities()) == 0 {
		return nil, status.Error(codes.InvalidArgument, "volume capabilities are required")
	}
	if _, err := os.Stat(dir); err != nil {
		return nil, status.Errorf(codes.NotFound, "volume %s: %v", req.GetVolumeId(), err)
	}
	// An unsupported capability is an answer (unconfirmed, with the
	// reason), not an RPC failure.
	if msg := capabilitiesProblem(req.GetVolumeCapabilities()); msg != "" {
		return &csi.ValidateVolumeCapabilitiesResponse{Message: msg}, nil
	}
	return &csi.ValidateVolumeCapabilitiesResponse{Confirmed: &csi.ValidateVolumeCapabilitiesResponse_Confirmed{
		VolumeContext:      req.GetVolumeContext(),
		VolumeCapabilities: req.GetVolumeCapabilities(),
		Parameters:         req.GetParameters(),
	}}, nil
}

// checkCapabilities accepts filesystem access on a single node: a
// directory is neither a block device nor shared between nodes.
func checkCapabilities(caps []*csi.VolumeCapability) error {
	for _, c := range caps {
		if c.GetMount() == nil {
			return errors.New("only the file-system attachment mode is supported")
		}
		switch c.GetAccessMode().GetMode() {
		case csi.VolumeCapability_AccessMode_SINGLE_NODE_WRITER,
			csi.VolumeCapability_AccessMode_SINGLE_NODE_READER_ONLY,
			csi.VolumeCapability_AccessMode_SINGLE_NODE_SINGLE_WRITER,
			csi.VolumeCapability_AccessMode_SINGLE_NODE_MULTI_WRITER:
		default:
			return errors.New("access mode " + c.GetAccessMode().GetMode().String() + " is not supported: use a single-node mode")
		}
	}
	return nil
}

// capabilitiesProblem is checkCapabilities' reason, or "" when supported.
func capabilitiesProblem(caps []*csi.VolumeCapability) string {
	if err := checkCapabilities(caps); err != nil {
		return err.Error()
	}
	return ""
}
