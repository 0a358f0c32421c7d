package devagent

import (
	"strings"
	"testing"
)

// Every agent names Vault (enabled, with the default identity Nomad 1.10
// needs to accept a task's vault block) and Consul, both at an address
// where nothing listens, and nothing is advertised to or joined through
// Consul.
func TestRenderConfigNamesVaultAndConsul(t *testing.T) {
	for _, c := range []agentConfig{
		{Name: "a", Datacenter: "dc1", DataDir: "/d", HTTPPort: 1, RPCPort: 2, SerfPort: 3},
		{Name: "s", Datacenter: "dc1", DataDir: "/d", HTTPPort: 1, RPCPort: 2, SerfPort: 3, ServerOnly: true},
		{Name: "c", Datacenter: "dc1", DataDir: "/d", HTTPPort: 1, RPCPort: 2, SerfPort: 3, Servers: []string{"127.0.0.1:2"}},
	} {
		got := renderConfig(c)
		for _, w := range []string{
			"vault {\n  enabled = true\n  address = \"http://127.0.0.1:1\"\n  default_identity {\n    aud = [\"vault.io\"]\n",
			"consul {\n  address          = \"127.0.0.1:1\"\n  auto_advertise   = false\n  server_auto_join = false\n  client_auto_join = false\n}",
		} {
			if !strings.Contains(got, w) {
				t.Errorf("%s: config lacks %q:\n%s", c.Name, w, got)
			}
		}
		for _, bad := range []string{"service_identity", "task_identity"} {
			if strings.Contains(got, bad) {
				t.Errorf("%s: config gives Consul workload identities (%q), which every test job's services would get:\n%s", c.Name, bad, got)
			}
		}
	}
}
