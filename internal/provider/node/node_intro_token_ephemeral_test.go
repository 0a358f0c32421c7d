package node_test

import (
	"context"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
	"github.com/berthhq/terraform-provider-berth/internal/jwks"
)

// introCarrierConfig opens a berth_node_intro_token with attrs and hands
// its ephemeral values to a berth_variable's write-only items at path, so
// the test can read in Nomad what the configuration received.
func introCarrierConfig(path, attrs string, version int) string {
	return fmt.Sprintf(`
ephemeral "berth_node_intro_token" "t" {
%[2]s
}

resource "berth_variable" "carrier" {
  path             = %[1]q
  items_wo_version = %[3]d
  items_wo = {
    jwt        = ephemeral.berth_node_intro_token.t.jwt
    expires_at = ephemeral.berth_node_intro_token.t.expires_at
    node_pool  = ephemeral.berth_node_intro_token.t.node_pool
  }
}
`, path, attrs, version)
}

// introClaims are the claims of a client introduction token, as Nomad
// 1.11 writes them.
type introClaims struct {
	NodeName string `json:"nomad_node_name"`
	NodePool string `json:"nomad_node_pool"`
	Subject  string `json:"sub"`
	IssuedAt int64  `json:"iat"`
	Expiry   int64  `json:"exp"`
}

// TestAccNodeIntroToken_basicNewerNomad opens a token for a named node in
// a named pool with a ttl, and proves in Nomad's terms what the
// configuration received: a JWT signed by one of the cluster's keys (its
// JWKS), whose claims name the node, the pool and the region, and expire
// ttl after they were issued, with expires_at the same instant. Then the
// defaults: no node name, pool default, Nomad's default TTL (5m); then a
// ttl beyond the servers' maximum, which Nomad shortens to 30m and berth
// warns of. The token is never in state.
func TestAccNodeIntroToken_basicNewerNomad(t *testing.T) {
	acctest.NeedNewerNomad(t)
	acctest.SkipBelowTerraform(t, tfversion.Version1_11_0)
	t.Parallel()
	suffix := acctest.RandomHex(3)
	path := "berth-acc/intro-" + suffix
	node, pool := "berth-intro-node-"+suffix, "berth-intro-"+suffix
	c := acctest.Nomad(t)
	t.Cleanup(func() { _, _ = c.Variables().Delete(path, nil) })
	region, err := c.Agent().Region()
	if err != nil {
		t.Fatal(err)
	}
	var seen []string // every token the steps carried, for the state check
	carried := func(wantNode, wantPool string, ttl time.Duration) resource.TestCheckFunc {
		return func(s *terraform.State) error {
			started := time.Now()
			v, _, err := c.Variables().Read(path, nil)
			if err != nil {
				return fmt.Errorf("reading the carrier Variable: %w", err)
			}
			token := v.Items["jwt"]
			if strings.Count(token, ".") != 2 {
				return fmt.Errorf("the carrier Variable holds no JWT (%d bytes)", len(token))
			}
			seen = append(seen, token)
			if err := verifyWithClusterKeys(t, token); err != nil {
				return err
			}
			cl, err := introPayload(token)
			if err != nil {
				return err
			}
			if cl.NodeName != wantNode || cl.NodePool != wantPool {
				return fmt.Errorf("the token names node %q in pool %q, want %q in %q", cl.NodeName, cl.NodePool, wantNode, wantPool)
			}
			if want := strings.Join([]string{"node-introduction", region, wantPool, wantNode, "default"}, ":"); cl.Subject != want {
				return fmt.Errorf("the token's subject is %q, want %q", cl.Subject, want)
			}
			if got := time.Duration(cl.Expiry-cl.IssuedAt) * time.Second; got != ttl {
				return fmt.Errorf("the token is valid for %s (iat %d, exp %d), want %s", got, cl.IssuedAt, cl.Expiry, ttl)
			}
			exp := time.Unix(cl.Expiry, 0).UTC()
			if exp.After(started.Add(ttl)) || exp.Before(started.Add(ttl-2*time.Minute)) {
				return fmt.Errorf("the token expires at %s, not within %s of now (%s)", exp, ttl, started.UTC())
			}
			if got := v.Items["expires_at"]; got != exp.Format(time.RFC3339) {
				return fmt.Errorf("expires_at = %q, the token's exp is %s", got, exp.Format(time.RFC3339))
			}
			if got := v.Items["node_pool"]; got != wantPool {
				return fmt.Errorf("node_pool = %q, want %q", got, wantPool)
			}
			t.Logf("a token of the cluster's keys for node %q in pool %q, subject %q, valid %s until %s",
				cl.NodeName, cl.NodePool, cl.Subject, ttl, v.Items["expires_at"])
			return nil
		}
	}
	notInState := func(s *terraform.State) error {
		for addr, r := range s.RootModule().Resources {
			for k, v := range r.Primary.Attributes {
				for _, tok := range seen {
					if strings.Contains(v, tok) {
						return fmt.Errorf("%s.%s holds the token", addr, k)
					}
				}
			}
		}
		return nil
	}
	opens := &openRecorder{}
	named := func(ttl string) string {
		return fmt.Sprintf("  node_name = %q\n  node_pool = %q\n  ttl       = %q", node, pool, ttl)
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: map[string]func() (tfprotov6.ProviderServer, error){
			"berth": func() (tfprotov6.ProviderServer, error) {
				s, err := acctest.NewServer()
				return &recordingOpens{ProviderServer: s, rec: opens}, err
			},
		},
		Steps: []resource.TestStep{
			{
				Config: introCarrierConfig(path, named("15m"), 1),
				Check: resource.ComposeAggregateTestCheckFunc(carried(node, pool, 15*time.Minute), notInState,
					func(*terraform.State) error { return opens.noWarnings() }),
			},
			{
				// Nomad's defaults: no node name, pool default, 5m.
				Config: introCarrierConfig(path, "", 2),
				Check:  resource.ComposeAggregateTestCheckFunc(carried("", "default", 5*time.Minute), notInState),
			},
			{
				// Beyond the servers' max_identity_ttl (30m by default):
				// Nomad shortens it without an error, berth warns at ttl.
				Config: introCarrierConfig(path, named("45m"), 3),
				Check: resource.ComposeAggregateTestCheckFunc(carried(node, pool, 30*time.Minute), notInState,
					func(*terraform.State) error {
						return opens.warned("ttl", "Token TTL shortened by Nomad", "valid for 30m0s")
					}),
			},
		},
	})
}

