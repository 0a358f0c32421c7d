package acctest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"
)

// CSIPlugin is berth's test CSI plugin (internal/csiplugin) built for
// one test, and where its job keeps volumes.
type CSIPlugin struct {
	ID, JobName, Bin, BaseDir, StateDir string
	// NodeID is the node of the agent whose StateDir it is: the plugin
	// runs there (the suite has other client nodes, with other state
	// dirs), and so does the work that mounts its volumes.
	NodeID string
}

// NewCSIPlugin builds the plugin binary into a temporary directory.
// The client runs it with raw_exec, so the binary and the volumes' base
// directory are plain host paths.
func NewCSIPlugin(t *testing.T, nomad *api.Client) CSIPlugin {
	t.Helper()
	dir := t.TempDir()
	// Exec tasks run as nobody; they reach volumes through the bind mount,
	// but the mount source must be traversable.
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "berth-csi-test")
	out, err := exec.CommandContext(t.Context(), "go", "build", "-o", bin,
		"github.com/berthhq/terraform-provider-berth/internal/csiplugin/cmd/berth-csi-test").CombinedOutput()
	if err != nil {
		t.Fatalf("building the test CSI plugin: %v\n%s", err, out)
	}
	suffix := RandomHex(3)
	stateDir, nodeID := clientStateDir(t, nomad)
	return CSIPlugin{
		ID: "berth-acc-csi-" + suffix, JobName: "berth-acc-csi-plugin-" + suffix,
		Bin: bin, BaseDir: filepath.Join(dir, "volumes"), StateDir: stateDir, NodeID: nodeID,
	}
}

// clientStateDir is the state_dir (data_dir/client unless set) and node
// ID of the client in the agent the API answers from: Nomad keeps CSI
// plugin sockets and mounts under that directory.
func clientStateDir(t *testing.T, nomad *api.Client) (string, string) {
	t.Helper()
	self, err := nomad.Agent().Self()
	if err != nil {
		t.Fatalf("reading the agent's configuration: %v", err)
	}
	nodeID := self.Stats["client"]["node_id"]
	if nodeID == "" {
		t.Fatal("the agent the tests talk to runs no client")
	}
	if client, ok := self.Config["Client"].(map[string]any); ok {
		if dir, _ := client["StateDir"].(string); dir != "" {
			return dir, nodeID
		}
	}
	dataDir, _ := self.Config["DataDir"].(string)
	if dataDir == "" {
		t.Fatal("the agent reports no DataDir")
	}
	return filepath.Join(dataDir, "client"), nodeID
}

// Jobspec is a monolith plugin job, pinned to NodeID (written for a
// Terraform heredoc: "$${" is a literal "${"). Under raw_exec the task sees the host's
// filesystem: Nomad hands it the socket's host path in CSI_ENDPOINT (so
// mount_dir is unused), and stage_publish_base_dir must be the host
// directory Nomad keeps the plugin's mounts in, since the plugin is given
// paths under it to mount onto.
func (p CSIPlugin) Jobspec() string {
	return fmt.Sprintf(`
job %q {
  constraint {
    attribute = "$${node.unique.id}"
    value     = %q
  }
  group "plugin" {
    task "plugin" {
      driver = "raw_exec"
      config {
        command = %q
        args    = ["-base-dir", %q, "-staging"]
      }
      csi_plugin {
        id                     = %q
        type                   = "monolith"
        mount_dir              = "/csi"
        stage_publish_base_dir = %q
      }
      resources {
        cpu    = 20
        memory = 32
      }
    }
  }
}`, p.JobName, p.NodeID, p.Bin, p.BaseDir, p.ID, filepath.Join(p.StateDir, "csi", "monolith", p.ID))
}

// Config is a berth_job resource for the plugin.
func (p CSIPlugin) Config() string {
	return fmt.Sprintf(`
resource "berth_job" "csi_plugin" {
  jobspec = <<-EOT
%s
  EOT
}
`, p.Jobspec())
}

// WaitHealthy waits until Nomad reports a healthy controller and node for
// the plugin, the condition for creating and mounting its volumes.
func (p CSIPlugin) WaitHealthy(t *testing.T, nomad *api.Client) {
	t.Helper()
	WaitFor(t, "CSI plugin "+p.ID+" healthy", 90*time.Second, func() (bool, error) {
		plug, _, err := nomad.CSIPlugins().Info(p.ID, nil)
		if err != nil {
			return false, err
		}
		if plug.ControllersHealthy < 1 || plug.NodesHealthy < 1 {
			return false, fmt.Errorf("controllers healthy %d, nodes healthy %d", plug.ControllersHealthy, plug.NodesHealthy)
		}
		return true, nil
	})
}

// WaitGone waits until Nomad no longer lists a healthy instance of the
// plugin (its job is gone; Nomad drops the plugin once nothing serves it).
func (p CSIPlugin) WaitGone(t *testing.T, nomad *api.Client) {
	t.Helper()
	WaitFor(t, "CSI plugin "+p.ID+" gone", 90*time.Second, func() (bool, error) {
		plug, _, err := nomad.CSIPlugins().Info(p.ID, nil)
		if err != nil && strings.Contains(err.Error(), "404") {
			return true, nil
		}
		if err != nil {
			return false, err
		}
		return plug.ControllersHealthy == 0 && plug.NodesHealthy == 0, nil
	})
}

// NeedRootForCSI skips CSI tests where the Nomad client cannot mount: the
// test plugin bind-mounts, which needs root (the agent the tests start
// runs as the test's user).
func NeedRootForCSI(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("CSI acceptance tests need root: the test plugin bind-mounts volumes")
	}
}
