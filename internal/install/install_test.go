// Package install tests berth the way users get it: a release zip found
// through a provider mirror, checked against the lock file, then used.
// scripts/mirror-test.sh builds the release with goreleaser and runs these
// tests with the binaries to use; without them the tests skip.
package install

import (
	"archive/zip"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"golang.org/x/mod/sumdb/dirhash"
)

// cli is one Terraform-compatible CLI under test and the registry host its
// provider addresses default to.
type cli struct {
	name, bin, host string
}

func clisUnderTest(t *testing.T) []cli {
	var out []cli
	if bin, err := exec.LookPath("terraform"); err == nil {
		out = append(out, cli{"terraform", bin, "registry.terraform.io"})
	}
	if bin := os.Getenv("TF_NEWER"); bin != "" {
		out = append(out, cli{"terraform (newer)", bin, "registry.terraform.io"})
	}
	if bin := os.Getenv("TOFU_BIN"); bin != "" {
		out = append(out, cli{"tofu", bin, "registry.opentofu.org"})
	}
	if len(out) == 0 {
		t.Fatal("no terraform on PATH and no TOFU_BIN: nothing to install with")
	}
	return out
}

// TestAccInstall_filesystemMirror installs the release built by
// scripts/mirror-test.sh from a filesystem mirror and nothing else, with
// each CLI: berth installs, the lock file's h1: hash is the zip's, a
// tampered zip fails init, and a plan of examples/quickstart works.
func TestAccInstall_filesystemMirror(t *testing.T) {
	binary, version := os.Getenv("BERTH_RELEASE_BINARY"), os.Getenv("BERTH_RELEASE_VERSION")
	if binary == "" || version == "" {
		t.Skip("run by scripts/mirror-test.sh (make test-install), which builds the release to install")
	}
	if os.Getenv("NOMAD_ADDR") == "" {
		t.Fatal("NOMAD_ADDR is unset: the quickstart plan needs the agent scripts/testacc.sh starts")
	}
	target := runtime.GOOS + "_" + runtime.GOARCH
	zipName := fmt.Sprintf("terraform-provider-berth_%s_%s.zip", version, target)
	good := filepath.Join(t.TempDir(), zipName)
	writeZip(t, good, binary, version, nil)
	wantH1, err := dirhash.HashZip(good, dirhash.Hash1)
	if err != nil {
		t.Fatal(err)
	}
	quickstart, err := os.ReadFile("../../examples/quickstart/main.tf")
	if err != nil {
		t.Fatal(err)
	}
	config := strings.Replace(string(quickstart), `source = "berthhq/berth"`,
		fmt.Sprintf("source  = \"berthhq/berth\"\n      version = %q", version), 1)

	for _, c := range clisUnderTest(t) {
		t.Run(c.name, func(t *testing.T) {
			mirror := t.TempDir()
			dir := filepath.Join(mirror, c.host, "berthhq", "berth")
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			placed := filepath.Join(dir, zipName)
			copyFile(t, good, placed)
			rc := filepath.Join(t.TempDir(), "cli.rc")
			writeFile(t, rc, fmt.Sprintf(`provider_installation {
  filesystem_mirror {
    path    = %q
    include = ["%s/berthhq/berth"]
  }
}
`, mirror, c.host))
			work := t.TempDir()
			writeFile(t, filepath.Join(work, "main.tf"), config)
			run := func(args ...string) (string, error) {
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
				defer cancel()
				cmd := exec.CommandContext(ctx, c.bin, args...)
				cmd.Dir = work
				cmd.Env = append(os.Environ(), "TF_CLI_CONFIG_FILE="+rc, "TF_IN_AUTOMATION=1", "CHECKPOINT_DISABLE=1",
					"TF_PLUGIN_CACHE_DIR=", "TF_REATTACH_PROVIDERS=")
				out, err := cmd.CombinedOutput()
				return string(out), err
			}

			if out, err := run("init", "-input=false", "-no-color"); err != nil {
				t.Fatalf("%s init from the mirror: %v\n%s", c.name, err, out)
			}
			lock, err := os.ReadFile(filepath.Join(work, ".terraform.lock.hcl"))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(lock), `"`+wantH1+`"`) || !strings.Contains(string(lock), `"`+version+`"`) {
				t.Fatalf("lock file does not record version %s with the zip's hash %s:\n%s", version, wantH1, lock)
			}
			if out, err := run("plan", "-input=false", "-no-color", "-lock=false"); err != nil || !regexp.MustCompile(`Plan: \d+ to add`).MatchString(out) {
				t.Fatalf("%s plan of the quickstart with the installed berth: %v\n%s", c.name, err, out)
			}

			// A zip that is not the one the lock file recorded must not install.
			writeZip(t, placed, binary, version, []byte("tampered"))
			if err := os.RemoveAll(filepath.Join(work, ".terraform")); err != nil {
				t.Fatal(err)
			}
			out, err := run("init", "-input=false", "-no-color")
			if err == nil {
				t.Fatalf("%s init accepted a tampered zip:\n%s", c.name, out)
			}
			if !regexp.MustCompile(`(?i)checksum|hash|does not match`).MatchString(out) {
				t.Fatalf("%s refused the tampered zip without naming a checksum mismatch:\n%s", c.name, out)
			}
			t.Logf("%s: installed %s from the mirror (%s); refused the tampered zip", c.name, version, wantH1)
		})
	}
}

// writeZip writes the release zip: the binary under the name the registry
// protocol expects, plus an extra file when tamper is set.
func writeZip(t *testing.T, path, binary, version string, tamper []byte) {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, err := zw.CreateHeader(&zip.FileHeader{Name: "terraform-provider-berth_v" + version, Method: zip.Deflate,
		ExternalAttrs: 0o755 << 16, CreatorVersion: 3 << 8})
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(binary)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := io.Copy(w, f); err != nil {
		t.Fatal(err)
	}
	if tamper != nil {
		extra, err := zw.Create("README")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := extra.Write(tamper); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	writeFile(t, path, buf.String())
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, to, string(b))
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