// recordingOpens passes every call to the provider and records the
// warnings OpenEphemeralResource returns.
type recordingOpens struct {
	tfprotov6.ProviderServer
	rec *openRecorder
}

type openRecorder struct {
	mu       sync.Mutex
	warnings []*tfprotov6.Diagnostic
}

func (s *recordingOpens) OpenEphemeralResource(ctx context.Context, req *tfprotov6.OpenEphemeralResourceRequest) (*tfprotov6.OpenEphemeralResourceResponse, error) {
	resp, err := s.ProviderServer.OpenEphemeralResource(ctx, req)
	if resp != nil {
		s.rec.mu.Lock()
		for _, d := range resp.Diagnostics {
			if d.Severity == tfprotov6.DiagnosticSeverityWarning {
				s.rec.warnings = append(s.rec.warnings, d)
			}
		}
		s.rec.mu.Unlock()
	}
	return resp, err
}

func (r *openRecorder) noWarnings() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, d := range r.warnings {
		return fmt.Errorf("open warned: %s: %s", d.Summary, d.Detail)
	}
	return nil
}

// warned: an open warned summary at attr, its detail holding detail.
func (r *openRecorder) warned(attr, summary, detail string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, d := range r.warnings {
		if d.Summary == summary && strings.Contains(d.Detail, detail) &&
			d.Attribute.String() == tftypes.NewAttributePath().WithAttributeName(attr).String() {
			return nil
		}
	}
	return fmt.Errorf("no open warned %q at %s with %q (%d warnings)", summary, attr, detail, len(r.warnings))
}

