package csiplugin

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"golang.org/x/sys/unix"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
)

// clients is the plugin's three services, reached over its socket.
type clients struct {
	id   csi.IdentityClient
	ctrl csi.ControllerClient
	node csi.NodeClient
}

// startPlugin serves a plugin on a socket in a temporary directory and
// dials it, as Nomad does.
func startPlugin(t *testing.T, staging bool) (clients, string) {
	t.Helper()
	dir := t.TempDir()
	base := filepath.Join(dir, "volumes")
	p, err := New(Config{Name: "berth.test.csi", BaseDir: base, NodeID: "node-1", Staging: staging})
	if err != nil {
		t.Fatal(err)
	}
	l, sock, err := Listen("unix://" + filepath.Join(dir, "csi.sock"))
	if err != nil {
		t.Fatal(err)
	}
	s := grpc.NewServer()
	p.Register(s)
	go func() { _ = s.Serve(l) }()
	t.Cleanup(s.Stop)

	conn, err := grpc.NewClient("unix://"+sock, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	return clients{csi.NewIdentityClient(conn), csi.NewControllerClient(conn), csi.NewNodeClient(conn)}, base
}

func mountCap(mode csi.VolumeCapability_AccessMode_Mode) *csi.VolumeCapability {
	return &csi.VolumeCapability{
		AccessType: &csi.VolumeCapability_Mount{Mount: &csi.VolumeCapability_MountVolume{}},
		AccessMode: &csi.VolumeCapability_AccessMode{Mode: mode},
	}
}

func needRoot(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("bind mounts need root")
	}
}

// unmountOnCleanup makes sure a failing test leaves no mount behind.
func unmountOnCleanup(t *testing.T, paths ...string) {
	t.Cleanup(func() {
		for _, p := range paths {
			if m, _ := isMountPoint(p); m {
				if err := unix.Unmount(p, unix.MNT_DETACH); err != nil {
					t.Errorf("cleanup: unmount %s: %v", p, err)
				}
			}
		}
	})
}

func TestIdentity(t *testing.T) {
	c, _ := startPlugin(t, false)
	ctx := t.Context()
	info, err := c.id.GetPluginInfo(ctx, &csi.GetPluginInfoRequest{})
	if err != nil || info.GetName() != "berth.test.csi" || info.GetVendorVersion() == "" {
		t.Fatalf("GetPluginInfo = %v, %v", info, err)
	}
	caps, err := c.id.GetPluginCapabilities(ctx, &csi.GetPluginCapabilitiesRequest{})
	if err != nil || len(caps.GetCapabilities()) != 1 ||
		caps.GetCapabilities()[0].GetService().GetType() != csi.PluginCapability_Service_CONTROLLER_SERVICE {
		t.Fatalf("GetPluginCapabilities = %v, %v", caps, err)
	}
	probe, err := c.id.Probe(ctx, &csi.ProbeRequest{})
	if err != nil || !probe.GetReady().GetValue() {
		t.Fatalf("Probe = %v, %v", probe, err)
	}
	ctrl, err := c.ctrl.ControllerGetCapabilities(ctx, &csi.ControllerGetCapabilitiesRequest{})
	if err != nil || len(ctrl.GetCapabilities()) != 1 ||
		ctrl.GetCapabilities()[0].GetRpc().GetType() != csi.ControllerServiceCapability_RPC_CREATE_DELETE_VOLUME {
		t.Fatalf("ControllerGetCapabilities = %v, %v", ctrl, err)
	}
	node, err := c.node.NodeGetInfo(ctx, &csi.NodeGetInfoRequest{})
	if err != nil || node.GetNodeId() != "node-1" {
		t.Fatalf("NodeGetInfo = %v, %v", node, err)
	}
}

func TestNodeCapabilities_stagingOnlyWhenAsked(t *testing.T) {
	for _, staging := range []bool{false, true} {
		c, _ := startPlugin(t, staging)
		got, err := c.node.NodeGetCapabilities(t.Context(), &csi.NodeGetCapabilitiesRequest{})
		if err != nil {
			t.Fatal(err)
		}
		want := 0
		if staging {
			want = 1
		}
		if len(got.GetCapabilities()) != want {
			t.Errorf("staging=%v: %d capabilities, want %d", staging, len(got.GetCapabilities()), want)
		}
	}
}

