package acl

import (
	"context"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timetypes/timetypes"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/berthhq/terraform-provider-berth/internal/aclpolicy"
	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
)

type aclAuthMethodModel struct {
	ID              types.String           `tfsdk:"id"`
	Name            types.String           `tfsdk:"name"`
	Type            types.String           `tfsdk:"type"`
	TokenLocality   types.String           `tfsdk:"token_locality"`
	MaxTokenTTL     timetypes.GoDuration   `tfsdk:"max_token_ttl"`
	TokenNameFormat types.String           `tfsdk:"token_name_format"`
	Default         types.Bool             `tfsdk:"default"`
	Config          *authMethodConfigModel `tfsdk:"config"`
}

type authMethodConfigModel struct {
	OIDCDiscoveryURL     types.String         `tfsdk:"oidc_discovery_url"`
	OIDCClientID         types.String         `tfsdk:"oidc_client_id"`
	OIDCClientSecretWO   types.String         `tfsdk:"oidc_client_secret_wo"`
	OIDCClientSecretVer  types.Int64          `tfsdk:"oidc_client_secret_wo_version"`
	OIDCEnablePKCE       types.Bool           `tfsdk:"oidc_enable_pkce"`
	OIDCDisableUserInfo  types.Bool           `tfsdk:"oidc_disable_userinfo"`
	OIDCScopes           types.List           `tfsdk:"oidc_scopes"`
	BoundAudiences       types.List           `tfsdk:"bound_audiences"`
	BoundIssuer          types.List           `tfsdk:"bound_issuer"`
	AllowedRedirectURIs  types.List           `tfsdk:"allowed_redirect_uris"`
	DiscoveryCaPem       types.List           `tfsdk:"discovery_ca_pem"`
	JWKSURL              types.String         `tfsdk:"jwks_url"`
	JWKSCACert           types.String         `tfsdk:"jwks_ca_cert"`
	JWTValidationPubKeys types.List           `tfsdk:"jwt_validation_pub_keys"`
	SigningAlgs          types.List           `tfsdk:"signing_algs"`
	ExpirationLeeway     timetypes.GoDuration `tfsdk:"expiration_leeway"`
	NotBeforeLeeway      timetypes.GoDuration `tfsdk:"not_before_leeway"`
	ClockSkewLeeway      timetypes.GoDuration `tfsdk:"clock_skew_leeway"`
	ClaimMappings        types.Map            `tfsdk:"claim_mappings"`
	ListClaimMappings    types.Map            `tfsdk:"list_claim_mappings"`
	VerboseLogging       types.Bool           `tfsdk:"verbose_logging"`
}

// toAuthMethod is the method to write for m, with the client secret the
// configuration gives (write-only, so read from the configuration, not
// the plan).
func (m *aclAuthMethodModel) toAuthMethod(ctx context.Context, secret string, diags *diag.Diagnostics) aclpolicy.AuthMethod {
	a := aclpolicy.AuthMethod{Name: m.Name.ValueString(), Type: m.Type.ValueString(), TokenLocality: m.TokenLocality.ValueString(),
		TokenNameFormat: m.TokenNameFormat.ValueString(), Default: m.Default.ValueBool(), MaxTokenTTL: duration(m.MaxTokenTTL, diags)}
	c := m.Config
	if c == nil {
		return a
	}
	a.Config = aclpolicy.AuthMethodConfig{
		OIDCDiscoveryURL: c.OIDCDiscoveryURL.ValueString(), OIDCClientID: c.OIDCClientID.ValueString(), OIDCClientSecret: secret,
		OIDCEnablePKCE: c.OIDCEnablePKCE.ValueBool(), OIDCDisableUserInfo: c.OIDCDisableUserInfo.ValueBool(),
		JWKSURL: c.JWKSURL.ValueString(), JWKSCACert: c.JWKSCACert.ValueString(), VerboseLogging: c.VerboseLogging.ValueBool(),
		ExpirationLeeway: duration(c.ExpirationLeeway, diags), NotBeforeLeeway: duration(c.NotBeforeLeeway, diags),
		ClockSkewLeeway: duration(c.ClockSkewLeeway, diags),
	}
	for _, l := range []struct {
		from types.List
		to   *[]string
	}{
		{c.OIDCScopes, &a.Config.OIDCScopes}, {c.BoundAudiences, &a.Config.BoundAudiences}, {c.BoundIssuer, &a.Config.BoundIssuer},
		{c.AllowedRedirectURIs, &a.Config.AllowedRedirectURIs}, {c.DiscoveryCaPem, &a.Config.DiscoveryCaPem},
		{c.JWTValidationPubKeys, &a.Config.JWTValidationPubKeys}, {c.SigningAlgs, &a.Config.SigningAlgs},
	} {
		diags.Append(l.from.ElementsAs(ctx, l.to, false)...)
	}
	diags.Append(c.ClaimMappings.ElementsAs(ctx, &a.Config.ClaimMappings, false)...)
	diags.Append(c.ListClaimMappings.ElementsAs(ctx, &a.Config.ListClaimMappings, false)...)
	return a
}

