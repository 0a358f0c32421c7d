package nomadclient

import (
	"errors"
	"net/http"
	"testing"

	"github.com/hashicorp/nomad/api"

	"github.com/berthhq/terraform-provider-berth/internal/aclpolicy"
)

// Nomad refuses a taken role name with a 400 in words (its ACL endpoint
// answers "role with name <name> already exists"): create and rename
// return an *ACLRoleExistsError naming the role, with Nomad's answer kept.
func TestACLRoleWrite_nameTakenIsTyped(t *testing.T) {
	t.Parallel()
	taken := replyRaw(http.StatusBadRequest, "role with name ops already exists")
	f := newFakeNomad(t)
	f.handle("PUT /v1/acl/role", taken)
	f.handle("PUT /v1/acl/role/r-1", taken)
	c := f.client()

	_, createErr := c.CreateACLRole(t.Context(), aclpolicy.Role{Name: "ops", Policies: []string{"read"}})
	_, updateErr := c.UpdateACLRole(t.Context(), aclpolicy.Role{ID: "r-1", Name: "ops", Policies: []string{"read"}})
	for what, err := range map[string]error{"create": createErr, "update": updateErr} {
		var exists *ACLRoleExistsError
		if !errors.As(err, &exists) || !IsACLRoleExists(err) {
			t.Fatalf("%s: error %v (%T) is not an *ACLRoleExistsError", what, err, err)
		}
		if exists.Name != "ops" || statusCode(err) != http.StatusBadRequest {
			t.Errorf("%s: named %q with status %d; want \"ops\" and Nomad's 400 kept", what, exists.Name, statusCode(err))
		}
	}
	if n := f.count("/v1/acl/role"); n != 1 {
		t.Errorf("create sent %d requests; a write is sent once", n)
	}
}

// Other refusals keep their own error: a policy that does not exist is a
// 400 too, but not a taken name, and a server error is no conflict.
func TestACLRoleWrite_otherRefusalsUntyped(t *testing.T) {
	t.Parallel()
	f := newFakeNomad(t)
	f.handle("PUT /v1/acl/role", replySequence(
		replyRaw(http.StatusBadRequest, "cannot find policy nope"),
		replyRaw(http.StatusInternalServerError, "rpc error: No cluster leader"),
		replyJSON(&api.ACLRole{ID: "r-2", Name: "ops", Policies: []*api.ACLRolePolicyLink{{Name: "read"}}}),
	))
	c := f.client()
	for _, status := range []int{http.StatusBadRequest, http.StatusInternalServerError} {
		_, err := c.CreateACLRole(t.Context(), aclpolicy.Role{Name: "ops", Policies: []string{"nope"}})
		if err == nil || IsACLRoleExists(err) || statusCode(err) != status {
			t.Fatalf("answer %d: got %v (%T); want Nomad's own error, not a taken name", status, err, err)
		}
	}
	r, err := c.CreateACLRole(t.Context(), aclpolicy.Role{Name: "ops", Policies: []string{"read"}})
	if err != nil || r == nil || r.ID != "r-2" {
		t.Fatalf("create: %+v, %v; want the role Nomad holds", r, err)
	}
}
