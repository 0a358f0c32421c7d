package acctest

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"testing"
	"time"
)

// TerraformOutput runs terraform and returns its combined output and error.
func TerraformOutput(dir string, env []string, args ...string) (string, error) {
	tf := os.Getenv("TF_ACC_TERRAFORM_PATH")
	if tf == "" {
		tf = "terraform"
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, tf, args...)
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// OnlyStateResource returns the attribute values of the one resource in
// the state of the configuration in dir, as `terraform show -json` reads
// them without a refresh.
func OnlyStateResource(t *testing.T, dir string, env []string, what string) map[string]any {
	t.Helper()
	var shown struct {
		Values struct {
			RootModule struct {
				Resources []struct {
					Values map[string]any `json:"values"`
				} `json:"resources"`
			} `json:"root_module"`
		} `json:"values"`
	}
	if err := json.Unmarshal([]byte(RunTerraform(t, dir, env, "show", "-json")), &shown); err != nil {
		t.Fatal(err)
	}
	if len(shown.Values.RootModule.Resources) != 1 {
		t.Fatalf("state holds %d resources, want the %s", len(shown.Values.RootModule.Resources), what)
	}
	return shown.Values.RootModule.Resources[0].Values
}
