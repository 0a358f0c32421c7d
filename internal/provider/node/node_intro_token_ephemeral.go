package node

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timetypes/timetypes"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/ephemeral"
	"github.com/hashicorp/terraform-plugin-framework/ephemeral/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/berthhq/terraform-provider-berth/internal/nomadclient"
	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
)

var (
	_ ephemeral.EphemeralResourceWithConfigure      = &nodeIntroTokenEphemeral{}
	_ ephemeral.EphemeralResourceWithValidateConfig = &nodeIntroTokenEphemeral{}
)

// NewNodeIntroTokenEphemeral builds the ephemeral berth_node_intro_token.
func NewNodeIntroTokenEphemeral() ephemeral.EphemeralResource {
	return &nodeIntroTokenEphemeral{shared.NewEphemeralBase("node_intro_token")}
}

type nodeIntroTokenEphemeral struct{ shared.EphemeralBase }

type nodeIntroTokenModel struct {
	TTL       timetypes.GoDuration `tfsdk:"ttl"`
	NodeName  types.String         `tfsdk:"node_name"`
	NodePool  types.String         `tfsdk:"node_pool"`
	JWT       types.String         `tfsdk:"jwt"`
	ExpiresAt types.String         `tfsdk:"expires_at"`
}

// minIntroTTL is the shortest ttl berth asks for: a node has to boot and
// present the token within it, and below a minute it is gone before any
// machine could. Nomad itself reads 0 as its default TTL and a negative
// TTL as a token that never expires.
const minIntroTTL = time.Minute

func (e *nodeIntroTokenEphemeral) Schema(_ context.Context, _ ephemeral.SchemaRequest, resp *ephemeral.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "A client introduction token (Nomad 1.11 and later): a JWT the cluster signs, which a new Nomad " +
			"client presents when it first registers (`client.intro_token`, `-client-intro-token` or " +
			"`NOMAD_CLIENT_INTRO_TOKEN`), so the servers (`client_introduction.enforcement` `warn` or `strict`) know " +
			"the node was expected. Made when Terraform opens it (at plan and again at apply; each open is a new " +
			"token) and handed to the configuration as an ephemeral value, never in plan or state. Nomad cannot revoke " +
			"one: `ttl` is what bounds it. Needs `node` write. On a cluster older than Nomad 1.11 the open fails naming " +
			"`berth_node_intro_token` and both versions.",
		Attributes: map[string]schema.Attribute{
			"ttl": schema.StringAttribute{Optional: true, CustomType: timetypes.GoDurationType{},
				MarkdownDescription: "How long the token is valid (a Go duration, e.g. `15m`), at least `1m`. Unset: the " +
					"servers' `client_introduction.default_identity_ttl` (Nomad's default `5m`). Nomad shortens a longer " +
					"one to `max_identity_ttl` (default `30m`) without an error; berth then warns, and `expires_at` says " +
					"when the token really ends."},
			"node_name": schema.StringAttribute{Optional: true,
				MarkdownDescription: "Name of the node the token is for (the node's `name` setting), put in the token's " +
					"`nomad_node_name` claim. Unset: any node name."},
			"node_pool": schema.StringAttribute{Optional: true, Computed: true,
				MarkdownDescription: "Node pool the node joins, put in the token's `nomad_node_pool` claim. Unset: " +
					"`default`. Not `all`, which no node can join.",
				Validators: []validator.String{introPoolValidator()}},
			"jwt": schema.StringAttribute{Computed: true, Sensitive: true,
				MarkdownDescription: "The signed token, what the new client's `intro_token` takes."},
			"expires_at": schema.StringAttribute{Computed: true,
				MarkdownDescription: "When the token expires (RFC 3339, UTC), read from its `exp` claim."},
		},
	}
}

func (e *nodeIntroTokenEphemeral) ValidateConfig(ctx context.Context, req ephemeral.ValidateConfigRequest, resp *ephemeral.ValidateConfigResponse) {
	var ttl timetypes.GoDuration
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("ttl"), &ttl)...)
	if !resp.Diagnostics.HasError() {
		checkIntroTTL(ttl, &resp.Diagnostics)
	}
}

