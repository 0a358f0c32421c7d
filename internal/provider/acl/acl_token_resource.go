package acl

import (
	"context"
	"errors"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/berthhq/terraform-provider-berth/internal/nomadclient"
	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
	"github.com/berthhq/terraform-provider-berth/internal/workflow"
)

// NewACLTokenResource builds the berth_acl_token resource.
func NewACLTokenResource() resource.Resource { return newACLTokenResource() }

// newACLTokenResource is the same, typed for the list resource that embeds it.
func newACLTokenResource() *aclTokenResource {
	return &aclTokenResource{newACLResource("acl_token", aclTokenIdentity, aclTokenSchema)}
}

type aclTokenResource struct{ aclResource }

// ValidateConfig applies Nomad's rule on types at plan time: a client
// token needs policies or roles, a management token takes neither; and
// refuses an expiration_ttl under a minute (0 would mean no expiry).
func (r *aclTokenResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var m aclTokenModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	checkTokenGrants(m.Type, m.Policies, m.Roles, &resp.Diagnostics)
	checkTokenTTL(m.ExpirationTTL, "expiration_ttl", " For a token that does not expire, leave expiration_ttl out.", &resp.Diagnostics)
}

// checkTokenGrants is Nomad's rule on a token's type and grants, with
// one diagnostic at policies; unknown values are left to apply.
func checkTokenGrants(typ types.String, policies, roles types.Set, diags *diag.Diagnostics) {
	if typ.IsUnknown() || policies.IsUnknown() || roles.IsUnknown() {
		return
	}
	grants := len(policies.Elements()) + len(roles.Elements())
	switch typ.ValueString() {
	case "", nomadclient.ACLTokenTypeClient:
		if grants == 0 {
			diags.AddAttributeError(path.Root("policies"), "Client token without policies or roles",
				"Nomad refuses a client token with no policies and no roles: it could do nothing. Add policies (names of "+
					"ACL policies) or roles (IDs of ACL roles), or set type = \"management\" for a token that can do anything.")
		}
	case nomadclient.ACLTokenTypeManagement:
		if grants > 0 {
			diags.AddAttributeError(path.Root("policies"), "Management token with policies or roles",
				"Nomad refuses policies and roles on a management token, which can already do anything. Remove policies "+
					"and roles, or set type = \"client\" for a token limited to them.")
		}
	}
}

func (r *aclTokenResource) tokens() workflow.ACLTokens {
	return workflow.ACLTokens{Nomad: r.Data.Nomad}
}

