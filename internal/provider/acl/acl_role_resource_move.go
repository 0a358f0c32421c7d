package acl

import (
	"context"
	"encoding/json"

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
	return []resource.StateMover{{StateMover: func(ctx context.Context, req resource.MoveStateRequest, resp *resource.MoveStateResponse) {
		if !fromPeer(req, "nomad_acl_role") {
			return
		}
		var src nomadACLRoleState
		if err := json.Unmarshal(req.SourceRawState.JSON, &src); err != nil {
			resp.Diagnostics.AddError("Could not read the nomad_acl_role state",
				"berth could not decode the state of the nomad_acl_role being moved: "+err.Error())
			return
		}
		names := make([]string, 0, len(src.Policy))
		for _, p := range src.Policy {
			names = append(names, p.Name)
		}
		policies, d := types.SetValueFrom(ctx, types.StringType, names)
		resp.Diagnostics.Append(d...)
		m := aclRoleModel{ID: types.StringValue(src.ID), Name: types.StringValue(src.Name),
			Description: shared.StringOrNull(src.Description), Policies: policies}
		resp.Diagnostics.Append(resp.TargetState.Set(ctx, &m)...)
	}}}
}
