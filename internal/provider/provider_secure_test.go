package provider_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
	"github.com/berthhq/terraform-provider-berth/internal/devagent"
)

// secureAgent is a second, separate Nomad cluster with TLS on HTTP and RPC
// and ACLs enabled, shared by the TLS and token tests.
type secureAgent struct {
	agent *devagent.Agent
	caPEM string
}

var (
	secureOnce sync.Once
	secure     *secureAgent
	secureErr  error
)

func sharedSecureAgent(t *testing.T) *secureAgent {
	t.Helper()
	secureOnce.Do(func() {
		// Shared by several tests, so not t.TempDir(); removed at exit.
		dir, err := os.MkdirTemp("", "berth-acc-tls-") //nolint:usetesting
		if err != nil {
			secureErr = err
			return
		}
		acctest.RemoveAtExit(dir)
		// The CA and server certificate are made here, with crypto/x509.
		files, caPEM, err := devagent.GenerateTLS(dir, nil)
		if err != nil {
			secureErr = err
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		a, err := devagent.Start(ctx, devagent.Options{Name: "berth-acc-tls", TLS: files, ACL: true, DieWithParent: true})
		if err != nil {
			secureErr = err
			return
		}
		acctest.TrackAgent(a)
		secure = &secureAgent{agent: a, caPEM: caPEM}
	})
	if secure == nil {
		t.Fatalf("starting the TLS + ACL agent: %v", secureErr)
	}
	return secure
}

func TestAccProvider_tls(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	s := sharedSecureAgent(t)
	if !strings.HasPrefix(s.agent.Addr, "https://") {
		t.Fatalf("TLS agent address %q is not https", s.agent.Addr)
	}
	cfg := func(extra string) string {
		return fmt.Sprintf(`
provider "berth" {
  address = %q
  token   = %q
  %s
}
data "berth_node" "n" { name = "berth-acc-tls" }
`, s.agent.Addr, s.agent.Token, extra)
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: cfg(fmt.Sprintf("ca_pem = %q", s.caPEM)),
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr("data.berth_node.n", "id", s.agent.NodeID),
					resource.TestCheckResourceAttr("data.berth_node.n", "status", "ready"),
				),
			},
			{
				// Without the CA the agent's certificate is not trusted.
				Config:      cfg(""),
				ExpectError: regexp.MustCompile(`(?s)TLS certificate of the Nomad agent at\s+https://.*not\s+trusted.*ca_file`),
			},
			{
				// With the CA but a wrong token, ACLs refuse the read.
				Config: strings.Replace(cfg(fmt.Sprintf("ca_pem = %q", s.caPEM)), s.agent.Token,
					"00000000-0000-0000-0000-000000000000", 1),
				ExpectError: regexp.MustCompile(`(?s)403|Permission denied|ACL token not found`),
			},
		},
	})
}

// TestAccProvider_tokenNeverLogged runs the real terraform CLI with the
// provider binary at TF_LOG=TRACE against the ACL agent: the read succeeds,
// so the token was sent, yet the token appears nowhere in the captured
// log, from the configuration or from NOMAD_TOKEN.
func TestAccProvider_tokenNeverLogged(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	s := sharedSecureAgent(t)
	bin := acctest.BuildProviderBinary(t)

	for _, viaEnv := range []bool{false, true} {
		t.Run(fmt.Sprintf("token_from_env=%v", viaEnv), func(t *testing.T) {
			dir := t.TempDir()
			caFile := filepath.Join(dir, "ca.pem")
			if err := os.WriteFile(caFile, []byte(s.caPEM), 0o600); err != nil {
				t.Fatal(err)
			}
			tokenLine := fmt.Sprintf("token = %q", s.agent.Token)
			if viaEnv {
				tokenLine = ""
			}
			acctest.WriteFile(t, filepath.Join(dir, "main.tf"), fmt.Sprintf(`
terraform {
  required_providers {
    berth = { source = "berthhq/berth" }
  }
}
provider "berth" {
  address = %q
  ca_file = %q
  %s
}
data "berth_node" "n" { name = "berth-acc-tls" }
output "status" { value = data.berth_node.n.status }
`, s.agent.Addr, caFile, tokenLine))
			logFile := filepath.Join(dir, "trace.log")
			env := append(acctest.CleanEnv(), "TF_LOG=TRACE", "TF_LOG_PATH="+logFile,
				"TF_CLI_CONFIG_FILE="+acctest.DevOverridesConfig(t, dir, filepath.Dir(bin)), "TF_IN_AUTOMATION=1")
			if viaEnv {
				env = append(env, "NOMAD_TOKEN="+s.agent.Token)
			}
			out := acctest.RunTerraform(t, dir, env, "apply", "-auto-approve", "-input=false", "-no-color")
			if !strings.Contains(out, `status = "ready"`) {
				t.Fatalf("apply did not read the node through the ACL agent:\n%s", out)
			}
			logBytes, err := os.ReadFile(logFile)
			if err != nil {
				t.Fatal(err)
			}
			all := append(logBytes, out...)
			if !bytes.Contains(logBytes, []byte("Nomad API request")) {
				t.Fatalf("the trace log has no provider debug lines; the test would prove nothing (%d bytes)", len(logBytes))
			}
			if n := bytes.Count(all, []byte(s.agent.Token)); n != 0 {
				t.Fatalf("the token appears %d times in the TF_LOG=TRACE output", n)
			}
		})
	}
}

