package variable

import (
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
	"github.com/berthhq/terraform-provider-berth/internal/variable"
)

// pathValidator is Nomad's rule for Variable paths (variable.CheckPath).
func pathValidator() validator.String {
	return shared.StringRule{Summary: "Invalid Variable path", Check: variable.CheckPath,
		Desc: "must be 1 to 128 letters, digits, `-`, `_`, `~` and `/`; under the reserved `nomad/` only `nomad/jobs` and below " +
			"or `nomad/job-templates/<name>`"}
}

const casDoc = " Every write is check-and-set: an update or a destroy is sent with the modify index berth last read, so " +
	"a change made in Nomad after the plan makes the apply fail, naming it, instead of being overwritten unseen."

func variableSchema() schema.Schema {
	replace := []planmodifier.String{stringplanmodifier.RequiresReplace()}
	return schema.Schema{
		MarkdownDescription: "A Nomad Variable: items at a path in a namespace, which jobs read through their workload " +
			"identity (`nomadVar` in templates). Plain items are kept in state (`items`); secret items are write-only " +
			"(`items_wo`, with `items_wo_version` to rotate them) and never reach the plan or state: state holds only " +
			"their keys. Only a value berth holds as a plain item is ever stored or shown: an item added in Nomad, " +
			"a plain value changed there, every item of an import, and a write-only item whose write lost its reply " +
			"are recorded by key only (in `items_wo_keys`, with a warning naming them). Drift made in Nomad shows by " +
			"name in the plan: a plain item removed (in `items`), such an item by key (in `items_wo_keys`), a secret " +
			"item removed (in `items_wo_keys`), and a write by anyone else after berth's last one, which may have " +
			"changed a secret value berth cannot see (`items_wo_in_sync`); the apply writes the configuration back." + casDoc,
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{Computed: true, MarkdownDescription: "`<namespace>/<path>`.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()}},
			"path": schema.StringAttribute{Required: true, PlanModifiers: replace, Validators: []validator.String{pathValidator()},
				MarkdownDescription: "Path of the Variable: 1 to 128 letters, digits, `-`, `_`, `~` and `/`. Under Nomad's " +
					"reserved `nomad/`, only `nomad/jobs` and below (`nomad/jobs/<job>[/<group>[/<task>]]` is readable by " +
					"that job's tasks with no ACL policy) and `nomad/job-templates/<name>`. Changing it replaces the Variable."},
			"namespace": schema.StringAttribute{Optional: true, Computed: true, Default: stringdefault.StaticString(variable.DefaultNamespace),
				PlanModifiers: replace, Validators: []validator.String{shared.NamespaceValidator()},
				MarkdownDescription: "Namespace of the Variable. Default `default`. Changing it replaces the Variable."},
			"items": schema.MapAttribute{Optional: true, ElementType: types.StringType,
				MarkdownDescription: "Plain items, stored in state and shown in plans. Put secrets in `items_wo`. A key may " +
					"not be in both. Nomad refuses a Variable with no items, and more than 64 KiB of keys and values."},
			"items_wo": schema.MapAttribute{Optional: true, WriteOnly: true, Sensitive: true, ElementType: types.StringType,
				MarkdownDescription: "Secret items, **write-only**: needs Terraform 1.11 or later; the values are never " +
					"stored in the plan or state, only their keys (`items_wo_keys`). Requires `items_wo_version`; **bump " +
					"the version to write new values** (berth cannot see that a value changed). They are also written " +
					"again with every other change of the Variable (a Variable is written whole), and when " +
					"`items_wo_in_sync` found a write by someone else."},
			"items_wo_version": schema.Int64Attribute{Optional: true,
				MarkdownDescription: "Version of `items_wo`, stored in state: set it with `items_wo` and change it " +
					"whenever their values change."},
			"items_wo_keys": schema.SetAttribute{Computed: true, ElementType: types.StringType,
				MarkdownDescription: "Keys of the write-only items, as the configuration gives them and as a refresh " +
					"finds them in Nomad (a key removed in Nomad is missing here, and the plan puts it back), and of " +
					"every item whose value berth withholds because it did not write it as plain (added or changed in " +
					"Nomad, imported, or written by an apply whose reply was lost)."},
			"items_wo_in_sync": schema.BoolAttribute{Computed: true,
				MarkdownDescription: "Whether nobody but berth has written the Variable since berth last wrote its " +
					"write-only items. A refresh that finds the Variable at a newer modify index than berth's own " +
					"write sets it to `false` (a secret value may have changed; berth keeps no copy or digest of " +
					"them to compare), and the plan shows it going back to `true`: the apply writes every item again."},
			"modify_index": schema.Int64Attribute{Computed: true,
				MarkdownDescription: "The Variable's modify index in Nomad when berth last read or wrote it: the " +
					"check-and-set index of the next update or destroy."},
		},
	}
}
