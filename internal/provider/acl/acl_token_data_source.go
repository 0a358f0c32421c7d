package acl

import (
	"context"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-timetypes/timetypes"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/berthhq/terraform-provider-berth/internal/aclpolicy"
	"github.com/berthhq/terraform-provider-berth/internal/nomadclient"
	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
)

// NewACLTokenDataSource builds the berth_acl_token data source.
func NewACLTokenDataSource() datasource.DataSource {
	return newACLDataSource("acl_token", aclTokenDataSchema, readACLToken)
}

// aclTokenDataModel is a token as the data source shows it: the
// resource's attributes less where the secret goes. Like the resource's
// model it has no field for the secret: nothing could put it into state.
type aclTokenDataModel struct{ aclTokenAttributes }

// fromToken reads t the way berth_acl_token's refresh does.
func (d *aclTokenDataModel) fromToken(ctx context.Context, t *nomadclient.ACLToken, diags *diag.Diagnostics) {
	var m aclTokenModel
	m.fromToken(ctx, t, diags)
	d.aclTokenAttributes = m.aclTokenAttributes
}

func aclTokenDataSchema() schema.Schema {
	set := func(doc string) schema.SetAttribute {
		return schema.SetAttribute{Computed: true, ElementType: types.StringType, MarkdownDescription: doc}
	}
	return schema.Schema{
		MarkdownDescription: "One ACL token, by accessor ID: its name, type, policies, roles and lifetime. Never its " +
			"secret: berth keeps secrets out of state, so unlike hashicorp/nomad's `nomad_acl_token` data source (whose " +
			"other attribute names it shares) it has no `secret_id`. For a secret that Terraform uses during a run, the " +
			"ephemeral resource `berth_acl_token` creates a short-lived token and gives its secret to that run only; a " +
			"`berth_acl_token` resource's secret is in the Variable its `secret_variable_path` names (read it with the " +
			"ephemeral `berth_variable`). `roles` holds role IDs (as `berth_acl_token` does). Needs a management token.",
		Attributes: map[string]schema.Attribute{
			"id": computedString("The token's accessor ID."),
			"accessor_id": schema.StringAttribute{Required: true,
				MarkdownDescription: "Accessor ID of the token to read (public; never give the secret here)."},
			"name":     computedString("Name; null when unnamed."),
			"type":     computedString("`client` or `management`."),
			"policies": set("Names of the ACL policies the token has; null when none."),
			"roles":    set("IDs of the ACL roles the token has; null when none."),
			"global":   schema.BoolAttribute{Computed: true, MarkdownDescription: "Whether the token is replicated to every region."},
			"expiration_ttl": schema.StringAttribute{Computed: true, CustomType: timetypes.GoDurationType{},
				MarkdownDescription: "The TTL the token was created with (a Go duration); null when it does not expire."},
			"expiration_time": computedString("When the token expires (RFC 3339); null when it does not."),
			"create_time":     computedString("When Nomad created the token (RFC 3339)."),
		},
	}
}

// Read never repeats the accessor ID it was given in an error: someone
// might have put a secret there.
func readACLToken(ctx context.Context, data *shared.ProviderData, m *aclTokenDataModel, diags *diag.Diagnostics) {
	var tok *nomadclient.ACLToken
	var err error
	missing := "Nomad has no ACL token with the accessor ID given (berth does not repeat it: it might be a secret). " +
		"List the tokens with `nomad acl token list` or the `berth_acl_tokens` data source."
	if accessor := m.AccessorID.ValueString(); aclpolicy.IsID(accessor) {
		tok, err = data.Nomad.GetACLToken(ctx, accessor)
	} else {
		missing = "The accessor ID given is not a UUID (berth does not repeat it: it might be a secret). Give the " +
			"token's accessor ID, never its secret."
	}
	var lookup diag.Diagnostics
	ok := found(&lookup, path.Root("accessor_id"), "ACL token", tok, err, missing)
	diags.Append(withoutValue(lookup, m.AccessorID.ValueString())...)
	if ok {
		m.fromToken(ctx, tok, diags)
	}
}

// withoutValue is the error diagnostics ds with v, a value that might be
// a secret, replaced wherever Nomad's answer repeated it.
func withoutValue(ds diag.Diagnostics, v string) diag.Diagnostics {
	if v == "" {
		return ds
	}
	out := make(diag.Diagnostics, 0, len(ds))
	for _, d := range ds {
		summary := strings.ReplaceAll(d.Summary(), v, "(the accessor ID given)")
		detail := strings.ReplaceAll(d.Detail(), v, "(the accessor ID given)")
		if wp, ok := d.(diag.DiagnosticWithPath); ok {
			out.AddAttributeError(wp.Path(), summary, detail)
		} else {
			out.AddError(summary, detail)
		}
	}
	return out
}
