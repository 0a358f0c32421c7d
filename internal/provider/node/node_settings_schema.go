package node

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-timetypes/timetypes"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
)

func nodeSettingsSchema(ctx context.Context) schema.Schema {
	keep := []planmodifier.String{stringplanmodifier.UseStateForUnknown()}
	return schema.Schema{
		MarkdownDescription: "What an operator sets on one Nomad node: scheduling eligibility, a drain that the apply " +
			"waits for, and node metadata. berth owns only what is configured (the metadata keys it sets, eligibility " +
			"when `eligible` is set, the drain while `drain` is set), records how it found the node, and destroy puts " +
			"that back. A node is never deleted.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{Computed: true, PlanModifiers: keep,
				MarkdownDescription: "The node's ID."},
			"node_id": schema.StringAttribute{Optional: true, Computed: true, PlanModifiers: keep,
				Validators:          []validator.String{shared.NodeIDValidator()},
				MarkdownDescription: "The node's full ID. Set exactly one of `node_id` and `node_name`; naming another node replaces the resource (the first node is put back)."},
			"node_name": schema.StringAttribute{Optional: true, Computed: true, PlanModifiers: keep,
				Validators:          []validator.String{shared.LookupNameValidator()},
				MarkdownDescription: "The node's name, which must name exactly one node."},
			"eligible": schema.BoolAttribute{Optional: true, Computed: true,
				MarkdownDescription: "Whether the scheduler may place new work on the node. Unset: berth leaves it as it " +
					"is (and reports it). Cannot be `true` while `drain` is set: a draining or drained node is ineligible."},
			"drain": schema.SingleNestedAttribute{Optional: true,
				MarkdownDescription: "Drain the node: Nomad moves its allocations to other nodes (each job's `migrate` " +
					"block paces it) and marks it ineligible. The apply waits until the drain ends. When the deadline " +
					"passes, Nomad stops what is still on the node; allocations it stopped without a replacement " +
					"elsewhere fail the apply, named. A drained node stays ineligible; removing `drain` (or destroying the " +
					"resource) ends a drain under way and makes the node eligible again if it was when berth found it (or as " +
					"`eligible` says). Node reservations' hold jobs on the node are evicted like any job: their capacity " +
					"is not held while the node is drained.",
				Attributes: map[string]schema.Attribute{
					"deadline": schema.StringAttribute{Optional: true, CustomType: timetypes.GoDurationType{},
						MarkdownDescription: "How long Nomad lets allocations move before it stops the rest, as a Go duration " +
							"(`30m`). Default `1h`, as `nomad node drain`. `0s`: no deadline."},
					"ignore_system_jobs": schema.BoolAttribute{Optional: true, Computed: true, Default: booldefault.StaticBool(false),
						MarkdownDescription: "Leave system jobs' allocations running. Default `false`."},
					"force": schema.BoolAttribute{Optional: true, Computed: true, Default: booldefault.StaticBool(false),
						MarkdownDescription: "Stop every allocation at once instead of moving them first. Default `false`."},
				}},
			"meta": schema.MapAttribute{Optional: true, ElementType: types.StringType,
				MarkdownDescription: "Node metadata berth sets (Nomad's dynamic node metadata, which jobs read as " +
					"`${meta.<key>}`), over what the node's agent configuration sets. berth owns only these keys: other keys " +
					"are untouched, and a change to one of them made elsewhere shows in the next plan. The apply waits until " +
					"Nomad's servers hold the new values, so a job constrained on them can be placed right after. Removing " +
					"a key (or destroying the resource) gives it back the value it had before berth set it."},
			"node_pool": schema.StringAttribute{Computed: true, PlanModifiers: keep,
				MarkdownDescription: "The node's pool. Read-only: Nomad 1.10 takes a node's pool only from its agent's " +
					"configuration, with no API to move a node."},
			"status": schema.StringAttribute{Computed: true,
				MarkdownDescription: "The node's status (`ready`, `down`, `initializing`, `disconnected`)."},
			"timeouts": timeouts.Attributes(ctx, timeouts.Opts{Create: true, Update: true, Delete: true}),
		},
	}
}
