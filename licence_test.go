package main

import (
	"os/exec"
	"strings"
	"testing"
)

// The provider links Nomad's API client (github.com/hashicorp/nomad/api,
// MPL-2.0) and nothing else of Nomad: the rest of the Nomad module is
// BUSL-1.1 since 1.7.0. The lint rule nomad-api-only refuses the import;
// this is the same promise read off what the binary links, as `go
// version -m` would list it.
func TestBinaryLinksOnlyNomadsAPIModule(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", "{{with .Module}}{{.Path}}{{end}}", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	if bad := nomadModulesBesidesAPI(strings.Fields(string(out))); len(bad) > 0 {
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
