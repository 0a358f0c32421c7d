# Single sign-on through an OIDC provider. The client secret comes from an
# ephemeral variable and is written to Nomad only: it is in neither the
# plan nor the state. Bump the version to send a new secret.
variable "oidc_client_secret" {
  type      = string
  ephemeral = true
}

resource "berth_acl_auth_method" "sso" {
  name           = "sso"
  type           = "OIDC"
  token_locality = "global"
  max_token_ttl  = "8h"
  default        = true
  config = {
    oidc_discovery_url            = "https://idp.example.com/realms/ops"
    oidc_client_id                = "nomad"
    oidc_client_secret_wo         = var.oidc_client_secret
    oidc_client_secret_wo_version = 1
    oidc_scopes                   = ["groups"]
    allowed_redirect_uris         = ["https://nomad.example.com:4646/ui/settings/tokens", "http://localhost:4649/oidc/callback"]
    list_claim_mappings           = { groups = "groups" }
  }
}

# Machine logins with JWTs verified against a static public key.
resource "berth_acl_auth_method" "ci" {
  name           = "ci"
  type           = "JWT"
  token_locality = "local"
  max_token_ttl  = "15m"
  config = {
    jwt_validation_pub_keys = [file("${path.module}/ci-signing-key.pub.pem")]
    bound_audiences         = ["nomad"]
    signing_algs            = ["ES256"]
    claim_mappings          = { repository = "repository" }
  }
}
