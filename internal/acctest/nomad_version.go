package acctest

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/berthhq/terraform-provider-berth/internal/nomadclient"
)

// The main suite runs on the oldest Nomad berth supports; the
// compatibility line (scripts/testacc-compat.sh) runs the tests named
// NewerNomad on the newest the module proxy serves. A test of what only
// one side has skips on the other, and the line that should run it fails
// when it skips there.

// AgentVersion is the test agent's Nomad version ("1.10.5").
func AgentVersion(t *testing.T) string {
	t.Helper()
	self, err := Nomad(t).Agent().Self()
	if err != nil {
		t.Fatal(err)
	}
	v, _ := self.Config["Version"].(map[string]any)
	version, _ := v["Version"].(string)
	if version == "" {
		t.Fatalf("the agent reports no version: %v", self.Config["Version"])
	}
	return version
}

// AgentAtLeast reports whether the test agent runs Nomad want or later.
func AgentAtLeast(t *testing.T, want string) bool {
	t.Helper()
	return VersionAtLeast(AgentVersion(t), want)
}

// NeedNewerNomad skips on an agent older than Nomad 1.11: the test runs on
// the compatibility line, which fails if it skips there.
func NeedNewerNomad(t *testing.T) {
	t.Helper()
	PreCheck(t)
	if !AgentAtLeast(t, "1.11.0") {
		t.Skipf("needs Nomad 1.11 or later (the agent runs %s): runs on the compatibility line, make testacc-compat", AgentVersion(t))
	}
}

// VersionAtLeast compares two Nomad versions by major, minor and patch
// (a pre-release suffix is ignored).
func VersionAtLeast(have, want string) bool {
	parts := func(v string) []int {
		v, _, _ = strings.Cut(strings.TrimPrefix(v, "v"), "-")
		var out []int
		for _, p := range strings.Split(v, ".") {
			n, _ := strconv.Atoi(p)
			out = append(out, n)
		}
		return append(out, 0, 0, 0)[:3]
	}
	h, w := parts(have), parts(want)
	for i := range 3 {
		if h[i] != w[i] {
			return h[i] > w[i]
		}
	}
	return true
}

// AnswerVersion wraps a fake Nomad's handler so that it answers the
// version read every berth client makes before its first request (GET
// /v1/agent/self) as the oldest supported Nomad, and passes the rest on.
func AnswerVersion(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && r.URL.Path == "/v1/agent/self" {
			fmt.Fprintf(w, `{"config":{"Version":{"Version":%q}}}`, nomadclient.OldestSupportedNomad)
			return
		}
		h.ServeHTTP(w, r)
	})
}
