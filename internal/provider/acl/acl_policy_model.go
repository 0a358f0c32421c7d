package acl

import (
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/berthhq/terraform-provider-berth/internal/aclpolicy"
	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
)

type aclPolicyModel struct {
	ID          types.String `tfsdk:"id"`
	Name        types.String `tfsdk:"name"`
	Description types.String `tfsdk:"description"`
	Rules       types.String `tfsdk:"rules"`
	JobACL      *jobACLModel `tfsdk:"job_acl"`
}

type jobACLModel struct {
	Namespace types.String `tfsdk:"namespace"`
	JobID     types.String `tfsdk:"job_id"`
	Group     types.String `tfsdk:"group"`
	Task      types.String `tfsdk:"task"`
}

func (j *jobACLModel) toJobACL() *aclpolicy.JobACL {
	if j == nil {
		return nil
	}
	return &aclpolicy.JobACL{Namespace: j.Namespace.ValueString(), JobID: j.JobID.ValueString(), Group: j.Group.ValueString(),
		Task: j.Task.ValueString()}
}

func jobACLFrom(j *aclpolicy.JobACL) *jobACLModel {
	if j == nil {
		return nil
	}
	return &jobACLModel{Namespace: types.StringValue(j.Namespace), JobID: shared.StringOrNull(j.JobID),
		Group: shared.StringOrNull(j.Group), Task: shared.StringOrNull(j.Task)}
}

// toPolicy is the policy to write for m.
func (m *aclPolicyModel) toPolicy() aclpolicy.Policy {
	return aclpolicy.Policy{Name: m.Name.ValueString(), Description: m.Description.ValueString(), Rules: m.Rules.ValueString(),
		JobACL: m.JobACL.toJobACL()}
}

// fromPolicy writes what Nomad holds into m. Nomad does not tell an empty
// description from an unset one, so m's spelling of "none" is kept.
func (m *aclPolicyModel) fromPolicy(p *aclpolicy.Policy) {
	m.ID = types.StringValue(p.Name)
	m.Name = types.StringValue(p.Name)
	if p.Description != "" || m.Description.IsNull() || m.Description.IsUnknown() || m.Description.ValueString() != "" {
		m.Description = shared.StringOrNull(p.Description)
	}
	m.Rules = types.StringValue(p.Rules)
	m.JobACL = jobACLFrom(p.JobACL)
}
