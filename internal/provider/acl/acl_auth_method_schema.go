package acl

import (
	"github.com/hashicorp/terraform-plugin-framework-timetypes/timetypes"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/berthhq/terraform-provider-berth/internal/aclpolicy"
	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
)

// falseByDefault is a bool Nomad does not tell unset from false.
func falseByDefault(doc string) schema.BoolAttribute {
	return schema.BoolAttribute{Optional: true, Computed: true, Default: booldefault.StaticBool(false), MarkdownDescription: doc}
}

func stringList(doc string) schema.ListAttribute {
	return schema.ListAttribute{Optional: true, ElementType: types.StringType, MarkdownDescription: doc}
}

func optionalString(doc string) schema.StringAttribute {
	return schema.StringAttribute{Optional: true, Validators: nonEmpty, MarkdownDescription: doc}
}

func leeway(doc string) schema.StringAttribute {
	return schema.StringAttribute{Optional: true, CustomType: timetypes.GoDurationType{}, MarkdownDescription: doc +
		" A Go duration such as `30s`. Unset: none."}
}

func aclAuthMethodSchema() schema.Schema {
	return schema.Schema{
		MarkdownDescription: "A Nomad ACL auth method: single sign-on with OIDC, or login with a JWT, that gives users " +
			"tokens by the cluster's binding rules (`berth_acl_binding_rule`). The OIDC client secret is write-only " +
			"(`config.oidc_client_secret_wo`): it is sent to Nomad and kept in neither state nor plan; Nomad never " +
			"gives it back, so a change made to it in Nomad cannot show in a plan. Needs a management token.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{Computed: true, MarkdownDescription: "The method's name.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()}},
			"name": schema.StringAttribute{Required: true,
				PlanModifiers:       []planmodifier.String{stringplanmodifier.RequiresReplace()},
				MarkdownDescription: "Method name: " + aclpolicy.NameRule + ". Changing it replaces the method.",
				Validators:          []validator.String{aclNameValidator()}},
			"type": schema.StringAttribute{Required: true,
				MarkdownDescription: "Login workflow: " + shared.BacktickList(aclpolicy.AuthMethodTypes()) + ".",
				Validators:          []validator.String{stringvalidator.OneOf(aclpolicy.AuthMethodTypes()...)}},
			"token_locality": schema.StringAttribute{Required: true,
				MarkdownDescription: "Whether the tokens it gives are `local` to this region or `global`.",
				Validators:          []validator.String{stringvalidator.OneOf(aclpolicy.TokenLocalities()...)}},
			"max_token_ttl": schema.StringAttribute{Required: true, CustomType: timetypes.GoDurationType{},
				MarkdownDescription: "Longest life of a token it gives, a Go duration such as `1h`. Nomad refuses a TTL " +
					"outside its servers' `acl.token_min_expiration_ttl` and `acl.token_max_expiration_ttl`."},
			"token_name_format": schema.StringAttribute{Optional: true, Computed: true,
				Default:             stringdefault.StaticString(aclpolicy.DefaultTokenNameFormat),
				MarkdownDescription: "Name of the tokens it gives, with `${auth_method_type}`, `${auth_method_name}` and claim values. Unset: Nomad's `" + aclpolicy.DefaultTokenNameFormat + "`."},
			"default": falseByDefault("Whether `nomad login` uses this method when none is named. One method at most may be the default: Nomad refuses a second."),
			"config": schema.SingleNestedAttribute{Required: true,
				MarkdownDescription: "The method's configuration. Every field of Nomad 1.10's but `oidc_client_assertion`, " +
					"which berth refuses (import and update say so).",
				Attributes: map[string]schema.Attribute{
					"oidc_discovery_url": optionalString("OIDC discovery URL, without `.well-known`. OIDC: required; JWT: one way to find signing keys."),
					"oidc_client_id":     optionalString("OAuth client ID (OIDC: required)."),
					"oidc_client_secret_wo": schema.StringAttribute{Optional: true, WriteOnly: true, Sensitive: true, Validators: nonEmpty,
						MarkdownDescription: "OAuth client secret, write-only: sent to Nomad at every create and update and never " +
							"stored. Keep it in the configuration: Nomad replaces the whole configuration on every write, so an " +
							"update without it would remove the secret (berth refuses that update). Change " +
							"`oidc_client_secret_wo_version` to send a new secret."},
					"oidc_client_secret_wo_version": schema.Int64Attribute{Optional: true,
						MarkdownDescription: "Any number; changing it rewrites the method with the current `oidc_client_secret_wo`."},
					"oidc_enable_pkce":        falseByDefault("Send a PKCE challenge in OIDC logins."),
					"oidc_disable_userinfo":   falseByDefault("Do not ask the provider's UserInfo endpoint for claims."),
					"oidc_scopes":             stringList("OIDC scopes to ask for."),
					"bound_audiences":         stringList("Audiences (`aud`) a token must have one of."),
					"bound_issuer":            stringList("Issuers (`iss`) a token must have one of."),
					"allowed_redirect_uris":   stringList("Redirect URIs an OIDC login may use."),
					"discovery_ca_pem":        stringList("PEM CA certificates for the discovery URL's TLS."),
					"jwks_url":                optionalString("JSON Web Key Set URL to verify JWT signatures."),
					"jwks_ca_cert":            optionalString("PEM CA certificate for the JWKS URL's TLS."),
					"jwt_validation_pub_keys": stringList("PEM public keys to verify JWT signatures locally (no network)."),
					"signing_algs":            stringList("Signing algorithms accepted, e.g. `RS256`."),
					"expiration_leeway":       leeway("Leeway on `exp`."),
					"not_before_leeway":       leeway("Leeway on `nbf`."),
					"clock_skew_leeway":       leeway("Leeway on every time claim."),
					"claim_mappings": schema.MapAttribute{Optional: true, ElementType: types.StringType,
						MarkdownDescription: "Claims (keys) copied to metadata fields (values) that binding rule selectors read as `value.<field>`."},
					"list_claim_mappings": schema.MapAttribute{Optional: true, ElementType: types.StringType,
						MarkdownDescription: "List claims (keys) copied to list fields (values), read as `list.<field>`."},
					"verbose_logging": falseByDefault("Log claims and binding rule evaluations (at debug level) on the Nomad servers."),
				}},
		},
	}
}
