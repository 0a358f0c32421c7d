package acl

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
)

var _ resource.ResourceWithMoveState = &aclPolicyResource{}

// nomadACLPolicyState is what berth_acl_policy takes from the state of the
// other Nomad provider's nomad_acl_policy (hashicorp/nomad).
type nomadACLPolicyState struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	RulesHCL    string `json:"rules_hcl"`
	JobACL      []struct {
		Namespace string `json:"namespace"`
		JobID     string `json:"job_id"`
		Group     string `json:"group"`
		Task      string `json:"task"`
	} `json:"job_acl"`
}

// fromPeer is shared.FromPeer, for the binding rule's mover, which is
// written out in acl_binding_rule_resource.go.
func fromPeer(req resource.MoveStateRequest, typeName string) bool {
	return shared.FromPeer(req, typeName)
}

// MoveState takes a nomad_acl_policy over without writing to Nomad
// (`moved { from = nomad_acl_policy.x  to = berth_acl_policy.x }`):
// rules_hcl becomes rules, the job_acl block the job_acl attribute. The
// other provider writes "" for what is unset; berth writes null.
func (r *aclPolicyResource) MoveState(context.Context) []resource.StateMover {
	return []resource.StateMover{shared.MoveFrom("nomad_acl_policy", func(_ context.Context, src nomadACLPolicyState, _ *diag.Diagnostics) aclPolicyModel {
		m := aclPolicyModel{ID: types.StringValue(src.Name), Name: types.StringValue(src.Name),
			Description: shared.StringOrNull(src.Description), Rules: types.StringValue(src.RulesHCL)}
		if len(src.JobACL) > 0 && src.JobACL[0].Namespace != "" {
			j := src.JobACL[0]
			m.JobACL = &jobACLModel{Namespace: types.StringValue(j.Namespace), JobID: shared.StringOrNull(j.JobID),
				Group: shared.StringOrNull(j.Group), Task: shared.StringOrNull(j.Task)}
		}
		return m
	})}
}
