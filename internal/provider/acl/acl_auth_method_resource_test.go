package acl

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"
	"github.com/hashicorp/terraform-plugin-testing/config"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/berthhq/terraform-provider-berth/internal/acctest"
)

const aclAuthMethodAddr = "berth_acl_auth_method.m"

// publicKeyPEM is a fresh ECDSA P-256 public key in PEM, for a JWT method
// that verifies signatures locally (no network).
func publicKeyPEM(t *testing.T) string {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalPKIXPublicKey(&k.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}))
}

// jwtMethodConfig is a JWT auth method verifying with key; audience and
// ttl vary between steps.
func jwtMethodConfig(name, key, audience, ttl string) string {
	return fmt.Sprintf(`
resource "berth_acl_auth_method" "m" {
  name           = %q
  type           = "JWT"
  token_locality = "local"
  max_token_ttl  = %q
  config = {
    jwt_validation_pub_keys = [%q]
    bound_audiences         = [%q]
    signing_algs            = ["ES256"]
    claim_mappings          = { team = "team" }
    list_claim_mappings     = { groups = "groups" }
    expiration_leeway       = "30s"
  }
}
`, name, ttl, key, audience)
}

func getAuthMethod(t *testing.T, name string) (*api.ACLAuthMethod, error) {
	m, _, err := acctest.Nomad(t).ACLAuthMethods().Get(name, nil)
	if err != nil {
		return nil, fmt.Errorf("reading ACL auth method %q from Nomad: %v", name, err)
	}
	return m, nil
}

// checkJWTMethod requires what Nomad holds for the method of jwtMethodConfig.
func checkJWTMethod(t *testing.T, name, key, audience string, ttl time.Duration) resource.TestCheckFunc {
	return func(*terraform.State) error {
		m, err := getAuthMethod(t, name)
		if err != nil {
			return err
		}
		c := m.Config
		if m.Type != "JWT" || m.TokenLocality != "local" || m.MaxTokenTTL != ttl || m.Default ||
			m.TokenNameFormat != "${auth_method_type}-${auth_method_name}" || c == nil ||
			!slices.Equal(c.JWTValidationPubKeys, []string{key}) || !slices.Equal(c.BoundAudiences, []string{audience}) ||
			!slices.Equal(c.SigningAlgs, []string{"ES256"}) || c.ClaimMappings["team"] != "team" ||
			c.ListClaimMappings["groups"] != "groups" || c.ExpirationLeeway != 30*time.Second {
			b, _ := json.Marshal(m)
			return fmt.Errorf("ACL auth method %q in Nomad is not as configured (audience %q, ttl %v): %s", name, audience, ttl, b)
		}
		return nil
	}
}

func checkAuthMethodGone(t *testing.T, name string) func(*terraform.State) error {
	return checkGoneFromNomad("ACL auth method", name, acctest.Nomad(t).ACLAuthMethods().Get)
}

// TestAccACLAuthMethod_jwtLifecycle: a JWT method with a static public key
// (no network); drift made through Nomad's API named in the plan and put
// back; imported to an empty plan; destroyed.
func TestAccACLAuthMethod_jwtLifecycle(t *testing.T) {
	acctest.PreCheck(t)
	name := "berth-acc-jwt-" + acctest.RandomHex(3)
	key := publicKeyPEM(t)
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy:             checkAuthMethodGone(t, name),
		Steps: []resource.TestStep{
			{
				Config: jwtMethodConfig(name, key, "berth", "1h"),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(aclAuthMethodAddr, tfjsonpath.New("token_name_format"),
						knownvalue.StringExact("${auth_method_type}-${auth_method_name}")),
				},
				Check: checkJWTMethod(t, name, key, "berth", time.Hour),
			},
			{
				PreConfig: func() {
					m, err := getAuthMethod(t, name)
					if err != nil {
						t.Fatal(err)
					}
					m.MaxTokenTTL = 2 * time.Hour
					m.Config.BoundAudiences = []string{"someone-else"}
					if _, _, err := acctest.Nomad(t).ACLAuthMethods().Update(m, nil); err != nil {
						t.Fatalf("changing ACL auth method %q through the API: %v", name, err)
					}
				},
				Config: jwtMethodConfig(name, key, "berth", "1h"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(aclAuthMethodAddr, plancheck.ResourceActionUpdate),
					plancheck.ExpectKnownValue(aclAuthMethodAddr, tfjsonpath.New("config").AtMapKey("bound_audiences"),
						knownvalue.ListExact([]knownvalue.Check{knownvalue.StringExact("berth")})),
					plancheck.ExpectKnownValue(aclAuthMethodAddr, tfjsonpath.New("max_token_ttl"), knownvalue.StringExact("1h")),
				}},
				Check: checkJWTMethod(t, name, key, "berth", time.Hour),
			},
			{
				Config: jwtMethodConfig(name, key, "berth-2", "3h"),
				Check:  checkJWTMethod(t, name, key, "berth-2", 3*time.Hour),
			},
			{ResourceName: aclAuthMethodAddr, ImportState: true, ImportStateId: name, ImportStateVerify: true},
		},
	})
}

// secretNowhere fails when secret is anywhere in the plan or state JSON.
type secretNowhere struct{ secret string }

func (s secretNowhere) CheckPlan(_ context.Context, req plancheck.CheckPlanRequest, resp *plancheck.CheckPlanResponse) {
	if b, _ := json.Marshal(req.Plan); strings.Contains(string(b), s.secret) {
		resp.Error = fmt.Errorf("the client secret is in the plan")
	}
}

