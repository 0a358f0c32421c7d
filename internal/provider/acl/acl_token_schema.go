package acl

import (
	"github.com/hashicorp/terraform-plugin-framework-timetypes/timetypes"
	"github.com/hashicorp/terraform-plugin-framework-validators/setvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/boolplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/berthhq/terraform-provider-berth/internal/nomadclient"
	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
	"github.com/berthhq/terraform-provider-berth/internal/variable"
)

// secretPathValidator is Nomad's rule for Variable paths, less the ones a
// workload reads with no ACL policy (variable.CheckSecretPath): a token's
// secret there would be handed to any job of a matching name.
func secretPathValidator() validator.String {
	return shared.StringRule{Summary: "Invalid secret Variable path", Check: variable.CheckSecretPath,
		Desc: "must be a Variable path Nomad accepts, outside `nomad/jobs` (which workloads read with no ACL policy)"}
}

// maxTokenName is the longest token name Nomad accepts.
const maxTokenName = 256

var tokenTypes = []string{nomadclient.ACLTokenTypeClient, nomadclient.ACLTokenTypeManagement}

func aclTokenSchema() schema.Schema {
	return schema.Schema{
		MarkdownDescription: "A Nomad ACL token. Nomad generates the token's secret and does not accept one from the caller, " +
			"so berth never stores it: berth writes it to the Nomad Variable `secret_variable_path` (items `secret_id` and " +
			"`accessor_id`), from which the user reads it with an ephemeral resource or `nomad var get`, and state holds " +
			"only the accessor ID. For a short-lived token whose secret Terraform itself uses, see the ephemeral " +
			"`berth_acl_token`. Needs a management token.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{Computed: true, MarkdownDescription: "The token's accessor ID.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()}},
			"accessor_id": schema.StringAttribute{Computed: true, MarkdownDescription: "The token's accessor ID (public; " +
				"not the secret).", PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()}},
			"name": schema.StringAttribute{Optional: true, MarkdownDescription: "Human-readable name, at most 256 characters.",
				Validators: []validator.String{stringvalidator.LengthBetween(1, maxTokenName)}},
			"type": schema.StringAttribute{Optional: true, Computed: true, Default: stringdefault.StaticString(nomadclient.ACLTokenTypeClient),
				MarkdownDescription: "Token type: " + shared.BacktickList(tokenTypes) + ". A `client` token has the " +
					"capabilities of its policies and roles (it needs at least one); a `management` token can do anything " +
					"and takes neither. Default `client`.",
				Validators: []validator.String{stringvalidator.OneOf(tokenTypes...)}},
			"policies": schema.SetAttribute{Optional: true, ElementType: types.StringType,
				MarkdownDescription: "Names of the ACL policies the token has (`client` tokens).",
				Validators:          []validator.Set{setvalidator.ValueStringsAre(stringvalidator.LengthAtLeast(1))}},
			"roles": schema.SetAttribute{Optional: true, ElementType: types.StringType,
				MarkdownDescription: "IDs of the ACL roles the token has (`client` tokens), e.g. `berth_acl_role.x.id`.",
				Validators:          []validator.Set{setvalidator.ValueStringsAre(stringvalidator.LengthAtLeast(1))}},
			"global": schema.BoolAttribute{Optional: true, Computed: true, Default: booldefault.StaticBool(false),
				MarkdownDescription: "Whether the token is replicated to every region (created in the authoritative " +
					"region). Nomad cannot change it: changing it replaces the token.",
				PlanModifiers: []planmodifier.Bool{boolplanmodifier.RequiresReplace()}},
			"expiration_ttl": schema.StringAttribute{Optional: true, Computed: true, CustomType: timetypes.GoDurationType{},
				MarkdownDescription: "How long the token lives from its creation (a Go duration such as `24h`), within the " +
					"cluster's `acl.token_min_expiration_ttl` and `token_max_expiration_ttl` (Nomad's defaults: 1m and 24h); " +
					"at least `1m`. Unset: the token does not expire. Nomad cannot change it, so changing it replaces the token; an expired " +
					"token is gone from Nomad, and the next plan creates it again.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown(), stringplanmodifier.RequiresReplaceIf(
					ttlChanged, "A new TTL replaces the token.", "A new TTL replaces the token.")}},
			"expiration_time": schema.StringAttribute{Computed: true, MarkdownDescription: "When the token expires (RFC 3339); " +
				"null when it does not.", PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()}},
			"create_time": schema.StringAttribute{Computed: true, MarkdownDescription: "When Nomad created the token (RFC 3339).",
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()}},
			"secret_variable_path": schema.StringAttribute{Optional: true,
				MarkdownDescription: "Path of the Nomad Variable berth writes the token's secret to (items `secret_id` and " +
					"`accessor_id`). berth creates it and deletes it with the token; it never overwrites a Variable it did " +
					"not write for this token. Read it with an ephemeral resource (e.g. `ephemeral \"berth_variable\"`) or " +
					"`nomad var get`. Whoever may read that path holds the token: a management token, any token whose " +
					"policy grants `read` on the path's namespace and prefix (`variables { path \"<prefix>\" { " +
					"capabilities = [\"read\"] } }`), so give it an ACL policy of its own. Paths under `nomad/jobs` " +
					"are refused: Nomad lets every job in the namespace read `nomad/jobs`, and job `J` read " +
					"`nomad/jobs/J` and below, with no policy at all. " +
					"Unset: the secret goes nowhere (a token moved or imported whose secret is already handed out). " +
					"A Variable deleted or changed outside Terraform is drift: the plan shows this attribute and the apply " +
					"writes it again.",
				Validators: []validator.String{secretPathValidator()}},
			"secret_variable_namespace": schema.StringAttribute{Optional: true, Computed: true, Default: stringdefault.StaticString("default"),
				MarkdownDescription: "Namespace of `secret_variable_path`. Default `default`.",
				Validators:          []validator.String{shared.NamespaceValidator()}},
		},
	}
}
