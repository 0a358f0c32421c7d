package acl

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/berthhq/terraform-provider-berth/internal/aclpolicy"
	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
)

// secretPath is the write-only client secret.
var secretPath = path.Root("config").AtName("oidc_client_secret_wo")

// NewACLAuthMethodResource builds the berth_acl_auth_method resource.
func NewACLAuthMethodResource() resource.Resource { return newACLAuthMethodResource() }

// newACLAuthMethodResource is the same, typed for the list resource that embeds it.
func newACLAuthMethodResource() *aclAuthMethodResource {
	return &aclAuthMethodResource{newACLResource("acl_auth_method", aclAuthMethodIdentity, aclAuthMethodSchema)}
}

type aclAuthMethodResource struct{ aclResource }

// ValidateConfig applies Nomad's rules for the method's configuration
// (what an OIDC or a JWT method needs), one diagnostic at the attribute.
func (r *aclAuthMethodResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var typ types.String
	var cfg types.Object
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("type"), &typ)...)
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("config"), &cfg)...)
	if resp.Diagnostics.HasError() || shared.AnyUnknown(typ, cfg) || cfg.IsNull() {
		return
	}
	var m aclAuthMethodModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	var diags diag.Diagnostics
	a := m.toAuthMethod(ctx, "", &diags)
	if diags.HasError() {
		return // the attributes' own validators say what is wrong
	}
	if field, err := a.Check(); err != nil {
		resp.Diagnostics.AddAttributeError(path.Root("config").AtName(field), "Incomplete auth method configuration", err.Error()+".")
	}
}

// clientSecret is the write-only secret in the configuration ("" when
// none). It goes to Nomad and nowhere else.
func clientSecret(ctx context.Context, cfg tfsdk.Config, diags *diag.Diagnostics) string {
	var s types.String
	diags.Append(cfg.GetAttribute(ctx, secretPath, &s)...)
	return s.ValueString()
}

// planned is the planned method, its write-only secret, and the method
// Nomad holds under its name now (nil: none); ok is false when any of it
// could not be read (the diagnostic says which, after readFailed).
func (r *aclAuthMethodResource) planned(ctx context.Context, plan tfsdk.Plan, cfg tfsdk.Config, readFailed string,
	diags *diag.Diagnostics) (m aclAuthMethodModel, secret string, current *aclpolicy.AuthMethod, ok bool) {
	diags.Append(plan.Get(ctx, &m)...)
	secret = clientSecret(ctx, cfg, diags)
	if diags.HasError() {
		return m, "", nil, false
	}
	current, err := r.Data.Nomad.GetACLAuthMethod(ctx, m.Name.ValueString())
	if err != nil {
		shared.AddNomadError(diags, readFailed, err)
		return m, "", nil, false
	}
	return m, secret, current, true
}

// write sends the planned method to Nomad with send (create or update)
// and records the method as Nomad then holds it.
func (r *aclAuthMethodResource) write(ctx context.Context, plan *aclAuthMethodModel, secret string, st *tfsdk.State, diags *diag.Diagnostics,
	send func(context.Context, aclpolicy.AuthMethod) error, failed, done string) {
	a := plan.toAuthMethod(ctx, secret, diags)
	if diags.HasError() {
		return
	}
	if err := send(ctx, a); err != nil {
		shared.AddNomadError(diags, failed, err)
		return
	}
	tflog.Info(ctx, done, map[string]any{"name": a.Name, "type": a.Type})
	r.readBack(ctx, plan, diags)
	diags.Append(st.Set(ctx, plan)...)
}

func (r *aclAuthMethodResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	plan, secret, existing, ok := r.planned(ctx, req.Plan, req.Config, "Could not check whether the ACL auth method exists", &resp.Diagnostics)
	if !ok {
		return
	}
	name := plan.Name.ValueString()
	if existing != nil {
		resp.Diagnostics.AddAttributeError(path.Root("name"), "ACL auth method already exists",
			fmt.Sprintf("Nomad already has an ACL auth method named %q. Choose another name, or manage it here by importing "+
				"it: terraform import <address> %s", name, name))
		return
	}
	r.write(ctx, &plan, secret, &resp.State, &resp.Diagnostics, r.Data.Nomad.CreateACLAuthMethod,
		"Could not create the ACL auth method", "Created ACL auth method")
}

