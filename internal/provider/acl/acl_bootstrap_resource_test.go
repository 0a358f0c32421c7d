package acl

import (
	"crypto/rand"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/nomad/api"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
)

// TestAccACLBootstrap_secondProviderSameApply is the acceptance
// on a fresh, ACL-enabled agent that nobody bootstrapped: one apply
// bootstraps it with a secret from an ephemeral variable, and a second
// provider block with that secret as its token creates a node pool (which
// needs a management token) in the same apply. Nomad then knows the
// secret as a management token whose accessor is the one in state; the
// secret is nowhere in state, plan JSON, TRACE log or CLI output. Destroy
// removes the pool, forgets the bootstrap, and leaves its token (and so
// the cluster's only management token) in place.
func TestAccACLBootstrap_secondProviderSameApply(t *testing.T) {
	dir, logFile, env := acctest.StartSecretTraceTest(t)
	agent, _ := acctest.StartPrivateUnbootstrappedACLAgent(t, "berth-acc-bootstrap-"+acctest.RandomHex(3))
	secret := randomUUID(t)
	pool := "berth-acc-bootstrap-pool-" + acctest.RandomHex(3)
	// The private agent, with no token: it has none before the bootstrap.
	env = append(env, "NOMAD_ADDR="+agent.Addr, "NOMAD_TOKEN=", "TF_VAR_bootstrap_secret="+secret)
	acctest.WriteCLIConfig(t, dir, fmt.Sprintf(`
variable "bootstrap_secret" {
  type      = string
  ephemeral = true
}

resource "berth_acl_bootstrap" "this" {
  bootstrap_secret_wo = var.bootstrap_secret
}

provider "berth" {
  alias = "admin"
  token = var.bootstrap_secret
}

resource "berth_node_pool" "after_bootstrap" {
  provider    = berth.admin
  name        = %q
  description = "created with the bootstrap token in the same apply"
  depends_on  = [berth_acl_bootstrap.this]
}
`, pool))
	admin := func() *api.Client {
		c, err := api.NewClient(&api.Config{Address: agent.Addr, SecretID: secret})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	var outputs []string
	run := func(args ...string) string {
		t.Helper()
		out := acctest.RunTerraform(t, dir, env, args...)
		outputs = append(outputs, out)
		return out
	}
	run("apply", "-auto-approve", "-input=false", "-no-color")
	// Stop purges the agent's jobs through the API, which now needs it.
	agent.Token = secret
	self, _, err := admin().ACLTokens().Self(nil)
	if err != nil {
		t.Fatalf("Nomad does not take the bootstrap secret: %v", err)
	}
	if self.Type != "management" {
		t.Errorf("the bootstrap secret is a %q token; want management", self.Type)
	}
	if p, _, err := admin().NodePools().Info(pool, nil); err != nil || p.Description != "created with the bootstrap token in the same apply" {
		t.Errorf("node pool %s in Nomad: %+v, %v", pool, p, err)
	}
	shown := run("show", "-json")
	if !strings.Contains(shown, `"accessor_id":"`+self.AccessorID+`"`) {
		t.Errorf("state does not record the bootstrap token's accessor %s:\n%s", self.AccessorID, shown)
	}
	run("plan", "-out=tfplan", "-input=false", "-no-color", "-detailed-exitcode")
	planJSON := run("show", "-json", "tfplan")
	run("destroy", "-auto-approve", "-input=false", "-no-color")
	if _, _, err := admin().NodePools().Info(pool, nil); err == nil || !strings.Contains(err.Error(), "404") {
		t.Errorf("node pool %s after destroy: %v; want it deleted", pool, err)
	}
	if _, _, err := admin().ACLTokens().Self(nil); err != nil {
		t.Errorf("the bootstrap token after destroy: %v; want it kept (a cluster cannot be un-bootstrapped)", err)
	}
	stateFile, _ := os.ReadFile(filepath.Join(dir, "terraform.tfstate"))
	backup, _ := os.ReadFile(filepath.Join(dir, "terraform.tfstate.backup"))
	trace, err := os.ReadFile(logFile)
	if err != nil || !strings.Contains(string(trace), "/v1/acl/bootstrap") {
		t.Fatalf("the TRACE log (%v) has no bootstrap request; the test would prove nothing", err)
	}
	for what, text := range map[string]string{"terraform.tfstate": string(stateFile), "terraform.tfstate.backup": string(backup),
		"show -json": shown, "the plan's JSON": planJSON, "the TRACE log": string(trace), "the CLI output": strings.Join(outputs, "\n")} {
		if n := strings.Count(text, secret); n > 0 {
			t.Errorf("the bootstrap secret appears %d times in %s", n, what)
		}
	}
}

// TestAccACLBootstrap_badSecret: Nomad takes only a UUID; the plan says
// so at the attribute without repeating the value.
func TestAccACLBootstrap_badSecret(t *testing.T) {
	t.Parallel()
	acctest.ExpectPlanRejects(t, `
resource "berth_acl_bootstrap" "b" {
  bootstrap_secret_wo = "not-a-uuid-s3cr3t"
}
`, `Invalid bootstrap secret`)
}

func randomUUID(t *testing.T) string {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}