func duration(v timetypes.GoDuration, diags *diag.Diagnostics) time.Duration {
	if v.IsNull() || v.IsUnknown() {
		return 0
	}
	d, dd := v.ValueGoDuration()
	diags.Append(dd...)
	return d
}

// durationOrNull is d, null when it is zero, unless prior says zero its
// own way ("0s").
func durationOrNull(prior timetypes.GoDuration, d time.Duration) timetypes.GoDuration {
	if d == 0 {
		if !prior.IsNull() && !prior.IsUnknown() {
			if p, diags := prior.ValueGoDuration(); !diags.HasError() && p == 0 {
				return prior
			}
		}
		return timetypes.NewGoDurationNull()
	}
	return shared.DurationValue(d)
}

// fromAuthMethod writes what Nomad holds into m. The client secret is
// never read back (Nomad does not give it), so the write-only attribute
// stays null and its version stays as it was. Nomad does not tell an
// empty list or map from none: m's spelling of "none" is kept.
func (m *aclAuthMethodModel) fromAuthMethod(ctx context.Context, a *aclpolicy.AuthMethod, diags *diag.Diagnostics) {
	m.ID, m.Name, m.Type = types.StringValue(a.Name), types.StringValue(a.Name), types.StringValue(a.Type)
	m.TokenLocality, m.TokenNameFormat = types.StringValue(a.TokenLocality), types.StringValue(a.TokenNameFormat)
	m.Default = types.BoolValue(a.Default)
	m.MaxTokenTTL = durationOrNull(m.MaxTokenTTL, a.MaxTokenTTL)
	prior := m.Config
	if prior == nil {
		prior = &authMethodConfigModel{OIDCClientSecretVer: types.Int64Null(), ExpirationLeeway: timetypes.NewGoDurationNull(),
			NotBeforeLeeway: timetypes.NewGoDurationNull(), ClockSkewLeeway: timetypes.NewGoDurationNull()}
	}
	c := a.Config
	list := func(p types.List, v []string) types.List {
		return shared.KeepEmptyList(p, shared.ListOrNull(ctx, v, diags))
	}
	m.Config = &authMethodConfigModel{
		OIDCDiscoveryURL: shared.StringOrNull(c.OIDCDiscoveryURL), OIDCClientID: shared.StringOrNull(c.OIDCClientID),
		OIDCClientSecretWO: types.StringNull(), OIDCClientSecretVer: prior.OIDCClientSecretVer,
		OIDCEnablePKCE: types.BoolValue(c.OIDCEnablePKCE), OIDCDisableUserInfo: types.BoolValue(c.OIDCDisableUserInfo),
		OIDCScopes: list(prior.OIDCScopes, c.OIDCScopes), BoundAudiences: list(prior.BoundAudiences, c.BoundAudiences),
		BoundIssuer: list(prior.BoundIssuer, c.BoundIssuer), AllowedRedirectURIs: list(prior.AllowedRedirectURIs, c.AllowedRedirectURIs),
		DiscoveryCaPem: list(prior.DiscoveryCaPem, c.DiscoveryCaPem), JWKSURL: shared.StringOrNull(c.JWKSURL),
		JWKSCACert:           shared.StringOrNull(c.JWKSCACert),
		JWTValidationPubKeys: list(prior.JWTValidationPubKeys, c.JWTValidationPubKeys), SigningAlgs: list(prior.SigningAlgs, c.SigningAlgs),
		ExpirationLeeway:  durationOrNull(prior.ExpirationLeeway, c.ExpirationLeeway),
		NotBeforeLeeway:   durationOrNull(prior.NotBeforeLeeway, c.NotBeforeLeeway),
		ClockSkewLeeway:   durationOrNull(prior.ClockSkewLeeway, c.ClockSkewLeeway),
		ClaimMappings:     shared.KeepEmptyMap(prior.ClaimMappings, shared.MapOrNull(ctx, c.ClaimMappings, diags)),
		ListClaimMappings: shared.KeepEmptyMap(prior.ListClaimMappings, shared.MapOrNull(ctx, c.ListClaimMappings, diags)),
		VerboseLogging:    types.BoolValue(c.VerboseLogging),
	}
}