func (s secretNowhere) CheckState(_ context.Context, req statecheck.CheckStateRequest, resp *statecheck.CheckStateResponse) {
	if b, _ := json.Marshal(req.State); strings.Contains(string(b), s.secret) {
		resp.Error = fmt.Errorf("the client secret is in the state")
	}
}

// oidcMethodConfig is an OIDC method; secretLine sets the client secret
// (from the ephemeral variable client_secret, which Terraform keeps out of
// the plan file, as a real configuration would).
func oidcMethodConfig(name, secretLine string) string {
	return fmt.Sprintf(`
variable "client_secret" {
  type      = string
  ephemeral = true
}

resource "berth_acl_auth_method" "m" {
  name           = %q
  type           = "OIDC"
  token_locality = "global"
  max_token_ttl  = "30m"
  config = {
    oidc_discovery_url    = "https://idp.example.com"
    oidc_client_id        = "berth"
    allowed_redirect_uris = ["http://localhost:4649/oidc/callback"]
    oidc_scopes           = ["groups"]
    oidc_enable_pkce      = true
    %s
  }
}
`, name, secretLine)
}

// checkSecretHeld requires that Nomad holds a client secret (it answers
// "redacted" for one) without ever giving it back.
func checkSecretHeld(t *testing.T, name, secret string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		m, err := getAuthMethod(t, name)
		if err != nil {
			return err
		}
		if m.Config.OIDCClientSecret == secret || m.Config.OIDCClientSecret == "" {
			return fmt.Errorf("Nomad answered client secret %q; want it held and redacted", m.Config.OIDCClientSecret)
		}
		return nil
	}
}

// TestAccACLAuthMethod_oidcClientSecretWriteOnly: the OIDC client secret
// reaches Nomad and neither plan nor state; a configuration that drops it
// is refused at apply (Nomad would drop the secret) with Nomad untouched;
// a new version sends it again.
func TestAccACLAuthMethod_oidcClientSecretWriteOnly(t *testing.T) {
	acctest.PreCheck(t)
	name := "berth-acc-oidc-" + acctest.RandomHex(3)
	secret := "berth-secret-" + acctest.RandomHex(8)
	with := func(version int) string {
		return oidcMethodConfig(name, fmt.Sprintf("oidc_client_secret_wo = var.client_secret\n    oidc_client_secret_wo_version = %d", version))
	}
	nowhere := secretNowhere{secret}
	vars := config.Variables{"client_secret": config.StringVariable(secret)}
	unchanged := checkUnchanged("ACL auth method "+name, func() (uint64, error) {
		m, err := getAuthMethod(t, name)
		if err != nil {
			return 0, err
		}
		return m.ModifyIndex, nil
	})
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProtoV6ProviderFactories,
		CheckDestroy:             checkAuthMethodGone(t, name),
		Steps: []resource.TestStep{
			{
				Config:            with(1),
				ConfigVariables:   vars,
				ConfigPlanChecks:  resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{nowhere}},
				ConfigStateChecks: []statecheck.StateCheck{nowhere},
				Check:             resource.ComposeTestCheckFunc(checkSecretHeld(t, name, secret), unchanged),
			},
			{
				Config:          oidcMethodConfig(name, "oidc_client_secret_wo_version = 2"),
				ConfigVariables: vars,
				ExpectError:     regexp.MustCompile(`(?s)The client secret would be removed.*oidc_client_secret_wo`),
			},
			{
				// The refused update wrote nothing.
				PreConfig: func() {
					if err := resource.ComposeTestCheckFunc(checkSecretHeld(t, name, secret), unchanged)(nil); err != nil {
						t.Fatal(err)
					}
				},
				Config:          with(2),
				ConfigVariables: vars,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(aclAuthMethodAddr, plancheck.ResourceActionUpdate), nowhere,
				}},
				ConfigStateChecks: []statecheck.StateCheck{nowhere},
				Check:             checkSecretHeld(t, name, secret),
			},
			{Config: with(2), ConfigVariables: vars, PlanOnly: true},
		},
	})
}

// TestAccACLAuthMethod_badInputRefusedAtPlan: what Nomad requires of an
// OIDC or JWT method is refused at plan, one error at the attribute.
func TestAccACLAuthMethod_badInputRefusedAtPlan(t *testing.T) {
	acctest.PreCheck(t)
	t.Parallel()
	for _, c := range []refusal{
		{name: "jwt without keys", path: "config.jwt_validation_pub_keys", summary: "Incomplete auth method configuration",
			detail: []string{"jwt_validation_pub_keys, jwks_url or oidc_discovery_url"},
			config: `type = "JWT"
  config = { bound_audiences = ["x"] }`},
		{name: "oidc without client id", path: "config.oidc_client_id", summary: "Incomplete auth method configuration",
			detail: []string{"needs oidc_client_id"},
			config: `type = "OIDC"
  config = { oidc_discovery_url = "https://idp.example.com" }`},
	} {
		t.Run(strings.ReplaceAll(c.name, " ", "_"), func(t *testing.T) {
			t.Parallel()
			name := "berth-acc-method-bad-" + acctest.RandomHex(3)
			c.config = fmt.Sprintf("resource \"berth_acl_auth_method\" \"m\" {\n  name = %q\n  token_locality = \"local\"\n  max_token_ttl = \"1h\"\n  %s\n}\n", name, c.config)
			requireRefusedAtPlan(t, c, func() error { return checkAuthMethodGone(t, name)(nil) })
		})
	}
}
