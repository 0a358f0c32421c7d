package acl

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
)

var _ resource.ResourceWithMoveState = &aclRoleResource{}

// nomadACLRoleState is what berth_acl_role takes from the state of the
// other Nomad provider's nomad_acl_role (hashicorp/nomad).
type nomadACLRoleState struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Description string `json:"description"`
	Policy      []struct {
		Name string `json:"name"`
	} `json:"policy"`
}

// MoveState takes a nomad_acl_role over without writing to Nomad: its
// policy blocks become the policies set.
func (r *aclRoleResource) MoveState(context.Context) []resource.StateMover {
	return []resource.StateMover{shared.MoveFrom("nomad_acl_role", func(ctx context.Context, src nomadACLRoleState, diags *diag.Diagnostics) aclRoleModel {
		names := make([]string, 0, len(src.Policy))
		for _, p := range src.Policy {
			names = append(names, p.Name)
		}
		policies, d := types.SetValueFrom(ctx, types.StringType, names)
		diags.Append(d...)
		return aclRoleModel{ID: types.StringValue(src.ID), Name: types.StringValue(src.Name),
			Description: shared.StringOrNull(src.Description), Policies: policies}
	})}
}
