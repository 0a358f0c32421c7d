package aclpolicy

import (
	"regexp"
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