// TestVolume_createPublishWriteDelete walks a volume through its life the
// way Nomad drives it, with and without staging.
func TestVolume_createPublishWriteDelete(t *testing.T) {
	needRoot(t)
	for _, staging := range []bool{false, true} {
		name := "publish-only"
		if staging {
			name = "stage-publish"
		}
		t.Run(name, func(t *testing.T) {
			c, base := startPlugin(t, staging)
			ctx := t.Context()
			capability := mountCap(csi.VolumeCapability_AccessMode_SINGLE_NODE_WRITER)
			req := &csi.CreateVolumeRequest{
				Name:               "vol-1",
				CapacityRange:      &csi.CapacityRange{RequiredBytes: 1 << 20},
				VolumeCapabilities: []*csi.VolumeCapability{capability},
			}
			created, err := c.ctrl.CreateVolume(ctx, req)
			if err != nil {
				t.Fatal(err)
			}
			if created.GetVolume().GetVolumeId() != "vol-1" || created.GetVolume().GetCapacityBytes() != 1<<20 {
				t.Fatalf("CreateVolume = %v", created)
			}
			if _, err := c.ctrl.CreateVolume(ctx, req); err != nil {
				t.Fatalf("CreateVolume again (a retry) = %v, want success", err)
			}
			if fi, err := os.Stat(filepath.Join(base, "vol-1")); err != nil || !fi.IsDir() {
				t.Fatalf("volume directory: %v, %v", fi, err)
			}
			valid, err := c.ctrl.ValidateVolumeCapabilities(ctx, &csi.ValidateVolumeCapabilitiesRequest{
				VolumeId: "vol-1", VolumeCapabilities: []*csi.VolumeCapability{capability},
			})
			if err != nil || valid.GetConfirmed() == nil {
				t.Fatalf("ValidateVolumeCapabilities = %v, %v", valid, err)
			}

			mounts := t.TempDir()
			staged := filepath.Join(mounts, "staging", "vol-1")
			target := filepath.Join(mounts, "per-alloc", "a1", "vol-1")
			unmountOnCleanup(t, target, staged)
			if staging {
				if _, err := c.node.NodeStageVolume(ctx, &csi.NodeStageVolumeRequest{
					VolumeId: "vol-1", StagingTargetPath: staged, VolumeCapability: capability,
				}); err != nil {
					t.Fatal(err)
				}
			}
			pub := &csi.NodePublishVolumeRequest{VolumeId: "vol-1", TargetPath: target, VolumeCapability: capability}
			if staging {
				pub.StagingTargetPath = staged
			}
			if _, err := c.node.NodePublishVolume(ctx, pub); err != nil {
				t.Fatal(err)
			}
			if _, err := c.node.NodePublishVolume(ctx, pub); err != nil {
				t.Fatalf("NodePublishVolume again (a retry) = %v, want success", err)
			}
			if err := os.WriteFile(filepath.Join(target, "hello"), []byte("from the task"), 0o644); err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(filepath.Join(base, "vol-1", "hello"))
			if err != nil || string(got) != "from the task" {
				t.Fatalf("file in the volume's directory = %q, %v; want what was written through the mount", got, err)
			}

			if _, err := c.node.NodeUnpublishVolume(ctx, &csi.NodeUnpublishVolumeRequest{VolumeId: "vol-1", TargetPath: target}); err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(target); !os.IsNotExist(err) {
				t.Fatalf("target after unpublish: %v, want it removed", err)
			}
			if _, err := c.node.NodeUnpublishVolume(ctx, &csi.NodeUnpublishVolumeRequest{VolumeId: "vol-1", TargetPath: target}); err != nil {
				t.Fatalf("NodeUnpublishVolume again = %v, want success", err)
			}
			if staging {
				if _, err := c.node.NodeUnstageVolume(ctx, &csi.NodeUnstageVolumeRequest{VolumeId: "vol-1", StagingTargetPath: staged}); err != nil {
					t.Fatal(err)
				}
				if m, _ := isMountPoint(staged); m {
					t.Fatal("staging path still mounted after unstage")
				}
			}

			if _, err := c.ctrl.DeleteVolume(ctx, &csi.DeleteVolumeRequest{VolumeId: "vol-1"}); err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(filepath.Join(base, "vol-1")); !os.IsNotExist(err) {
				t.Fatalf("volume directory after delete: %v, want it gone", err)
			}
			if _, err := c.ctrl.DeleteVolume(ctx, &csi.DeleteVolumeRequest{VolumeId: "vol-1"}); err != nil {
				t.Fatalf("DeleteVolume again = %v, want success", err)
			}
		})
	}
}

