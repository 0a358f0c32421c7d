package aclpolicy

import (
	"regexp"
	"sort"

	"github.com/hashicorp/nomad/api"
)

// Role is an ACL role as berth manages it: a name for a set of policies.
type Role struct {
	// ID is Nomad's UUID for the role; the name can change under it.
	ID          string
	Name        string
	Description string
	// Policies are the names of the role's policies, sorted.
	Policies []string
}

var uuidRe = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

// IsID reports whether s has the shape of a Nomad object ID (a UUID). A
// name (NameRule) can have that shape too, so callers look an import ID
// up as an ID first and as a name after.
func IsID(s string) bool { return uuidRe.MatchString(s) }

// ToAPI is the role to write.
func (r Role) ToAPI() *api.ACLRole {
	out := &api.ACLRole{ID: r.ID, Name: r.Name, Description: r.Description}
	for _, p := range r.Policies {
		out.Policies = append(out.Policies, &api.ACLRolePolicyLink{Name: p})
	}
	return out
}

// RoleFromAPI is what Nomad holds.
func RoleFromAPI(r *api.ACLRole) *Role {
	return &Role{ID: r.ID, Name: r.Name, Description: r.Description, Policies: policyNames(r.Policies)}
}

// RoleFromStub is a listed role.
func RoleFromStub(r *api.ACLRoleListStub) Role {
	return Role{ID: r.ID, Name: r.Name, Description: r.Description, Policies: policyNames(r.Policies)}
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
