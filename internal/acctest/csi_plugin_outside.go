package acctest

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"
)

// RunOutside registers the plugin's job through Nomad's API, outside any
// Terraform configuration, waits until the plugin is healthy, and purges
// the job when the test ends (after what the test's own destroy removed).
// For tests whose configuration must hold only the volume: identity and
// query tests, which rewrite or re-import the configuration.
func (p CSIPlugin) RunOutside(t *testing.T, nomad *api.Client) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	// Jobspec is written for a Terraform heredoc, where "$${" is "${".
	job, err := nomad.Jobs().ParseHCLOpts(&api.JobsParseRequest{JobHCL: strings.ReplaceAll(p.Jobspec(), "$${", "${")})
	if err != nil {
		t.Fatalf("parsing the CSI plugin's jobspec: %v", err)
	}
	if _, _, err := nomad.Jobs().Register(job, (&api.WriteOptions{}).WithContext(ctx)); err != nil {
		t.Fatalf("registering the CSI plugin's job: %v", err)
	}
	t.Cleanup(func() { PurgeOutsideJob(t, "", p.JobName) })
	p.WaitHealthy(t, nomad)
}

// MakeVolumeDir makes the directory the plugin serves as the volume
// externalID, with a file in it, as a volume that existed before Nomad
// knew it; it returns the file's path.
func (p CSIPlugin) MakeVolumeDir(t *testing.T, externalID string) string {
	t.Helper()
	dir := filepath.Join(p.BaseDir, externalID)
	if err := os.MkdirAll(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "kept.txt")
	if err := os.WriteFile(file, []byte("data that outlives the registration\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return file
}