// TestAccNodeIntroToken_refusedByOlderNomad: on a Nomad older than 1.11
// the open fails naming berth_node_intro_token and both versions, and
// nothing is written.
func TestAccNodeIntroToken_refusedByOlderNomad(t *testing.T) {
	acctest.PreCheck(t)
	if acctest.AgentAtLeast(t, "1.11.0") {
		t.Skipf("the agent runs Nomad %s, which has client introduction tokens", acctest.AgentVersion(t))
	}
	acctest.SkipBelowTerraform(t, tfversion.Version1_11_0)
	t.Parallel()
	path := "berth-acc/intro-old-" + acctest.RandomHex(3)
	have := acctest.AgentVersion(t)
	words := func(s string) string { return strings.ReplaceAll(regexp.QuoteMeta(s), " ", `\s+`) }
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: introCarrierConfig(path, `  node_pool = "default"
  ttl       = "10m"`, 1),
			ExpectError: regexp.MustCompile(`(?s)Could not create the client introduction token.*` +
				words("berth_node_intro_token needs Nomad 1.11.0 or later") + `.*` + words("runs Nomad "+have)),
		}},
	})
	if v, _, err := acctest.Nomad(t).Variables().Read(path, nil); err == nil && v != nil {
		t.Errorf("the carrier Variable %s was written", path)
	}
}

// verifyWithClusterKeys checks token's signature against the cluster's
// JSON Web Key Set (/.well-known/jwks.json, read through internal/jwks):
// the key its header names must verify it. A copy with its payload
// changed must not, so the check is known to check.
func verifyWithClusterKeys(t *testing.T, token string) error {
	t.Helper()
	var raw json.RawMessage
	if _, err := acctest.Nomad(t).Raw().Query("/.well-known/jwks.json", &raw, nil); err != nil {
		return fmt.Errorf("reading the cluster's JWKS: %w", err)
	}
	keys, err := jwks.Parse(raw)
	if err != nil {
		return err
	}
	sig, err := jose.ParseSigned(token, []jose.SignatureAlgorithm{jose.RS256, jose.EdDSA, jose.ES256})
	if err != nil {
		return fmt.Errorf("the token is not a signed JWT: %w", err)
	}
	kid := sig.Signatures[0].Header.KeyID
	var pub any
	for _, k := range keys {
		if k.ID == kid {
			block, _ := pem.Decode([]byte(k.PEM))
			if block == nil {
				return fmt.Errorf("key %s: no PEM block", kid)
			}
			if pub, err = x509.ParsePKIXPublicKey(block.Bytes); err != nil {
				return fmt.Errorf("key %s: %w", kid, err)
			}
		}
	}
	if pub == nil {
		return fmt.Errorf("the token is signed with key %q, which the cluster's JWKS (%d keys) does not hold", kid, len(keys))
	}
	if _, err := sig.Verify(pub); err != nil {
		return fmt.Errorf("the cluster's key %s does not verify the token: %w", kid, err)
	}
	parts := strings.Split(token, ".")
	forged := parts[0] + "." + base64.RawURLEncoding.EncodeToString([]byte(`{"nomad_node_pool":"forged"}`)) + "." + parts[2]
	if fs, err := jose.ParseSigned(forged, []jose.SignatureAlgorithm{jose.RS256, jose.EdDSA, jose.ES256}); err == nil {
		if _, err := fs.Verify(pub); err == nil {
			return fmt.Errorf("a forged payload verifies: the signature check proves nothing")
		}
	}
	return nil
}

// introPayload decodes the token's claims (its signature is checked
// apart).
func introPayload(token string) (introClaims, error) {
	var cl introClaims
	parts := strings.Split(token, ".")
	raw, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		return cl, fmt.Errorf("the token's payload is not base64url: %w", err)
	}
	if err := json.Unmarshal(raw, &cl); err != nil {
		return cl, fmt.Errorf("the token's payload: %w", err)
	}
	return cl, nil
}
