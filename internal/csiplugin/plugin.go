// Package csiplugin is a minimal CSI plugin for berth's acceptance tests.
// A volume is a directory under a base directory; publishing it is a bind
// mount of that directory onto the target path. It needs no container
// runtime, so Nomad can run it as a raw_exec task on any Linux client
// where the agent runs as root. It is not meant for real storage.
package csiplugin

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc"
)

// Config is what the plugin needs to know about where it runs.
type Config struct {
	// Name is the vendor name GetPluginInfo reports, e.g. "berth.test.csi".
	Name    string
	Version string
	// BaseDir holds one directory per volume.
	BaseDir string
	// NodeID is what NodeGetInfo reports.
	NodeID string
	// Staging advertises STAGE_UNSTAGE_VOLUME: the volume is bind-mounted
	// onto the staging path first, and published from there.
	Staging bool
}

// Plugin serves the CSI identity, controller and node services.
type Plugin struct {
	csi.UnimplementedIdentityServer
	csi.UnimplementedControllerServer
	csi.UnimplementedNodeServer

	cfg Config
	// mu serializes volume operations: CSI allows concurrent calls, and a
	// directory plugin gains nothing from running them in parallel.
	mu sync.Mutex
}

// New checks cfg and returns a plugin; the base directory is created.
func New(cfg Config) (*Plugin, error) {
	if cfg.Name == "" {
		return nil, fmt.Errorf("csiplugin: a plugin name is required")
	}
	if !filepath.IsAbs(cfg.BaseDir) {
		return nil, fmt.Errorf("csiplugin: the base directory must be an absolute path, got %q", cfg.BaseDir)
	}
	if cfg.NodeID == "" {
		return nil, fmt.Errorf("csiplugin: a node ID is required")
	}
	if cfg.Version == "" {
		cfg.Version = "0.1.0"
	}
	if err := os.MkdirAll(cfg.BaseDir, 0o755); err != nil {
		return nil, fmt.Errorf("csiplugin: creating the base directory: %w", err)
	}
	return &Plugin{cfg: cfg}, nil
}

// Register adds the three CSI services to s.
func (p *Plugin) Register(s *grpc.Server) {
	csi.RegisterIdentityServer(s, p)
	csi.RegisterControllerServer(s, p)
	csi.RegisterNodeServer(s, p)
}

// Listen opens the unix socket an endpoint names ("unix:///path" or a bare
// path), removing a stale socket a previous run left behind.
func Listen(endpoint string) (net.Listener, string, error) {
	path := strings.TrimPrefix(endpoint, "unix://")
	if path == "" || !filepath.IsAbs(path) {
		return nil, "", fmt.Errorf("csiplugin: the endpoint must be unix:///absolute/path, got %q", endpoint)
	}
	if err := os.Remove(path); err != nil && !os.IsNotExist(err) {
		return nil, "", fmt.Errorf("csiplugin: removing the old socket: %w", err)
	}
	l, err := net.Listen("unix", path)
	if err != nil {
		return nil, "", fmt.Errorf("csiplugin: listening on %s: %w", path, err)
	}
	return l, path, nil
}

// volumeDir is where volume id lives. IDs are names the plugin chose from
// CreateVolume requests, so they must never name anything outside BaseDir.
func (p *Plugin) volumeDir(id string) (string, error) {
	if !validID(id) {
		return "", fmt.Errorf("invalid volume ID %q: use letters, digits, '-', '_', '.', '[' and ']', not '.' or '..' alone", id)
	}
	return filepath.Join(p.cfg.BaseDir, id), nil
}

func validID(id string) bool {
	if id == "" || id == "." || id == ".." || len(id) > 128 {
		return false
	}
	for _, r := range id {
		// Brackets are for per_alloc volumes ("data[0]"); like the rest,
		// they cannot leave BaseDir.
		ok := r == '-' || r == '_' || r == '.' || r == '[' || r == ']' ||
			(r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9')
		if !ok {
			return false
		}
	}
	return true
}
