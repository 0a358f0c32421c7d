package acctest

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/hashicorp/go-version"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"
)

// SkipBelowTerraform skips a test that drives the CLI itself when the CLI
// is older than minimum (resource.Test does this with TerraformVersionChecks).
func SkipBelowTerraform(t *testing.T, minimum *version.Version) {
	t.Helper()
	bin := os.Getenv("TF_ACC_TERRAFORM_PATH")
	if bin == "" {
		bin = "terraform"
	}
	raw, err := exec.Command(bin, "version", "-json").Output()
	if err != nil {
		t.Fatalf("terraform version: %v", err)
	}
	var v struct {
		Version string `json:"terraform_version"`
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("terraform version -json: %v", err)
	}
	got, err := version.NewVersion(v.Version)
	if err != nil {
		t.Fatal(err)
	}
	var resp tfversion.CheckTerraformVersionResponse
	tfversion.SkipBelow(minimum).CheckTerraformVersion(context.Background(), tfversion.CheckTerraformVersionRequest{TerraformVersion: got}, &resp)
	if resp.Skip != "" {
		t.Skip(resp.Skip)
	}
	if resp.Error != nil {
		t.Fatal(resp.Error)
	}
}

// TraceCLIEnv is a working directory and the environment to run the
// terraform CLI there against the provider binary (dev_overrides) and this
// test's Nomad, logging at TRACE to logFile: the secret tests search every
// output for their secrets.
func TraceCLIEnv(t *testing.T) (dir, logFile string, env []string) {
	t.Helper()
	bin := BuildProviderBinary(t)
	dir = t.TempDir()
	logFile = filepath.Join(dir, "trace.log")
	env = append(CleanEnv(), "NOMAD_ADDR="+os.Getenv("NOMAD_ADDR"), "NOMAD_TOKEN="+os.Getenv("NOMAD_TOKEN"),
		"TF_CLI_CONFIG_FILE="+DevOverridesConfig(t, dir, filepath.Dir(bin)), "TF_IN_AUTOMATION=1",
		"TF_LOG=TRACE", "TF_LOG_PATH="+logFile)
	return dir, logFile, env
}
