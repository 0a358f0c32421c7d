package main

import (
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The provider links Nomad's API client (github.com/hashicorp/nomad/api,
// MPL-2.0) and nothing else of Nomad: the rest of the Nomad module is
// BUSL-1.1 since 1.7.0. The lint rule nomad-api-only refuses the import;
// this reads the same promise off the built binary, as a license scanner
// does (`go version -m`).
func TestBinaryLinksOnlyNomadsAPIModule(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "terraform-provider-berth")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command("go", "version", "-m", bin).CombinedOutput()
	if err != nil {
		t.Fatalf("go version -m: %v\n%s", err, out)
	}
	var modules []string
	for _, line := range strings.Split(string(out), "\n") {
		// "\tdep\tpath\tversion\tsum" and "\t=>\tpath\tversion\tsum" (a replacement)
		if f := strings.Fields(line); len(f) >= 2 && (f[0] == "dep" || f[0] == "=>") {
			modules = append(modules, f[1])
		}
	}
	if !slices.Contains(modules, "github.com/hashicorp/nomad/api") {
		t.Fatalf("go version -m lists no github.com/hashicorp/nomad/api: the check reads nothing\n%s", out)
	}
	if bad := nomadModulesBesidesAPI(modules); len(bad) > 0 {
		t.Fatalf("the provider links %q: only github.com/hashicorp/nomad/api may be linked (the rest of Nomad is BUSL-1.1)", bad)
	}
}

func nomadModulesBesidesAPI(modules []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, m := range modules {
		if (m == "github.com/hashicorp/nomad" || strings.HasPrefix(m, "github.com/hashicorp/nomad/")) &&
			m != "github.com/hashicorp/nomad/api" && !seen[m] {
			seen[m] = true
			out = append(out, m)
		}
	}
	return out
}

func TestNomadModulesBesidesAPI(t *testing.T) {
	got := nomadModulesBesidesAPI([]string{"github.com/hashicorp/nomad/api", "github.com/hashicorp/nomad",
		"github.com/hashicorp/nomad-openapi", "github.com/hashicorp/nomad", "github.com/hashicorp/go-hclog"})
	if len(got) != 1 || got[0] != "github.com/hashicorp/nomad" {
		t.Fatalf("found %q", got)
	}
}
