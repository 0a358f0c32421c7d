package acl

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/berthhq/terraform-provider-berth/internal/aclpolicy"
	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
)

// NewACLBindingRuleResource builds the berth_acl_binding_rule resource.
func NewACLBindingRuleResource() resource.Resource { return newACLBindingRuleResource() }

// newACLBindingRuleResource is the same, typed for the list resource that embeds it.
func newACLBindingRuleResource() *aclBindingRuleResource {
	return &aclBindingRuleResource{newACLResource("acl_binding_rule", aclBindingRuleIdentity, aclBindingRuleSchema)}
}

type aclBindingRuleResource struct{ aclResource }

// ValidateConfig applies Nomad's bind_name rule, at bind_name.
func (r *aclBindingRuleResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var bindType, bindName types.String
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("bind_type"), &bindType)...)
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("bind_name"), &bindName)...)
	if resp.Diagnostics.HasError() || shared.AnyUnknown(bindType, bindName) {
		return
	}
	b := aclpolicy.BindingRule{BindType: bindType.ValueString(), BindName: bindName.ValueString()}
	if err := b.Check(); err != nil {
		resp.Diagnostics.AddAttributeError(path.Root("bind_name"), "Invalid bind_name", err.Error()+".")
	}
}

func (r *aclBindingRuleResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	r.write(ctx, req.Plan, &resp.State, &resp.Diagnostics, r.Data.Nomad.CreateACLBindingRule,
		"Could not create the ACL binding rule", "Created ACL binding rule")
}

// write sends the planned rule to Nomad with send (create or update) and
// records the rule Nomad answers with.
func (r *aclBindingRuleResource) write(ctx context.Context, planned tfsdk.Plan, st *tfsdk.State, diags *diag.Diagnostics,
	send func(context.Context, aclpolicy.BindingRule) (*aclpolicy.BindingRule, error), failed, done string) {
	var plan aclBindingRuleModel
	diags.Append(planned.Get(ctx, &plan)...)
	if diags.HasError() {
		return
	}
	out, err := send(ctx, plan.toBindingRule())
	if err != nil {
		shared.AddNomadError(diags, failed, err)
		return
	}
	tflog.Info(ctx, done, map[string]any{"id": out.ID, "auth_method": out.AuthMethod})
	plan.fromBindingRule(out)
	diags.Append(st.Set(ctx, &plan)...)
}

func (r *aclBindingRuleResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state aclBindingRuleModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	b, err := r.Data.Nomad.GetACLBindingRule(ctx, state.ID.ValueString())
	if err != nil {
		shared.AddNomadError(&resp.Diagnostics, "Could not read the ACL binding rule", err)
		return
	}
	if b == nil {
		tflog.Info(ctx, "ACL binding rule is gone from Nomad; removing it from state", map[string]any{"id": state.ID.ValueString()})
		resp.State.RemoveResource(ctx)
		return
	}
	state.fromBindingRule(b)
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

func (r *aclBindingRuleResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	r.write(ctx, req.Plan, &resp.State, &resp.Diagnostics, r.Data.Nomad.UpdateACLBindingRule,
		"Could not update the ACL binding rule", "Updated ACL binding rule")
}

func (r *aclBindingRuleResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state aclBindingRuleModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if err := r.Data.Nomad.DeleteACLBindingRule(ctx, state.ID.ValueString()); err != nil {
		shared.AddNomadError(&resp.Diagnostics, "Could not delete the ACL binding rule", err)
		return
	}
	tflog.Info(ctx, "Deleted ACL binding rule", map[string]any{"id": state.ID.ValueString()})
}

// ImportState imports a rule by its ID (or its identity's ID).
func (r *aclBindingRuleResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	id := aclBindingRuleIdentity.ImportID(ctx, req, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	if !aclpolicy.IsID(id) {
		resp.Diagnostics.AddError("Invalid binding rule ID",
			fmt.Sprintf("%q is not a binding rule ID (a UUID). List the rules with `nomad acl binding-rule list`.", id))
		return
	}
	b, err := r.Data.Nomad.GetACLBindingRule(ctx, id)
	if err != nil {
		shared.AddNomadError(&resp.Diagnostics, "Cannot import the ACL binding rule", err)
		return
	}
	if b == nil {
		resp.Diagnostics.AddError("ACL binding rule not found",
			fmt.Sprintf("Nomad has no ACL binding rule %s. List the rules with `nomad acl binding-rule list`.", id))
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), id)...)
}

// nomadACLBindingRuleState is what berth reads of a nomad_acl_binding_rule.
type nomadACLBindingRuleState struct {
	ID          string `json:"id"`
	AuthMethod  string `json:"auth_method"`
	Selector    string `json:"selector"`
	BindType    string `json:"bind_type"`
	BindName    string `json:"bind_name"`
	Description string `json:"description"`
}

// MoveState takes a nomad_acl_binding_rule over without writing to Nomad;
// the attributes have the same names.
func (r *aclBindingRuleResource) MoveState(context.Context) []resource.StateMover {
	return []resource.StateMover{shared.MoveFrom("nomad_acl_binding_rule",
		func(_ context.Context, src nomadACLBindingRuleState, _ *diag.Diagnostics) aclBindingRuleModel {
			var m aclBindingRuleModel
			m.fromBindingRule(&aclpolicy.BindingRule{ID: src.ID, AuthMethod: src.AuthMethod, Selector: src.Selector,
				BindType: src.BindType, BindName: src.BindName, Description: src.Description})
			return m
		})}
}
