package acctest

import (
	"path/filepath"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/tfversion"
)

// The secret tests drive the terraform CLI at TRACE and search every
// output for their secrets; they run in parallel and need Terraform 1.11
// (write-only attributes, ephemeral variables).

// StartSecretTraceTest starts such a test: a working directory and the
// environment to run the CLI there (see TraceCLIEnv).
func StartSecretTraceTest(t *testing.T) (dir, logFile string, env []string) {
	t.Helper()
	t.Parallel()
	PreCheck(t)
	SkipBelowTerraform(t, tfversion.Version1_11_0)
	return TraceCLIEnv(t)
}

// CLIProviderRequirement is the terraform block of a configuration the
// CLI runs against the provider binary (dev_overrides).
const CLIProviderRequirement = `
terraform {
  required_providers {
    berth = { source = "berthhq/berth" }
  }
}
`

// WriteCLIConfig writes main.tf in dir: the provider requirement, then
// body.
func WriteCLIConfig(t *testing.T, dir, body string) {
	t.Helper()
	WriteFile(t, filepath.Join(dir, "main.tf"), CLIProviderRequirement+body)
}
