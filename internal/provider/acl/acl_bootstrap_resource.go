package acl

import (
	"context"
	"errors"
	"fmt"
	"regexp"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/berthhq/terraform-provider-berth/internal/nomadclient"
	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
)

var (
	_ resource.ResourceWithConfigure   = &aclBootstrapResource{}
	_ resource.ResourceWithImportState = &aclBootstrapResource{}
)

// uuidRe is the form Nomad requires of a bootstrap secret.
var uuidRe = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

// checkBootstrapSecret requires a UUID; its error never repeats the value,
// which is a secret.
func checkBootstrapSecret(s string) error {
	if !uuidRe.MatchString(s) {
		return errors.New("the value (not shown: it is a secret) is not a UUID, and Nomad accepts only a UUID as the " +
			"bootstrap secret; generate one (e.g. uuidgen) and pass it through an ephemeral variable")
	}
	return nil
}

// NewACLBootstrapResource builds the berth_acl_bootstrap resource.
func NewACLBootstrapResource() resource.Resource {
	return &aclBootstrapResource{shared.NewResourceBase("acl_bootstrap")}
}

type aclBootstrapResource struct{ shared.ResourceBase }

type aclBootstrapModel struct {
	ID              types.String `tfsdk:"id"`
	AccessorID      types.String `tfsdk:"accessor_id"`
	BootstrapSecret types.String `tfsdk:"bootstrap_secret_wo"`
}

func (r *aclBootstrapResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	keep := []planmodifier.String{stringplanmodifier.UseStateForUnknown()}
	resp.Schema = schema.Schema{
		MarkdownDescription: "Bootstraps the ACL system of a fresh, ACL-enabled Nomad cluster with a secret the " +
			"configuration supplies, so the same configuration can give that secret to a second provider block " +
			"(`provider \"berth\" { alias = \"admin\", token = ... }`) and manage ACL-protected objects in the same apply. " +
			"berth never stores the secret: state holds the bootstrap token's accessor ID only.\n\n" +
			"A cluster cannot be un-bootstrapped: destroy only removes this resource from state. It does not delete the " +
			"bootstrap token, which may be the only management token left (deleting it would lock everyone out until an " +
			"operator resets the bootstrap on a server's disk); revoke it yourself once other management tokens exist. " +
			"Refresh does not read Nomad: the resource records that the bootstrap was done, which stays true whether or " +
			"not the token still exists, and the provider that bootstraps usually has no token to read it with.",
		Attributes: map[string]schema.Attribute{
			"id":          schema.StringAttribute{Computed: true, MarkdownDescription: "The bootstrap token's accessor ID.", PlanModifiers: keep},
			"accessor_id": schema.StringAttribute{Computed: true, MarkdownDescription: "The bootstrap token's accessor ID.", PlanModifiers: keep},
			"bootstrap_secret_wo": schema.StringAttribute{Required: true, WriteOnly: true, Sensitive: true,
				MarkdownDescription: "The management token's secret, a UUID (Nomad's requirement), given write-only: from an " +
					"ephemeral variable or an ephemeral resource, never stored in plan or state. Used once, at create; " +
					"changing it later changes nothing (a cluster is bootstrapped once).",
				Validators: []validator.String{shared.StringRule{Summary: "Invalid bootstrap secret",
					Desc: "must be a UUID (Nomad accepts only a UUID as the bootstrap secret)", Check: checkBootstrapSecret}}},
		},
	}
}

func (r *aclBootstrapResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var secret types.String
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("bootstrap_secret_wo"), &secret)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if secret.IsNull() || secret.IsUnknown() {
		resp.Diagnostics.AddAttributeError(path.Root("bootstrap_secret_wo"), "No bootstrap secret",
			"bootstrap_secret_wo has no value at apply. Give it a UUID from an ephemeral variable or an ephemeral resource.")
		return
	}
	ctx = tflog.MaskMessageStrings(ctx, secret.ValueString())
	ctx = tflog.MaskAllFieldValuesStrings(ctx, secret.ValueString())
	accessor, err := r.Data.Nomad.BootstrapACL(ctx, secret.ValueString())
	var done *nomadclient.AlreadyBootstrappedError
	switch {
	case errors.As(err, &done):
		resp.Diagnostics.AddError("ACL system already bootstrapped",
			fmt.Sprintf("Nomad said: %v. This cluster was bootstrapped before, and Nomad bootstraps once. To manage that "+
				"bootstrap here, import it by the bootstrap token's accessor ID (terraform import <address> <accessor>); "+
				"otherwise remove this resource and give the provider an existing management token.", done.Err))
		return
	case err != nil:
		shared.AddNomadError(&resp.Diagnostics, "Could not bootstrap the ACL system", err)
		return
	}
	tflog.Info(ctx, "Bootstrapped the ACL system", map[string]any{"accessor_id": accessor})
	m := aclBootstrapModel{ID: types.StringValue(accessor), AccessorID: types.StringValue(accessor), BootstrapSecret: types.StringNull()}
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

// Read keeps the state: the bootstrap happened, whatever became of its
// token since (see the resource's description).
func (r *aclBootstrapResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var m aclBootstrapModel
	resp.Diagnostics.Append(req.State.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	m.BootstrapSecret = types.StringNull()
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

// Update has nothing to write: every attribute is computed or write-only.
func (r *aclBootstrapResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var m aclBootstrapModel
	resp.Diagnostics.Append(req.State.Get(ctx, &m)...)
	m.BootstrapSecret = types.StringNull()
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

// Delete forgets the bootstrap; the cluster stays bootstrapped and the
// token stays.
func (r *aclBootstrapResource) Delete(ctx context.Context, req resource.DeleteRequest, _ *resource.DeleteResponse) {
	var m aclBootstrapModel
	_ = req.State.Get(ctx, &m)
	tflog.Info(ctx, "Removed the ACL bootstrap from state; the cluster stays bootstrapped and its token was not deleted",
		map[string]any{"accessor_id": m.AccessorID.ValueString()})
}

// ImportState adopts a bootstrap done elsewhere, by its token's accessor
// ID; the provider's token must be able to read it.
func (r *aclBootstrapResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	tok, err := r.Data.Nomad.GetACLToken(ctx, req.ID)
	if err != nil {
		shared.AddNomadError(&resp.Diagnostics, "Cannot import the ACL bootstrap", err)
		return
	}
	if tok == nil || tok.Type != nomadclient.ACLTokenTypeManagement {
		resp.Diagnostics.AddError("Bootstrap token not found",
			"Nomad has no management token with the accessor ID given. Import the bootstrap by its token's accessor ID "+
				"(never the secret): `nomad acl token list` shows it, usually named \"Bootstrap Token\".")
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), tok.AccessorID)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("accessor_id"), tok.AccessorID)...)
}