// checkIntroTTL refuses a ttl below minIntroTTL, once, at ttl. Null,
// unknown and malformed values are left alone (a malformed one is the
// duration type's diagnostic).
func checkIntroTTL(ttl timetypes.GoDuration, diags *diag.Diagnostics) {
	if ttl.IsNull() || ttl.IsUnknown() {
		return
	}
	d, parse := ttl.ValueGoDuration()
	if parse.HasError() || d >= minIntroTTL {
		return
	}
	detail := fmt.Sprintf("ttl is %s; berth requires at least %s: a node must start and present the token before it expires.",
		ttl.ValueString(), minIntroTTL)
	switch {
	case d == 0:
		detail += " Nomad reads a TTL of 0 as its default; leave ttl unset for that."
	case d < 0:
		detail += " Nomad reads a negative TTL as no expiry at all: this token would never expire."
	}
	diags.AddAttributeError(path.Root("ttl"), "Token TTL too short", detail)
}

// introPoolValidator is Nomad's rule for a pool name, without the pool
// `all`, in which Nomad refuses to register a node.
func introPoolValidator() validator.String {
	return shared.StringRule{Summary: "Invalid node pool",
		Desc: "must be 1 to 128 letters, digits, `-` and `_`, and not `all`",
		Check: func(pool string) error {
			if !nodePoolNameRe.MatchString(pool) {
				return fmt.Errorf("%q is not a node pool name: 1 to 128 letters, digits, '-' and '_'", pool)
			}
			if pool == "all" {
				return errors.New(`"all" is Nomad's built-in pool of every node, which no node can register in`)
			}
			return nil
		}}
}

func (e *nodeIntroTokenEphemeral) Open(ctx context.Context, req ephemeral.OpenRequest, resp *ephemeral.OpenResponse) {
	var m nodeIntroTokenModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() || e.Data == nil {
		return
	}
	spec := nomadclient.NodeIntroSpec{NodeName: m.NodeName.ValueString(), NodePool: m.NodePool.ValueString()}
	if !m.TTL.IsNull() {
		ttl, d := m.TTL.ValueGoDuration()
		resp.Diagnostics.Append(d...)
		spec.TTL = ttl
	}
	if resp.Diagnostics.HasError() {
		return
	}
	tok, err := e.Data.Nomad.CreateNodeIntroToken(ctx, spec)
	if err != nil {
		shared.AddNomadError(&resp.Diagnostics, "Could not create the client introduction token", err)
		return
	}
	ctx = tflog.MaskMessageStrings(ctx, tok.JWT())
	ctx = tflog.MaskAllFieldValuesStrings(ctx, tok.JWT())
	m.JWT = types.StringValue(tok.JWT())
	pool := tok.NodePool
	if pool == "" { // a token without the claim: the pool Nomad fills in
		pool = cmp.Or(spec.NodePool, "default")
	}
	m.NodePool = types.StringValue(pool)
	m.ExpiresAt = types.StringNull()
	if !tok.ExpiresAt.IsZero() {
		m.ExpiresAt = types.StringValue(tok.ExpiresAt.Format(time.RFC3339))
	}
	if lived := tok.ExpiresAt.Sub(tok.IssuedAt); spec.TTL > 0 && !tok.IssuedAt.IsZero() && !tok.ExpiresAt.IsZero() && lived < spec.TTL-time.Second {
		resp.Diagnostics.AddAttributeWarning(path.Root("ttl"), "Token TTL shortened by Nomad",
			fmt.Sprintf("ttl asks for %s, and the cluster made a token valid for %s (until %s): its servers' "+
				"client_introduction.max_identity_ttl is lower. Lower ttl, or raise that setting.",
				spec.TTL, lived, m.ExpiresAt.ValueString()))
	}
	tflog.Info(ctx, "Created client introduction token", map[string]any{
		"node_pool": m.NodePool.ValueString(), "node_name": tok.NodeName, "expires_at": m.ExpiresAt.ValueString(),
	})
	resp.Diagnostics.Append(resp.Result.Set(ctx, &m)...)
}
