package acl

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"

	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
)

// The identities of the family's resources.
var (
	// aclPolicyIdentity identifies a berth_acl_policy: its name is unique in
	// the cluster.
	aclPolicyIdentity = shared.SingleIdentity{Name: "name", Doc: "ACL policy name."}

	// aclRoleIdentity identifies a berth_acl_role by Nomad's ID for it, which
	// stays when the role is renamed.
	aclRoleIdentity = shared.SingleIdentity{Name: "id", Doc: "ACL role ID."}

	// aclAuthMethodIdentity identifies a berth_acl_auth_method by its name.
	aclAuthMethodIdentity = shared.SingleIdentity{Name: "name", Doc: "ACL auth method name."}

	// aclBindingRuleIdentity identifies a berth_acl_binding_rule by Nomad's ID
	// for it (rules have no name).
	aclBindingRuleIdentity = shared.SingleIdentity{Name: "id", Doc: "ACL binding rule ID."}

	// aclTokenIdentity identifies a berth_acl_token: its accessor ID.
	aclTokenIdentity = shared.SingleIdentity{Name: "accessor_id", Doc: "The token's accessor ID."}
)

// aclResource is what the family's managed resources share: the base
// that names the type and keeps the provider's data, the identity (under
// the provider's identity interceptor) and the schema.
type aclResource struct {
	shared.ResourceBase
	shared.WithIdentity
	schema func() schema.Schema
}

// newACLResource is the base of berth_<name>, identified by id.
func newACLResource(name string, id shared.SingleIdentity, s func() schema.Schema) aclResource {
	return aclResource{ResourceBase: shared.NewResourceBase(name), WithIdentity: shared.WithIdentity{Identity: id}, schema: s}
}

func (r *aclResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = r.schema()
}

// managedACLResource is what every resource built on aclResource adds to
// it: import and moves from other providers' resources.
type managedACLResource interface {
	resource.ResourceWithIdentity
	resource.ResourceWithImportState
	resource.ResourceWithMoveState
}

var (
	_ managedACLResource                  = &aclPolicyResource{}
	_ managedACLResource                  = &aclRoleResource{}
	_ managedACLResource                  = &aclAuthMethodResource{}
	_ managedACLResource                  = &aclBindingRuleResource{}
	_ managedACLResource                  = &aclTokenResource{}
	_ resource.ResourceWithValidateConfig = &aclPolicyResource{}
	_ resource.ResourceWithValidateConfig = &aclAuthMethodResource{}
	_ resource.ResourceWithValidateConfig = &aclBindingRuleResource{}
	_ resource.ResourceWithValidateConfig = &aclTokenResource{}
)