func (r *aclAuthMethodResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state aclAuthMethodModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	a, err := r.Data.Nomad.GetACLAuthMethod(ctx, state.Name.ValueString())
	if err != nil {
		shared.AddNomadError(&resp.Diagnostics, "Could not read the ACL auth method", err)
		return
	}
	if a == nil {
		tflog.Info(ctx, "ACL auth method is gone from Nomad; removing it from state", map[string]any{"name": state.Name.ValueString()})
		resp.State.RemoveResource(ctx)
		return
	}
	if len(a.Config.Unmanaged) > 0 {
		resp.Diagnostics.AddAttributeWarning(path.Root("config"), "Auth method settings berth does not manage",
			unmanagedDetail(a)+" The next update of this resource is refused until they are removed in Nomad.")
	}
	state.fromAuthMethod(ctx, a, &resp.Diagnostics)
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

func unmanagedDetail(a *aclpolicy.AuthMethod) string {
	return fmt.Sprintf("Nomad's auth method %q has %s, which berth does not manage: a write from berth replaces the whole "+
		"configuration and would remove it. Remove it in Nomad (`nomad acl auth-method update`), or keep managing this "+
		"method outside Terraform.", a.Name, strings.Join(a.Config.Unmanaged, ", "))
}

func (r *aclAuthMethodResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	plan, secret, current, ok := r.planned(ctx, req.Plan, req.Config, "Could not read the ACL auth method before updating it", &resp.Diagnostics)
	if !ok {
		return
	}
	name := plan.Name.ValueString()
	switch {
	case current == nil:
		resp.Diagnostics.AddError("ACL auth method is gone",
			fmt.Sprintf("Nomad no longer has the auth method %q: it was deleted since the plan. Plan again to create it.", name))
		return
	case len(current.Config.Unmanaged) > 0:
		resp.Diagnostics.AddAttributeError(path.Root("config"), "Auth method settings berth does not manage", unmanagedDetail(current))
		return
	case current.Config.HasClientSecret && secret == "":
		// Nomad replaces the configuration whole: leaving the secret out
		// would remove it.
		resp.Diagnostics.AddAttributeError(secretPath, "The client secret would be removed",
			fmt.Sprintf("Nomad holds an OIDC client secret for auth method %q and the configuration gives none. Nomad replaces "+
				"the whole configuration on every write, so this update would remove the secret; nothing was changed. Set "+
				"config.oidc_client_secret_wo (write-only: it is never stored in state) and apply again.", name))
		return
	}
	r.write(ctx, &plan, secret, &resp.State, &resp.Diagnostics, r.Data.Nomad.UpdateACLAuthMethod,
		"Could not update the ACL auth method", "Updated ACL auth method")
}

func (r *aclAuthMethodResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state aclAuthMethodModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if err := r.Data.Nomad.DeleteACLAuthMethod(ctx, state.Name.ValueString()); err != nil {
		shared.AddNomadError(&resp.Diagnostics, "Could not delete the ACL auth method", err)
		return
	}
	tflog.Info(ctx, "Deleted ACL auth method", map[string]any{"name": state.Name.ValueString()})
}

// readBack records the method as Nomad now holds it; when the read fails,
// the plan as written is kept (a warning says so).
func (r *aclAuthMethodResource) readBack(ctx context.Context, plan *aclAuthMethodModel, diags *diag.Diagnostics) {
	plan.ID = plan.Name
	if plan.Config != nil {
		plan.Config.OIDCClientSecretWO = types.StringNull()
	}
	a, err := r.Data.Nomad.GetACLAuthMethod(ctx, plan.Name.ValueString())
	if readBackFound(diags, "auth method", a, err) {
		plan.fromAuthMethod(ctx, a, diags)
	}
}

// ImportState imports a method by name (or by its identity's name).
// Settings berth does not manage refuse the import, naming them.
func (r *aclAuthMethodResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	name := aclAuthMethodIdentity.ImportID(ctx, req, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	a, err := r.Data.Nomad.GetACLAuthMethod(ctx, name)
	if err != nil {
		shared.AddNomadError(&resp.Diagnostics, "Cannot import the ACL auth method", err)
		return
	}
	if a == nil {
		resp.Diagnostics.AddError("ACL auth method not found",
			fmt.Sprintf("Nomad has no ACL auth method named %q. List them with `nomad acl auth-method list`.", name))
		return
	}
	if len(a.Config.Unmanaged) > 0 {
		resp.Diagnostics.AddError("Auth method settings berth does not manage", unmanagedDetail(a))
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), name)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("name"), name)...)
}
