package acl

import (
	"context"
	"errors"
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

var (
	_ resource.ResourceWithConfigure      = &aclAuthMethodResource{}
	_ resource.ResourceWithImportState    = &aclAuthMethodResource{}
	_ resource.ResourceWithValidateConfig = &aclAuthMethodResource{}
	_ resource.ResourceWithIdentity       = &aclAuthMethodResource{}
)

// aclAuthMethodIdentity identifies a berth_acl_auth_method by its name.
var aclAuthMethodIdentity = shared.SingleIdentity{Name: "name", Doc: "ACL auth method name."}

// secretPath is the write-only client secret.
var secretPath = path.Root("config").AtName("oidc_client_secret_wo")

// NewACLAuthMethodResource builds the berth_acl_auth_method resource.
func NewACLAuthMethodResource() resource.Resource {
	return &aclAuthMethodResource{ResourceBase: shared.NewResourceBase("acl_auth_method"), WithIdentity: shared.WithIdentity{Identity: aclAuthMethodIdentity}}
}

type aclAuthMethodResource struct {
	shared.ResourceBase
	shared.WithIdentity
}

func (r *aclAuthMethodResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = aclAuthMethodSchema()
}

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

func (r *aclAuthMethodResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan aclAuthMethodModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	secret := clientSecret(ctx, req.Config, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	name := plan.Name.ValueString()
	existing, err := r.Data.Nomad.GetACLAuthMethod(ctx, name)
	if err != nil {
		shared.AddNomadError(&resp.Diagnostics, "Could not check whether the ACL auth method exists", err)
		return
	}
	if existing != nil {
		resp.Diagnostics.AddAttributeError(path.Root("name"), "ACL auth method already exists",
			fmt.Sprintf("Nomad already has an ACL auth method named %q. Choose another name, or manage it here by importing "+
				"it: terraform import <address> %s", name, name))
		return
	}
	a := plan.toAuthMethod(ctx, secret, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	if err := r.Data.Nomad.CreateACLAuthMethod(ctx, a); err != nil {
		shared.AddNomadError(&resp.Diagnostics, "Could not create the ACL auth method", err)
		return
	}
	tflog.Info(ctx, "Created ACL auth method", map[string]any{"name": name, "type": a.Type})
	r.readBack(ctx, &plan, &resp.Diagnostics)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
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
	var plan aclAuthMethodModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	secret := clientSecret(ctx, req.Config, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	name := plan.Name.ValueString()
	current, err := r.Data.Nomad.GetACLAuthMethod(ctx, name)
	if err != nil {
		shared.AddNomadError(&resp.Diagnostics, "Could not read the ACL auth method before updating it", err)
		return
	}
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
	a := plan.toAuthMethod(ctx, secret, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	if err := r.Data.Nomad.UpdateACLAuthMethod(ctx, a); err != nil {
		shared.AddNomadError(&resp.Diagnostics, "Could not update the ACL auth method", err)
		return
	}
	tflog.Info(ctx, "Updated ACL auth method", map[string]any{"name": name})
	r.readBack(ctx, &plan, &resp.Diagnostics)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
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
	if err != nil || a == nil {
		if err == nil {
			err = errors.New("the auth method was written but is not there")
		}
		warnReadBack(diags, "Could not read the ACL auth method back", err)
		return
	}
	plan.fromAuthMethod(ctx, a, diags)
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
