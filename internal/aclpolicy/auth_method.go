package aclpolicy

import (
	"errors"
	"time"
)

// Auth method types and token localities Nomad accepts.
const (
	AuthMethodOIDC = "OIDC"
	AuthMethodJWT  = "JWT"
	LocalityLocal  = "local"
	LocalityGlobal = "global"
)

// AuthMethodTypes and TokenLocalities list what Nomad accepts.
func AuthMethodTypes() []string { return []string{AuthMethodOIDC, AuthMethodJWT} }
func TokenLocalities() []string { return []string{LocalityLocal, LocalityGlobal} }

// DefaultTokenNameFormat is the token name format Nomad gives a method
// that names none.
const DefaultTokenNameFormat = "${auth_method_type}-${auth_method_name}"

// AuthMethod is an ACL auth method as berth manages it.
type AuthMethod struct {
	Name, Type, TokenLocality, TokenNameFormat string
	MaxTokenTTL                                time.Duration
	Default                                    bool
	Config                                     AuthMethodConfig
}

// AuthMethodConfig is an auth method's configuration, every field of
// Nomad's but the OIDC client assertion (see Unmanaged).
type AuthMethodConfig struct {
	OIDCDiscoveryURL, OIDCClientID string
	// OIDCClientSecret is written, never read back: Nomad answers a read
	// with "redacted", and berth copies nothing of it. HasClientSecret
	// says whether Nomad holds one.
	OIDCClientSecret                                   string
	HasClientSecret                                    bool
	OIDCEnablePKCE, OIDCDisableUserInfo                bool
	OIDCScopes, BoundAudiences, BoundIssuer            []string
	AllowedRedirectURIs, DiscoveryCaPem                []string
	JWKSURL, JWKSCACert                                string
	JWTValidationPubKeys, SigningAlgs                  []string
	ExpirationLeeway, NotBeforeLeeway, ClockSkewLeeway time.Duration
	ClaimMappings, ListClaimMappings                   map[string]string
	VerboseLogging                                     bool
	// Unmanaged names what Nomad holds that berth does not manage
	// (oidc_client_assertion): a write from berth would remove it.
	Unmanaged []string
}

// Check applies Nomad's rules for a method's configuration
// (nomad/structs ACLAuthMethodConfig.Validate): an OIDC method needs its
// discovery URL and client ID, a JWT method a way to verify signatures.
// Field names the config attribute at fault.
func (m AuthMethod) Check() (field string, err error) {
	c := m.Config
	switch m.Type {
	case AuthMethodOIDC:
		if c.OIDCDiscoveryURL == "" {
			return "oidc_discovery_url", errors.New("an OIDC auth method needs oidc_discovery_url: Nomad refuses one without it")
		}
		if c.OIDCClientID == "" {
			return "oidc_client_id", errors.New("an OIDC auth method needs oidc_client_id: Nomad refuses one without it")
		}
	case AuthMethodJWT:
		if c.OIDCDiscoveryURL == "" && c.JWKSURL == "" && len(c.JWTValidationPubKeys) == 0 {
			return "jwt_validation_pub_keys", errors.New("a JWT auth method needs a way to verify signatures: set " +
				"jwt_validation_pub_keys, jwks_url or oidc_discovery_url (Nomad refuses one with none)")
		}
	}
	return "", nil
}

// AuthMethodStub is an auth method as Nomad lists it.
type AuthMethodStub struct {
	Name, Type string
	Default    bool
}
