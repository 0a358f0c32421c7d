package nomadclient

import (
	"sort"

	"github.com/hashicorp/nomad/api"

	"github.com/berthhq/terraform-provider-berth/internal/aclpolicy"
)

// Nomad's ACL objects and berth's (internal/aclpolicy), both ways. The
// mapping lives here so no package above or beside nomadclient holds a
// Nomad API type.

// roleToAPI is the role to write.
func roleToAPI(r aclpolicy.Role) *api.ACLRole {
	out := &api.ACLRole{ID: r.ID, Name: r.Name, Description: r.Description}
	for _, p := range r.Policies {
		out.Policies = append(out.Policies, &api.ACLRolePolicyLink{Name: p})
	}
	return out
}

// roleFromAPI is what Nomad holds.
func roleFromAPI(r *api.ACLRole) *aclpolicy.Role {
	return &aclpolicy.Role{ID: r.ID, Name: r.Name, Description: r.Description, Policies: policyNames(r.Policies)}
}

// roleFromStub is a listed role.
func roleFromStub(r *api.ACLRoleListStub) aclpolicy.Role {
	return aclpolicy.Role{ID: r.ID, Name: r.Name, Description: r.Description, Policies: policyNames(r.Policies)}
}

func policyNames(links []*api.ACLRolePolicyLink) []string {
	out := make([]string, 0, len(links))
	for _, l := range links {
		if l != nil {
			out = append(out, l.Name)
		}
	}
	sort.Strings(out)
	return out
}

// authMethodToAPI is the method to write. Nomad replaces the whole
// configuration on every write, so a secret left out is a secret removed.
func authMethodToAPI(m aclpolicy.AuthMethod) *api.ACLAuthMethod {
	c := m.Config
	return &api.ACLAuthMethod{
		Name: m.Name, Type: m.Type, TokenLocality: m.TokenLocality, TokenNameFormat: m.TokenNameFormat,
		MaxTokenTTL: m.MaxTokenTTL, Default: m.Default,
		Config: &api.ACLAuthMethodConfig{
			JWTValidationPubKeys: c.JWTValidationPubKeys, JWKSURL: c.JWKSURL, OIDCDiscoveryURL: c.OIDCDiscoveryURL,
			OIDCClientID: c.OIDCClientID, OIDCClientSecret: c.OIDCClientSecret, OIDCEnablePKCE: c.OIDCEnablePKCE,
			OIDCDisableUserInfo: c.OIDCDisableUserInfo, OIDCScopes: c.OIDCScopes, BoundAudiences: c.BoundAudiences,
			BoundIssuer: c.BoundIssuer, AllowedRedirectURIs: c.AllowedRedirectURIs, DiscoveryCaPem: c.DiscoveryCaPem,
			JWKSCACert: c.JWKSCACert, SigningAlgs: c.SigningAlgs, ExpirationLeeway: c.ExpirationLeeway,
			NotBeforeLeeway: c.NotBeforeLeeway, ClockSkewLeeway: c.ClockSkewLeeway, ClaimMappings: c.ClaimMappings,
			ListClaimMappings: c.ListClaimMappings, VerboseLogging: c.VerboseLogging,
		},
	}
}

// authMethodFromAPI is what Nomad holds, without its secrets: a client
// secret is only recorded as there or not.
func authMethodFromAPI(a *api.ACLAuthMethod) *aclpolicy.AuthMethod {
	out := &aclpolicy.AuthMethod{Name: a.Name, Type: a.Type, TokenLocality: a.TokenLocality,
		TokenNameFormat: a.TokenNameFormat, MaxTokenTTL: a.MaxTokenTTL, Default: a.Default}
	c := a.Config
	if c == nil {
		return out
	}
	out.Config = aclpolicy.AuthMethodConfig{
		OIDCDiscoveryURL: c.OIDCDiscoveryURL, OIDCClientID: c.OIDCClientID, HasClientSecret: c.OIDCClientSecret != "",
		OIDCEnablePKCE: c.OIDCEnablePKCE, OIDCDisableUserInfo: c.OIDCDisableUserInfo, OIDCScopes: c.OIDCScopes,
		BoundAudiences: c.BoundAudiences, BoundIssuer: c.BoundIssuer, AllowedRedirectURIs: c.AllowedRedirectURIs,
		DiscoveryCaPem: c.DiscoveryCaPem, JWKSURL: c.JWKSURL, JWKSCACert: c.JWKSCACert,
		JWTValidationPubKeys: c.JWTValidationPubKeys, SigningAlgs: c.SigningAlgs, ExpirationLeeway: c.ExpirationLeeway,
		NotBeforeLeeway: c.NotBeforeLeeway, ClockSkewLeeway: c.ClockSkewLeeway, ClaimMappings: c.ClaimMappings,
		ListClaimMappings: c.ListClaimMappings, VerboseLogging: c.VerboseLogging,
	}
	if c.OIDCClientAssertion != nil && c.OIDCClientAssertion.KeySource != "" {
		out.Config.Unmanaged = append(out.Config.Unmanaged, "oidc_client_assertion")
	}
	return out
}

// bindingRuleToAPI is the rule to write.
func bindingRuleToAPI(b aclpolicy.BindingRule) *api.ACLBindingRule {
	return &api.ACLBindingRule{ID: b.ID, Description: b.Description, AuthMethod: b.AuthMethod, Selector: b.Selector,
		BindType: b.BindType, BindName: b.BindName}
}

// bindingRuleFromAPI is what Nomad holds.
func bindingRuleFromAPI(b *api.ACLBindingRule) *aclpolicy.BindingRule {
	return &aclpolicy.BindingRule{ID: b.ID, Description: b.Description, AuthMethod: b.AuthMethod, Selector: b.Selector,
		BindType: b.BindType, BindName: b.BindName}
}

// policyToAPI is the policy to write.
func policyToAPI(p aclpolicy.Policy) *api.ACLPolicy {
	out := &api.ACLPolicy{Name: p.Name, Description: p.Description, Rules: p.Rules}
	if p.JobACL != nil {
		j := *p.JobACL
		out.JobACL = &api.JobACL{Namespace: j.Namespace, JobID: j.JobID, Group: j.Group, Task: j.Task}
	}
	return out
}

// policyFromAPI is what Nomad holds. A job_acl with nothing in it attaches
// the policy to nothing (Nomad indexes none): it is read as none.
func policyFromAPI(p *api.ACLPolicy) *aclpolicy.Policy {
	out := &aclpolicy.Policy{Name: p.Name, Description: p.Description, Rules: p.Rules}
	if j := p.JobACL; j != nil && (*j != api.JobACL{}) {
		out.JobACL = &aclpolicy.JobACL{Namespace: j.Namespace, JobID: j.JobID, Group: j.Group, Task: j.Task}
	}
	return out
}
