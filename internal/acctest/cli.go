package acctest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

var (
	providerBinOnce sync.Once
	providerBin     string
	providerBinErr  error
)

// BuildProviderBinary builds the provider once per test binary, or takes
// the one make testacc built for all of them (BERTH_TEST_PROVIDER_BIN).
func BuildProviderBinary(t *testing.T) string {
	t.Helper()
	providerBinOnce.Do(func() {
		if bin := os.Getenv("BERTH_TEST_PROVIDER_BIN"); bin != "" {
			providerBin = bin
			return
		}
		// Shared by several tests, so not t.TempDir(); removed at exit.
		dir, err := os.MkdirTemp("", "berth-acc-bin-") //nolint:usetesting
		if err != nil {
			providerBinErr = err
			return
		}
		RemoveAtExit(dir)
		providerBin = filepath.Join(dir, "terraform-provider-berth")
		cmd := exec.Command("go", "build", "-o", providerBin, "github.com/berthhq/terraform-provider-berth")
		if out, err := cmd.CombinedOutput(); err != nil {
			providerBinErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if providerBinErr != nil {
		t.Fatal(providerBinErr)
	}
	return providerBin
}

// DevOverridesConfig writes a CLI config that loads the provider from dir
// instead of the registry.
func DevOverridesConfig(t *testing.T, workDir, binDir string) string {
	t.Helper()
	p := filepath.Join(workDir, "terraformrc")
	WriteFile(t, p, fmt.Sprintf(`
provider_installation {
  dev_overrides {
    "berthhq/berth" = %q
  }
  direct {}
}
`, binDir))
	return p
}

func RunTerraform(t *testing.T, dir string, env []string, args ...string) string {
	t.Helper()
	out, err := RunTerraformResult(dir, env, args...)
	if err != nil {
		t.Fatalf("terraform %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

// RunTerraformResult runs the terraform CLI and returns its combined
// output and error, for runs that are meant to fail.
func RunTerraformResult(dir string, env []string, args ...string) (string, error) {
	tf := os.Getenv("TF_ACC_TERRAFORM_PATH")
	if tf == "" {
		tf = "terraform"
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, tf, args...)
	cmd.Dir = dir
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// CleanEnv is the environment without Nomad or Terraform logging settings.
func CleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "NOMAD_") || strings.HasPrefix(kv, "TF_LOG") || strings.HasPrefix(kv, "TF_CLI_CONFIG_FILE=") {
			continue
		}
		env = append(env, kv)
	}
	return env
}

func WriteFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}