// TestPublish_afterInterleavedUnstage: Nomad can unstage a volume for the
// allocation leaving it after the next allocation staged it and before
// that one publishes; the publish must still reach the volume's data.
func TestPublish_afterInterleavedUnstage(t *testing.T) {
	needRoot(t)
	c, base := startPlugin(t, true)
	ctx := t.Context()
	capability := mountCap(csi.VolumeCapability_AccessMode_SINGLE_NODE_WRITER)
	if _, err := c.ctrl.CreateVolume(ctx, &csi.CreateVolumeRequest{Name: "vol-1", VolumeCapabilities: []*csi.VolumeCapability{capability}}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(base, "vol-1", "index"), []byte("0 1"), 0o644); err != nil {
		t.Fatal(err)
	}
	mounts := t.TempDir()
	staged := filepath.Join(mounts, "staging", "vol-1")
	target := filepath.Join(mounts, "per-alloc", "a2", "vol-1")
	unmountOnCleanup(t, target, staged)
	stage := &csi.NodeStageVolumeRequest{VolumeId: "vol-1", StagingTargetPath: staged, VolumeCapability: capability}
	// The leaving allocation's stage, the arriving one's (a no-op), then the
	// leaving one's unstage.
	for range 2 {
		if _, err := c.node.NodeStageVolume(ctx, stage); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.node.NodeUnstageVolume(ctx, &csi.NodeUnstageVolumeRequest{VolumeId: "vol-1", StagingTargetPath: staged}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.node.NodePublishVolume(ctx, &csi.NodePublishVolumeRequest{
		VolumeId: "vol-1", StagingTargetPath: staged, TargetPath: target, VolumeCapability: capability,
	}); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(target, "index"))
	if err != nil || string(got) != "0 1" {
		t.Fatalf("file through the published target = %q, %v; want the volume's \"0 1\"", got, err)
	}
}

func TestPublish_readOnly(t *testing.T) {
	needRoot(t)
	c, _ := startPlugin(t, false)
	ctx := t.Context()
	capability := mountCap(csi.VolumeCapability_AccessMode_SINGLE_NODE_READER_ONLY)
	if _, err := c.ctrl.CreateVolume(ctx, &csi.CreateVolumeRequest{Name: "ro", VolumeCapabilities: []*csi.VolumeCapability{capability}}); err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(t.TempDir(), "ro")
	unmountOnCleanup(t, target)
	if _, err := c.node.NodePublishVolume(ctx, &csi.NodePublishVolumeRequest{
		VolumeId: "ro", TargetPath: target, VolumeCapability: capability, Readonly: true,
	}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(target, "x"), nil, 0o644); err == nil {
		t.Fatal("writing into a read-only publish succeeded")
	}
	if _, err := c.node.NodeUnpublishVolume(ctx, &csi.NodeUnpublishVolumeRequest{VolumeId: "ro", TargetPath: target}); err != nil {
		t.Fatal(err)
	}
}

func TestRejects(t *testing.T) {
	c, _ := startPlugin(t, false)
	ctx := t.Context()
	block := &csi.VolumeCapability{
		AccessType: &csi.VolumeCapability_Block{Block: &csi.VolumeCapability_BlockVolume{}},
		AccessMode: &csi.VolumeCapability_AccessMode{Mode: csi.VolumeCapability_AccessMode_SINGLE_NODE_WRITER},
	}
	multi := mountCap(csi.VolumeCapability_AccessMode_MULTI_NODE_MULTI_WRITER)
	for name, req := range map[string]*csi.CreateVolumeRequest{
		"escaping name":   {Name: "../etc", VolumeCapabilities: []*csi.VolumeCapability{mountCap(csi.VolumeCapability_AccessMode_SINGLE_NODE_WRITER)}},
		"block device":    {Name: "b", VolumeCapabilities: []*csi.VolumeCapability{block}},
		"multi-node":      {Name: "m", VolumeCapabilities: []*csi.VolumeCapability{multi}},
		"no capabilities": {Name: "n"},
	} {
		if _, err := c.ctrl.CreateVolume(ctx, req); status.Code(err) != codes.InvalidArgument {
			t.Errorf("%s: CreateVolume = %v, want InvalidArgument", name, err)
		}
	}
	_, err := c.node.NodePublishVolume(ctx, &csi.NodePublishVolumeRequest{
		VolumeId: "missing", TargetPath: filepath.Join(t.TempDir(), "t"),
		VolumeCapability: mountCap(csi.VolumeCapability_AccessMode_SINGLE_NODE_WRITER),
	})
	if status.Code(err) != codes.NotFound {
		t.Errorf("publishing a missing volume = %v, want NotFound", err)
	}
}

func TestUnescapeMountPath(t *testing.T) {
	if got := unescapeMountPath(`/a\040b\134c`); got != `/a b\c` {
		t.Fatalf("got %q", got)
	}
}

func TestValidID(t *testing.T) {
	for id, want := range map[string]bool{
		"vol-1": true, "data[0]": true, "db.v2[12]": true,
		"": false, ".": false, "..": false, "a/b": false, "../x": false, "a b": false,
	} {
		if got := validID(id); got != want {
			t.Errorf("validID(%q) = %v, want %v", id, got, want)
		}
	}
}
