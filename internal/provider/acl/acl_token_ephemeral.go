package acl

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework-timetypes/timetypes"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/ephemeral"
	"github.com/hashicorp/terraform-plugin-framework/ephemeral/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/berthhq/terraform-provider-berth/internal/nomadclient"
	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
)

var (
	_ ephemeral.EphemeralResourceWithConfigure      = &aclTokenEphemeral{}
	_ ephemeral.EphemeralResourceWithClose          = &aclTokenEphemeral{}
	_ ephemeral.EphemeralResourceWithValidateConfig = &aclTokenEphemeral{}
)

// NewACLTokenEphemeral builds the ephemeral berth_acl_token.
func NewACLTokenEphemeral() ephemeral.EphemeralResource {
	return &aclTokenEphemeral{shared.NewEphemeralBase("acl_token")}
}

type aclTokenEphemeral struct{ shared.EphemeralBase }

type aclTokenEphemeralModel struct {
	Name           types.String         `tfsdk:"name"`
	Type           types.String         `tfsdk:"type"`
	Policies       types.Set            `tfsdk:"policies"`
	Roles          types.Set            `tfsdk:"roles"`
	TTL            timetypes.GoDuration `tfsdk:"ttl"`
	AccessorID     types.String         `tfsdk:"accessor_id"`
	SecretID       types.String         `tfsdk:"secret_id"`
	ExpirationTime types.String         `tfsdk:"expiration_time"`
}

// ephemeralTokenKey is the private-data key under which Open leaves the
// accessor ID for Close.
const ephemeralTokenKey = "token"

type ephemeralTokenPrivate struct {
	AccessorID string `json:"accessor_id"`
}

func (e *aclTokenEphemeral) Schema(_ context.Context, _ ephemeral.SchemaRequest, resp *ephemeral.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "A short-lived ACL token for this Terraform run: created when Terraform opens it (at plan and " +
			"again at apply), its secret handed to the configuration as an ephemeral value (never in plan or state), and " +
			"deleted when Terraform closes it at the end of the run. `ttl` bounds its life should the close never come " +
			"(Terraform killed). Use it for a second provider block or a write-only attribute. Needs a management token.",
		Attributes: map[string]schema.Attribute{
			"name": schema.StringAttribute{Optional: true, MarkdownDescription: "Token name.",
				Validators: []validator.String{stringvalidator.LengthBetween(1, maxTokenName)}},
			"type": schema.StringAttribute{Optional: true, MarkdownDescription: "`client` (default) or `management`.",
				Validators: []validator.String{stringvalidator.OneOf(tokenTypes...)}},
			"policies": schema.SetAttribute{Optional: true, ElementType: types.StringType, MarkdownDescription: "ACL policy names."},
			"roles":    schema.SetAttribute{Optional: true, ElementType: types.StringType, MarkdownDescription: "ACL role IDs."},
			"ttl": schema.StringAttribute{Required: true, CustomType: timetypes.GoDurationType{},
				MarkdownDescription: "How long the token lives at most (a Go duration, e.g. `10m`): at least `1m` (a TTL " +
					"of 0 is no expiry to Nomad), and within the cluster's token TTL bounds (Nomad's defaults: 1m to 24h)."},
			"accessor_id": schema.StringAttribute{Computed: true, MarkdownDescription: "The token's accessor ID."},
			"secret_id": schema.StringAttribute{Computed: true, Sensitive: true,
				MarkdownDescription: "The token's secret: what a provider's `token` or `NOMAD_TOKEN` takes."},
			"expiration_time": schema.StringAttribute{Computed: true, MarkdownDescription: "When the token expires (RFC 3339)."},
		},
	}
}

func (e *aclTokenEphemeral) ValidateConfig(ctx context.Context, req ephemeral.ValidateConfigRequest, resp *ephemeral.ValidateConfigResponse) {
	var m aclTokenEphemeralModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if !resp.Diagnostics.HasError() {
		checkTokenGrants(m.Type, m.Policies, m.Roles, &resp.Diagnostics)
		checkTokenTTL(m.TTL, "ttl", " The ttl is what bounds the token's life should Terraform never close it.", &resp.Diagnostics)
	}
}

func (e *aclTokenEphemeral) Open(ctx context.Context, req ephemeral.OpenRequest, resp *ephemeral.OpenResponse) {
	var m aclTokenEphemeralModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() || e.Data == nil {
		return
	}
	spec := nomadclient.ACLTokenSpec{Name: m.Name.ValueString(), Type: m.Type.ValueString()}
	if spec.Type == "" {
		spec.Type = nomadclient.ACLTokenTypeClient
	}
	resp.Diagnostics.Append(m.Policies.ElementsAs(ctx, &spec.Policies, true)...)
	resp.Diagnostics.Append(m.Roles.ElementsAs(ctx, &spec.Roles, true)...)
	ttl, d := m.TTL.ValueGoDuration()
	resp.Diagnostics.Append(d...)
	if resp.Diagnostics.HasError() {
		return
	}
	spec.ExpirationTTL = ttl
	tok, err := e.Data.Nomad.CreateACLToken(ctx, spec)
	if err != nil {
		shared.AddNomadError(&resp.Diagnostics, "Could not create the ephemeral ACL token", err)
		return
	}
	ctx = tflog.MaskMessageStrings(ctx, tok.Secret())
	ctx = tflog.MaskAllFieldValuesStrings(ctx, tok.Secret())
	priv, _ := json.Marshal(ephemeralTokenPrivate{AccessorID: tok.AccessorID})
	resp.Diagnostics.Append(resp.Private.SetKey(ctx, ephemeralTokenKey, priv)...)
	m.AccessorID, m.SecretID = types.StringValue(tok.AccessorID), types.StringValue(tok.Secret())
	m.ExpirationTime = timeOrNull(tok.ExpirationTime)
	tflog.Info(ctx, "Created ephemeral ACL token", map[string]any{"accessor_id": tok.AccessorID})
	resp.Diagnostics.Append(resp.Result.Set(ctx, &m)...)
}

// Close deletes the token: revoked when Terraform is done with it.
func (e *aclTokenEphemeral) Close(ctx context.Context, req ephemeral.CloseRequest, resp *ephemeral.CloseResponse) {
	raw, d := req.Private.GetKey(ctx, ephemeralTokenKey)
	resp.Diagnostics.Append(d...)
	var priv ephemeralTokenPrivate
	if len(raw) == 0 || json.Unmarshal(raw, &priv) != nil || priv.AccessorID == "" || e.Data == nil {
		return
	}
	if err := e.Data.Nomad.DeleteACLToken(ctx, priv.AccessorID); err != nil {
		shared.AddNomadError(&resp.Diagnostics, "Could not revoke the ephemeral ACL token",
			fmt.Errorf("%w (it expires by itself at the end of its ttl; delete it now with: nomad acl token delete %s)", err, priv.AccessorID))
		return
	}
	tflog.Info(ctx, "Revoked ephemeral ACL token", map[string]any{"accessor_id": priv.AccessorID})
}
