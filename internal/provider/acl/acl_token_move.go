package acl

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework-timetypes/timetypes"
	"github.com/hashicorp/terraform-plugin-framework/diag"
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
	return []resource.StateMover{shared.MoveFrom("nomad_acl_token", func(ctx context.Context, src nomadACLTokenState, diags *diag.Diagnostics) aclTokenModel {
		roles := make([]string, 0, len(src.Role))
		for _, rl := range src.Role {
			roles = append(roles, rl.ID)
		}
		m := aclTokenModel{aclTokenAttributes: aclTokenAttributes{ID: types.StringValue(src.AccessorID),
			AccessorID: types.StringValue(src.AccessorID), Name: shared.StringOrNull(src.Name), Type: types.StringValue(src.Type),
			Global: types.BoolValue(src.Global), Policies: setOrNull(ctx, src.Policies, diags), Roles: setOrNull(ctx, roles, diags),
			ExpirationTTL: timetypes.NewGoDurationNull(), ExpirationTime: types.StringNull(), CreateTime: types.StringNull()},
			SecretVariablePath: types.StringNull(), SecretVariableNamespace: types.StringValue("default")}
		if src.ExpirationTTL != "" {
			ttl, d := timetypes.NewGoDurationValueFromString(src.ExpirationTTL)
			diags.Append(d...)
			m.ExpirationTTL = ttl
		}
		return m
	})}
}
