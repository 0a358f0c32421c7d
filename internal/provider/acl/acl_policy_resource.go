package acl

import (
	"context"
	"errors"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
)

// NewACLPolicyResource builds the berth_acl_policy resource.
func NewACLPolicyResource() resource.Resource { return newACLPolicyResource() }

// newACLPolicyResource is the same, typed for the list resource that embeds it.
func newACLPolicyResource() *aclPolicyResource {
	return &aclPolicyResource{newACLResource("acl_policy", aclPolicyIdentity, aclPolicySchema)}
}

type aclPolicyResource struct{ aclResource }

// ValidateConfig applies Nomad's rules for job_acl (a group needs its
// job, a task its group), one diagnostic at the attribute at fault. The
// rules themselves are checked by their attribute's validator.
func (r *aclPolicyResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var obj types.Object
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("job_acl"), &obj)...)
	if resp.Diagnostics.HasError() || obj.IsNull() || shared.AnyUnknown(obj) {
		return
	}
	var j jobACLModel
	resp.Diagnostics.Append(obj.As(ctx, &j, basetypes.ObjectAsOptions{})...)
	if resp.Diagnostics.HasError() {
		return
	}
	if field, err := j.toJobACL().Check(); err != nil {
		resp.Diagnostics.AddAttributeError(path.Root("job_acl").AtName(field), "Invalid job_acl", err.Error()+".")
	}
}

func (r *aclPolicyResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan aclPolicyModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	name := plan.Name.ValueString()
	existing, err := r.Data.Nomad.GetACLPolicy(ctx, name)
	if err != nil {
		shared.AddNomadError(&resp.Diagnostics, "Could not check whether the ACL policy exists", err)
		return
	}
	if existing != nil {
		// Nomad's write creates or overwrites: never take over a policy
		// someone else made.
		resp.Diagnostics.AddAttributeError(path.Root("name"), "ACL policy already exists",
			fmt.Sprintf("Nomad already has an ACL policy named %q. Choose another name, or manage it here by importing it: "+
				"terraform import <address> %s", name, name))
		return
	}
	if !r.write(ctx, &plan, "Could not create the ACL policy", &resp.Diagnostics) {
		return
	}
	tflog.Info(ctx, "Created ACL policy", map[string]any{"name": name})
	r.readBack(ctx, &plan, &resp.Diagnostics)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

func (r *aclPolicyResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state aclPolicyModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	p, err := r.Data.Nomad.GetACLPolicy(ctx, state.Name.ValueString())
	if err != nil {
		shared.AddNomadError(&resp.Diagnostics, "Could not read the ACL policy", err)
		return
	}
	if p == nil {
		tflog.Info(ctx, "ACL policy is gone from Nomad; removing it from state", map[string]any{"name": state.Name.ValueString()})
		resp.State.RemoveResource(ctx)
		return
	}
	state.fromPolicy(p)
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

func (r *aclPolicyResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan aclPolicyModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if !r.write(ctx, &plan, "Could not update the ACL policy", &resp.Diagnostics) {
		return
	}
	tflog.Info(ctx, "Updated ACL policy", map[string]any{"name": plan.Name.ValueString()})
	r.readBack(ctx, &plan, &resp.Diagnostics)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

func (r *aclPolicyResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state aclPolicyModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if err := r.Data.Nomad.DeleteACLPolicy(ctx, state.Name.ValueString()); err != nil {
		shared.AddNomadError(&resp.Diagnostics, "Could not delete the ACL policy", err)
		return
	}
	tflog.Info(ctx, "Deleted ACL policy", map[string]any{"name": state.Name.ValueString()})
}

func (r *aclPolicyResource) write(ctx context.Context, plan *aclPolicyModel, summary string, diags *diag.Diagnostics) bool {
	if err := r.Data.Nomad.WriteACLPolicy(ctx, plan.toPolicy()); err != nil {
		shared.AddNomadError(diags, summary, err)
		return false
	}
	return true
}

// readBack records the policy as Nomad now holds it; when the read fails,
// the plan as written is kept (a warning says so).
func (r *aclPolicyResource) readBack(ctx context.Context, plan *aclPolicyModel, diags *diag.Diagnostics) {
	plan.ID = plan.Name
	p, err := r.Data.Nomad.GetACLPolicy(ctx, plan.Name.ValueString())
	if readBackFound(diags, "policy", p, err) {
		plan.fromPolicy(p)
	}
}

// readBackFound says whether the read after a successful write found
// the object (what: "policy", "auth method"). A failed read is a warning:
// the write happened, and state records what was written.
func readBackFound[O any](diags *diag.Diagnostics, what string, o *O, err error) bool {
	if err == nil && o != nil {
		return true
	}
	if err == nil {
		err = errors.New("the " + what + " was written but is not there")
	}
	var found diag.Diagnostics
	shared.AddNomadError(&found, "Could not read the ACL "+what+" back", err)
	for _, d := range found {
		diags.AddWarning(d.Summary(), d.Detail()+" State records it as configured; the next refresh reads it again.")
	}
	return false
}

// ImportState imports a policy by name (or by its identity's name).
func (r *aclPolicyResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	name := aclPolicyIdentity.ImportID(ctx, req, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	p, err := r.Data.Nomad.GetACLPolicy(ctx, name)
	if err != nil {
		shared.AddNomadError(&resp.Diagnostics, "Cannot import the ACL policy", err)
		return
	}
	if p == nil {
		resp.Diagnostics.AddError("ACL policy not found",
			fmt.Sprintf("Nomad has no ACL policy named %q. List the policies with `nomad acl policy list`.", name))
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), name)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("name"), name)...)
}
