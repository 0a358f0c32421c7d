package provider_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/nomad/api"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
)

// TestAccProvider_importIDNeverLogged: a token's secret pasted as the
// import ID of berth_acl_token (which takes the accessor ID) is refused,
// and neither the CLI's output nor any line berth's provider logged at
// TF_LOG=TRACE holds it; nor, on an import by the accessor ID, the
// accessor. Run against the TLS + ACL agent with the real terraform CLI.
// (Terraform's own "Preparing import... [id=...]" line is not berth's.)
func TestAccProvider_importIDNeverLogged(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	s := sharedSecureAgent(t)
	bin := acctest.BuildProviderBinary(t)
	c, err := s.agent.Client()
	if err != nil {
		t.Fatal(err)
	}
	tok, _, err := c.ACLTokens().Create(&api.ACLToken{Name: "berth-acc-import-masked-" + acctest.RandomHex(3), Type: "management"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = c.ACLTokens().Delete(tok.AccessorID, nil) })

	for _, tc := range []struct {
		name, id string
		wantOK   bool
	}{{"secret pasted", tok.SecretID, false}, {"accessor", tok.AccessorID, true}} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			caFile := filepath.Join(dir, "ca.pem")
			acctest.WriteFile(t, caFile, s.caPEM)
			acctest.WriteFile(t, filepath.Join(dir, "main.tf"), fmt.Sprintf(`
terraform {
  required_providers {
    berth = { source = "berthhq/berth" }
  }
}
provider "berth" {
  address = %q
  ca_file = %q
  token   = %q
}
import {
  to = berth_acl_token.t
  id = %q
}
resource "berth_acl_token" "t" {
  name = %q
  type = "management"
}
`, s.agent.Addr, caFile, s.agent.Token, tc.id, tok.Name))
			logFile := filepath.Join(dir, "trace.log")
			env := append(acctest.CleanEnv(), "TF_LOG=TRACE", "TF_LOG_PATH="+logFile,
				"TF_CLI_CONFIG_FILE="+acctest.DevOverridesConfig(t, dir, filepath.Dir(bin)), "TF_IN_AUTOMATION=1")
			out, err := acctest.RunTerraformResult(dir, env, "plan", "-input=false", "-no-color")
			if (err == nil) != tc.wantOK {
				t.Fatalf("terraform plan: error %v, want success %v:\n%s", err, tc.wantOK, out)
			}
			if !tc.wantOK && !strings.Contains(out, "ACL token not found") {
				t.Errorf("the import was not refused as not found:\n%s", out)
			}
			// Terraform itself echoes the ID ("Preparing import... [id=...]"),
			// out of berth's hands; the rest, diagnostics included, must not.
			// (An accessor imported is in state: the plan shows it.)
			for _, line := range strings.Split(out, "\n") {
				if tc.wantOK {
					break
				}
				if strings.Contains(line, tc.id) && !strings.Contains(line, "Preparing import... [id="+tc.id+"]") {
					t.Errorf("terraform's output holds the import ID: %s", line)
				}
			}
			logBytes, err := os.ReadFile(logFile)
			if err != nil {
				t.Fatal(err)
			}
			var provider [][]byte // the lines berth's provider logged
			for _, line := range bytes.Split(logBytes, []byte("\n")) {
				if bytes.Contains(line, []byte("provider.terraform-provider-berth")) {
					provider = append(provider, line)
				}
			}
			if !bytes.Contains(bytes.Join(provider, nil), []byte("/v1/acl/token/***")) {
				t.Fatalf("the provider logged no request for the token; the test would prove nothing (%d lines)", len(provider))
			}
			for _, line := range provider {
				if bytes.Contains(line, []byte(tc.id)) {
					t.Errorf("the provider logged the import ID: %s", line)
				}
			}
		})
	}
}
