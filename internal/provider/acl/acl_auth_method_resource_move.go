package acl

import (
	"context"
	"encoding/json"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/berthhq/terraform-provider-berth/internal/aclpolicy"
	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
)

var _ resource.ResourceWithMoveState = &aclAuthMethodResource{}

// nomadACLAuthMethodState is what berth_acl_auth_method takes from the
// state of the other Nomad provider's nomad_acl_auth_method
// (hashicorp/nomad). Its oidc_client_secret, which that provider keeps in
// state, is not read: berth stores no secret.
type nomadACLAuthMethodState struct {
	Name            string `json:"name"`
	Type            string `json:"type"`
	TokenLocality   string `json:"token_locality"`
	MaxTokenTTL     string `json:"max_token_ttl"`
	TokenNameFormat string `json:"token_name_format"`
	Default         bool   `json:"default"`
	Config          []struct {
		OIDCDiscoveryURL     string            `json:"oidc_discovery_url"`
		OIDCClientID         string            `json:"oidc_client_id"`
		OIDCEnablePKCE       bool              `json:"oidc_enable_pkce"`
		OIDCDisableUserInfo  bool              `json:"oidc_disable_userinfo"`
		OIDCScopes           []string          `json:"oidc_scopes"`
		BoundAudiences       []string          `json:"bound_audiences"`
		BoundIssuer          []string          `json:"bound_issuer"`
		AllowedRedirectURIs  []string          `json:"allowed_redirect_uris"`
		DiscoveryCaPem       []string          `json:"discovery_ca_pem"`
		JWKSURL              string            `json:"jwks_url"`
		JWKSCACert           string            `json:"jwks_ca_cert"`
		JWTValidationPubKeys []string          `json:"jwt_validation_pub_keys"`
		SigningAlgs          []string          `json:"signing_algs"`
		ExpirationLeeway     string            `json:"expiration_leeway"`
		NotBeforeLeeway      string            `json:"not_before_leeway"`
		ClockSkewLeeway      string            `json:"clock_skew_leeway"`
		ClaimMappings        map[string]string `json:"claim_mappings"`
		ListClaimMappings    map[string]string `json:"list_claim_mappings"`
		VerboseLogging       bool              `json:"verbose_logging"`
		OIDCClientAssertion  []json.RawMessage `json:"oidc_client_assertion"`
	} `json:"config"`
}

// MoveState takes a nomad_acl_auth_method over without writing to Nomad.
// The state it writes is the method's settings; the refresh that follows
// reads them from Nomad. A method with an OIDC client assertion is
// refused (berth does not manage it). After the move, the configuration
// gives the client secret as config.oidc_client_secret_wo, without a
// version (setting one plans an update that sends the secret again).
func (r *aclAuthMethodResource) MoveState(context.Context) []resource.StateMover {
	return []resource.StateMover{shared.MoveFrom("nomad_acl_auth_method", func(ctx context.Context, src nomadACLAuthMethodState, diags *diag.Diagnostics) aclAuthMethodModel {
		var m aclAuthMethodModel
		a := aclpolicy.AuthMethod{Name: src.Name, Type: src.Type, TokenLocality: src.TokenLocality,
			TokenNameFormat: src.TokenNameFormat, Default: src.Default, MaxTokenTTL: parseDuration(src.MaxTokenTTL)}
		if a.TokenNameFormat == "" {
			a.TokenNameFormat = aclpolicy.DefaultTokenNameFormat
		}
		if len(src.Config) > 0 {
			c := src.Config[0]
			if len(c.OIDCClientAssertion) > 0 {
				a.Config.Unmanaged = []string{"oidc_client_assertion"}
				diags.AddError("Auth method settings berth does not manage", unmanagedDetail(&a))
				return m
			}
			a.Config = aclpolicy.AuthMethodConfig{OIDCDiscoveryURL: c.OIDCDiscoveryURL, OIDCClientID: c.OIDCClientID,
				OIDCEnablePKCE: c.OIDCEnablePKCE, OIDCDisableUserInfo: c.OIDCDisableUserInfo, OIDCScopes: c.OIDCScopes,
				BoundAudiences: c.BoundAudiences, BoundIssuer: c.BoundIssuer, AllowedRedirectURIs: c.AllowedRedirectURIs,
				DiscoveryCaPem: c.DiscoveryCaPem, JWKSURL: c.JWKSURL, JWKSCACert: c.JWKSCACert,
				JWTValidationPubKeys: c.JWTValidationPubKeys, SigningAlgs: c.SigningAlgs,
				ExpirationLeeway: parseDuration(c.ExpirationLeeway), NotBeforeLeeway: parseDuration(c.NotBeforeLeeway),
				ClockSkewLeeway: parseDuration(c.ClockSkewLeeway), ClaimMappings: c.ClaimMappings,
				ListClaimMappings: c.ListClaimMappings, VerboseLogging: c.VerboseLogging}
		}
		m.fromAuthMethod(ctx, &a, diags)
		m.Config.OIDCClientSecretVer = types.Int64Null()
		return m
	})}
}

// parseDuration reads a duration the other provider stored; what does not
// parse is left to the refresh, which reads Nomad's value.
func parseDuration(s string) time.Duration {
	d, _ := time.ParseDuration(s)
	return d
}
