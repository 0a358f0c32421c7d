package acctest

import (
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// PeerProvider unpacks the other Nomad provider (hashicorp/nomad
// 2.6.1, from ../shared/tools beside the project) and points a Terraform
// CLI configuration's dev_overrides at it, so the CLI runs it without a
// registry. It skips, saying so, when the binary is not there (the tools
// are optional; CI has them).
func PeerProvider(t *testing.T) {
	t.Helper()
	// Test binaries run in their package's directory, three levels under
	// the project root (internal/provider/<family>).
	gz := filepath.Join("..", "..", "..", "..", "shared", "tools", "terraform-provider-nomad-2.6.1.gz")
	in, err := os.Open(gz)
	if err != nil {
		t.Skipf("NOT RUN: the hashicorp/nomad provider is not at %s (%v)", gz, err)
	}
	defer in.Close()
	zr, err := gzip.NewReader(in)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "terraform-provider-nomad")
	out, err := os.OpenFile(bin, os.O_CREATE|os.O_WRONLY, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, zr); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
	rc := filepath.Join(dir, "terraformrc")
	cfg := fmt.Sprintf("provider_installation {\n  dev_overrides {\n    \"hashicorp/nomad\" = %q\n  }\n  direct {}\n}\n", dir)
	if err := os.WriteFile(rc, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TF_CLI_CONFIG_FILE", rc)
}
