package acl

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-timetypes/timetypes"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
)

var _ resource.ResourceWithMoveState = &aclTokenResource{}

// nomadACLTokenState is what berth_acl_token takes from the state of the
// other Nomad provider's nomad_acl_token (hashicorp/nomad). Its secret_id
// is deliberately not a field: it is dropped on the way, so berth's state
// never holds it.
type nomadACLTokenState struct {
	AccessorID    string   `json:"accessor_id"`
	Name          string   `json:"name"`
	Type          string   `json:"type"`
	Policies      []string `json:"policies"`
	Global        bool     `json:"global"`
	ExpirationTTL string   `json:"expiration_ttl"`
	Role          []struct {
		ID string `json:"id"`
	} `json:"role"`
}

// MoveState takes a nomad_acl_token over without touching the token: the
// accessor and settings move, the secret stays behind (the token keeps
// working; whoever holds its secret still does). The refresh that follows
// reads the rest from Nomad.
func (r *aclTokenResource) MoveState(context.Context) []resource.StateMover {
	return []resource.StateMover{{StateMover: func(ctx context.Context, req resource.MoveStateRequest, resp *resource.MoveStateResponse) {
		if req.SourceTypeName != "nomad_acl_token" || !strings.HasSuffix(req.SourceProviderAddress, "hashicorp/nomad") ||
			req.SourceRawState == nil {
			return
		}
		var src nomadACLTokenState
		if err := json.Unmarshal(req.SourceRawState.JSON, &src); err != nil {
			// The decoder's message names types and fields, never values.
			resp.Diagnostics.AddError("Could not read the nomad_acl_token state", "berth could not decode the state of the "+
				"nomad_acl_token being moved: "+err.Error())
			return
		}
		roles := make([]string, 0, len(src.Role))
		for _, rl := range src.Role {
			roles = append(roles, rl.ID)
		}
		m := aclTokenModel{ID: types.StringValue(src.AccessorID), AccessorID: types.StringValue(src.AccessorID),
			Name: shared.StringOrNull(src.Name), Type: types.StringValue(src.Type), Global: types.BoolValue(src.Global),
			Policies: setOrNull(ctx, src.Policies, &resp.Diagnostics), Roles: setOrNull(ctx, roles, &resp.Diagnostics),
			ExpirationTTL: timetypes.NewGoDurationNull(), ExpirationTime: types.StringNull(), CreateTime: types.StringNull(),
			SecretVariablePath: types.StringNull(), SecretVariableNamespace: types.StringValue("default")}
		if src.ExpirationTTL != "" {
			ttl, d := timetypes.NewGoDurationValueFromString(src.ExpirationTTL)
			resp.Diagnostics.Append(d...)
			m.ExpirationTTL = ttl
		}
		resp.Diagnostics.Append(resp.TargetState.Set(ctx, &m)...)
	}}}
}
