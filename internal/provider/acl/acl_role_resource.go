package acl

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/berthhq/terraform-provider-berth/internal/aclpolicy"
	"github.com/berthhq/terraform-provider-berth/internal/nomadclient"
	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
)

// NewACLRoleResource builds the berth_acl_role resource.
func NewACLRoleResource() resource.Resource { return newACLRoleResource() }

// newACLRoleResource is the same, typed for the list resource that embeds it.
func newACLRoleResource() *aclRoleResource {
	return &aclRoleResource{newACLResource("acl_role", aclRoleIdentity, aclRoleSchema)}
}

type aclRoleResource struct{ aclResource }

func (r *aclRoleResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	r.write(ctx, req.Plan, &resp.State, &resp.Diagnostics, r.Data.Nomad.CreateACLRole, "Could not create the ACL role", "Created ACL role")
}

// write sends the planned role to Nomad with send (create or update) and
// records the role Nomad answers with.
func (r *aclRoleResource) write(ctx context.Context, planned tfsdk.Plan, st *tfsdk.State, diags *diag.Diagnostics,
	send func(context.Context, aclpolicy.Role) (*aclpolicy.Role, error), failed, done string) {
	var plan aclRoleModel
	diags.Append(planned.Get(ctx, &plan)...)
	if diags.HasError() {
		return
	}
	role := plan.toRole(ctx, diags)
	if diags.HasError() {
		return
	}
	out, err := send(ctx, role)
	if err != nil {
		addRoleWriteError(diags, failed, role.Name, err)
		return
	}
	tflog.Info(ctx, done, map[string]any{"name": out.Name, "id": out.ID})
	plan.fromRole(ctx, out, diags)
	diags.Append(st.Set(ctx, &plan)...)
}

func (r *aclRoleResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state aclRoleModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	role, err := r.Data.Nomad.GetACLRole(ctx, state.ID.ValueString())
	if err != nil {
		shared.AddNomadError(&resp.Diagnostics, "Could not read the ACL role", err)
		return
	}
	if role == nil {
		tflog.Info(ctx, "ACL role is gone from Nomad; removing it from state", map[string]any{"id": state.ID.ValueString()})
		resp.State.RemoveResource(ctx)
		return
	}
	state.fromRole(ctx, role, &resp.Diagnostics)
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

func (r *aclRoleResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	r.write(ctx, req.Plan, &resp.State, &resp.Diagnostics, r.Data.Nomad.UpdateACLRole, "Could not update the ACL role", "Updated ACL role")
}

func (r *aclRoleResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state aclRoleModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if err := r.Data.Nomad.DeleteACLRole(ctx, state.ID.ValueString()); err != nil {
		shared.AddNomadError(&resp.Diagnostics, "Could not delete the ACL role", err)
		return
	}
	tflog.Info(ctx, "Deleted ACL role", map[string]any{"name": state.Name.ValueString(), "id": state.ID.ValueString()})
}

// addRoleWriteError reports a refused role write; a taken name says how to
// import the role that has it.
func addRoleWriteError(diags *diag.Diagnostics, summary, name string, err error) {
	if nomadclient.IsACLRoleExists(err) {
		diags.AddAttributeError(path.Root("name"), "ACL role already exists",
			fmt.Sprintf("Nomad said: %v. Choose another name, or manage that role here by importing it: "+
				"terraform import <address> %s", err, name))
		return
	}
	shared.AddNomadError(diags, summary, err)
}

// ImportState imports a role by its ID or its name (or its identity's ID).
func (r *aclRoleResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	key := aclRoleIdentity.ImportID(ctx, req, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	var role *aclpolicy.Role
	var err error
	if aclpolicy.IsID(key) {
		role, err = r.Data.Nomad.GetACLRole(ctx, key)
	}
	if err == nil && role == nil {
		role, err = r.Data.Nomad.GetACLRoleByName(ctx, key)
	}
	if err != nil {
		shared.AddNomadError(&resp.Diagnostics, "Cannot import the ACL role", err)
		return
	}
	if role == nil {
		resp.Diagnostics.AddError("ACL role not found",
			fmt.Sprintf("Nomad has no ACL role with the ID or name %q. List the roles with `nomad acl role list`.", key))
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), role.ID)...)
}