// TestAccProvider_credentialsNeverLogged runs the real terraform CLI at
// TF_LOG=TRACE with credentials embedded in the address and a secret in
// "headers", through every outcome a user can meet: success against the
// ACL agent, an unreachable address, an untrusted certificate, a 403 and a
// request timeout. Neither secret appears in any log or output, and every
// failure names the redacted address (or says what Nomad refused).
func TestAccProvider_credentialsNeverLogged(t *testing.T) {
	t.Parallel()
	acctest.PreCheck(t)
	s := sharedSecureAgent(t)
	bin := acctest.BuildProviderBinary(t)
	const password = "addr-pw-9f3k2"
	const header = "hdr-secret-7q1z"
	withCreds := func(addr string) string { return strings.Replace(addr, "://", "://admin:"+password+"@", 1) }
	secureHost := strings.TrimPrefix(s.agent.Addr, "https://")
	silent := silentNomad(t)

	cases := []struct {
		name    string
		address string
		ca      bool
		token   string
		wantOK  bool
		want    string // regexp the output must match
	}{
		{name: "success", address: withCreds(s.agent.Addr), ca: true, token: s.agent.Token, wantOK: true, want: `status = "ready"`},
		{name: "unreachable", address: withCreds("http://127.0.0.1:1"), want: `(?s)cannot reach Nomad at\s+http://admin:xxxxx@127\.0\.0\.1:1`},
		{name: "untrusted certificate", address: withCreds(s.agent.Addr), token: s.agent.Token,
			want: `(?s)TLS certificate of the Nomad agent at\s+https://admin:xxxxx@` + regexp.QuoteMeta(secureHost)},
		{name: "forbidden", address: withCreds(s.agent.Addr), ca: true, token: "00000000-0000-0000-0000-000000000000",
			want: `(?s)403|Permission denied|ACL token not found`},
		{name: "timeout", address: withCreds(silent),
			want: `(?s)Nomad at\s+http://admin:xxxxx@` + regexp.QuoteMeta(strings.TrimPrefix(silent, "http://")) + `\s+did\s+not\s+answer`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			var extra []string
			if tc.ca {
				caFile := filepath.Join(dir, "ca.pem")
				acctest.WriteFile(t, caFile, s.caPEM)
				extra = append(extra, fmt.Sprintf("ca_file = %q", caFile))
			}
			if tc.token != "" {
				extra = append(extra, fmt.Sprintf("token = %q", tc.token))
			}
			acctest.WriteFile(t, filepath.Join(dir, "main.tf"), fmt.Sprintf(`
terraform {
  required_providers {
    berth = { source = "berthhq/berth" }
  }
}
provider "berth" {
  address         = %q
  request_timeout = "10s"
  headers         = { "X-Berth-Proxy-Auth" = %q }
  %s
}
data "berth_node" "n" { name = "berth-acc-tls" }
output "status" { value = data.berth_node.n.status }
`, tc.address, header, strings.Join(extra, "\n  ")))
			logFile := filepath.Join(dir, "trace.log")
			env := append(acctest.CleanEnv(), "TF_LOG=TRACE", "TF_LOG_PATH="+logFile,
				"TF_CLI_CONFIG_FILE="+acctest.DevOverridesConfig(t, dir, filepath.Dir(bin)), "TF_IN_AUTOMATION=1")
			out, err := acctest.RunTerraformResult(dir, env, "apply", "-auto-approve", "-input=false", "-no-color")
			if tc.wantOK != (err == nil) {
				t.Fatalf("apply error = %v, want success %v:\n%s", err, tc.wantOK, out)
			}
			if !regexp.MustCompile(tc.want).MatchString(out) {
				t.Fatalf("output does not match %q:\n%s", tc.want, out)
			}
			logBytes, err := os.ReadFile(logFile)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Contains(logBytes, []byte("Configured Nomad client")) {
				t.Fatalf("the trace log has no provider debug lines; the test would prove nothing (%d bytes)", len(logBytes))
			}
			all := append(logBytes, out...)
			for _, secret := range []string{password, header} {
				if n := bytes.Count(all, []byte(secret)); n != 0 {
					t.Errorf("%q appears %d times in the TF_LOG=TRACE log and output", secret, n)
				}
			}
		})
	}
}
