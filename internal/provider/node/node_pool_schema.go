package node

import (
	"regexp"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
)

// nodePoolNameRe is Nomad's rule for node pool names.
var nodePoolNameRe = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,128}$`)

// nodePoolSchedulerAlgorithms are the algorithms a pool's scheduler
// configuration may name (Nomad Enterprise only).
var nodePoolSchedulerAlgorithms = []string{"binpack", "spread"}

// maxNodePoolDescription is the longest description Nomad accepts.
const maxNodePoolDescription = 256

// enterpriseOnlyDoc is said of the scheduler settings Nomad CE refuses.
const enterpriseOnlyDoc = " Nomad Enterprise only: Nomad CE refuses a pool with a scheduler configuration, and berth reports " +
	"that refusal at apply without creating or changing the pool."

func nodePoolSchema() schema.Schema {
	return schema.Schema{
		MarkdownDescription: "A Nomad node pool: a named group of client nodes that jobs (`node_pool` of `berth_instance` " +
			"and `berth_job`) are placed into. Nodes join a pool through their agent configuration (`client.node_pool`), " +
			"not through this resource. Nomad's built-in pools `all` and `default` cannot be managed. Destroy deletes the " +
			"pool; Nomad refuses while nodes or unfinished jobs are still in it.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{Computed: true, MarkdownDescription: "The pool's name.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()}},
			"name": schema.StringAttribute{Required: true,
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
				MarkdownDescription: "Pool name: 1 to 128 letters, digits, `-` and `_`; not `all` or `default` (Nomad's " +
					"built-in pools). Changing it replaces the pool.",
				Validators: []validator.String{stringvalidator.RegexMatches(nodePoolNameRe,
					"must be 1 to 128 letters, digits, '-' and '_' (Nomad's rule for node pool names)")}},
			"description": schema.StringAttribute{Optional: true,
				MarkdownDescription: "Description, at most 256 characters.",
				Validators:          []validator.String{stringvalidator.LengthAtMost(maxNodePoolDescription)}},
			"meta": schema.MapAttribute{Optional: true, ElementType: types.StringType,
				MarkdownDescription: "Metadata of the pool (not of its nodes)."},
			"scheduler_algorithm": schema.StringAttribute{Optional: true,
				MarkdownDescription: "Scheduler algorithm for the pool's nodes: " + shared.BacktickList(nodePoolSchedulerAlgorithms) +
					". Unset: the cluster's." + enterpriseOnlyDoc,
				Validators: []validator.String{stringvalidator.OneOf(nodePoolSchedulerAlgorithms...)}},
			"memory_oversubscription": schema.BoolAttribute{Optional: true,
				MarkdownDescription: "Whether tasks in the pool may use more memory than they reserve (`memory_max`). " +
					"Unset: the cluster's setting." + enterpriseOnlyDoc},
		},
	}
}