func (r *aclTokenResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan aclTokenModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	spec := plan.toSpec(ctx, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	tok, err := r.tokens().Create(ctx, spec, plan.secretVariable())
	if err != nil {
		addTokenError(&resp.Diagnostics, err)
		return
	}
	tflog.Info(ctx, "Created ACL token", map[string]any{"accessor_id": tok.AccessorID})
	plan.fromToken(ctx, tok, &resp.Diagnostics)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

func (r *aclTokenResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state aclTokenModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	accessor := state.AccessorID.ValueString()
	tok, err := r.Data.Nomad.GetACLToken(ctx, accessor)
	if err != nil {
		shared.AddNomadError(&resp.Diagnostics, "Could not read the ACL token", err)
		return
	}
	if tok == nil {
		tflog.Info(ctx, "ACL token is gone from Nomad (deleted or expired); removing it from state", map[string]any{"accessor_id": accessor})
		resp.State.RemoveResource(ctx)
		return
	}
	state.fromToken(ctx, tok, &resp.Diagnostics)
	if dest := state.secretVariable(); dest.Set() {
		holds, err := r.Data.Nomad.TokenSecretVariableHolds(ctx, tok, dest.Namespace, dest.Path)
		if err != nil {
			shared.AddNomadError(&resp.Diagnostics, "Could not read the token's secret Variable", err)
			return
		}
		if !holds {
			// Drift: the plan shows secret_variable_path and the apply
			// writes the Variable again.
			tflog.Info(ctx, "The token's secret Variable is missing or changed", map[string]any{"path": dest.Path, "namespace": dest.Namespace})
			state.SecretVariablePath = types.StringNull()
		}
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

func (r *aclTokenResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan, state aclTokenModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	spec := plan.toSpec(ctx, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	tok, err := r.tokens().Update(ctx, state.AccessorID.ValueString(), spec, state.secretVariable(), plan.secretVariable())
	if tok == nil {
		addTokenError(&resp.Diagnostics, err)
		return
	}
	if err != nil {
		// Only the old Variable could not be deleted: the token and the
		// new Variable are written.
		var sv *workflow.SecretVariableError
		if errors.As(err, &sv) {
			resp.Diagnostics.AddWarning("Could not delete the old secret Variable",
				fmt.Sprintf("The token now writes its secret to %s, but the Variable it used before, %s in namespace %q, "+
					"could not be deleted: %v. It still holds the token's secret: delete it (nomad var purge -namespace %s %s).",
					plan.SecretVariablePath.ValueString(), sv.Variable.Path, sv.Variable.Namespace, sv.Err, sv.Variable.Namespace, sv.Variable.Path))
		}
	}
	tflog.Info(ctx, "Updated ACL token", map[string]any{"accessor_id": tok.AccessorID})
	plan.fromToken(ctx, tok, &resp.Diagnostics)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

func (r *aclTokenResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state aclTokenModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if err := r.tokens().Delete(ctx, state.AccessorID.ValueString(), state.secretVariable()); err != nil {
		addTokenError(&resp.Diagnostics, err)
		return
	}
	tflog.Info(ctx, "Deleted ACL token", map[string]any{"accessor_id": state.AccessorID.ValueString()})
}

// addTokenError turns a workflow error into one diagnostic.
func addTokenError(diags *diag.Diagnostics, err error) {
	var sv *workflow.SecretVariableError
	var we *workflow.WriteError
	switch {
	case errors.As(err, &sv) && sv.Old:
		diags.AddAttributeError(path.Root("secret_variable_path"), "Could not delete the token's secret Variable",
			fmt.Sprintf("berth deletes the Variable %s in namespace %q before the token, and Nomad refused: %v. Nothing was "+
				"deleted. Check that the provider's token may write Variables in that namespace, then run again.",
				sv.Variable.Path, sv.Variable.Namespace, sv.Err))
	case errors.As(err, &sv):
		diags.AddAttributeError(path.Root("secret_variable_path"), "Could not write the token's secret Variable",
			fmt.Sprintf("berth could not write the token's secret to the Variable %s in namespace %q: %v. The token "+
				"was not kept (a token whose secret nobody received is useless). Choose a path no one else uses, or "+
				"check that the namespace exists and the provider's token may write Variables there.",
				sv.Variable.Path, sv.Variable.Namespace, sv.Err))
	case errors.As(err, &we) && we.Uncertain:
		shared.AddNomadError(diags, we.Summary, fmt.Errorf("%w (the answer was lost: Nomad may have created a token anyway; "+
			"list tokens with `nomad acl token list` and delete a stray one)", we.Err))
	case errors.As(err, &we):
		shared.AddNomadError(diags, we.Summary, we.Err)
	default:
		shared.AddNomadError(diags, "ACL token write failed", err)
	}
}

// ImportState imports a token by accessor ID (or by its identity). The
// secret's Variable is not known from Nomad: an import whose
// configuration sets secret_variable_path plans writing it.
func (r *aclTokenResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	accessor := aclTokenIdentity.ImportID(ctx, req, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	tok, err := r.Data.Nomad.GetACLToken(ctx, accessor)
	if err != nil {
		shared.AddNomadError(&resp.Diagnostics, "Cannot import the ACL token", err)
		return
	}
	if tok == nil {
		resp.Diagnostics.AddError("ACL token not found",
			"Nomad has no ACL token with the accessor ID given (berth does not repeat it: it might be a secret). Import by "+
				"accessor ID, never the secret: list them with `nomad acl token list`.")
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), accessor)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("accessor_id"), accessor)...)
}
