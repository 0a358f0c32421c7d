package node

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-timetypes/timetypes"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64default"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/objectplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/berthhq/terraform-provider-berth/internal/ledger"
	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
)

func strategies() []string {
	out := make([]string, len(ledger.Strategies()))
	for i, s := range ledger.Strategies() {
		out[i] = string(s)
	}
	return out
}

// nodeReservationSchema is the schema of berth_node_reservation.
func nodeReservationSchema(ctx context.Context) schema.Schema {
	amount := func(desc string) schema.Int64Attribute {
		return schema.Int64Attribute{Optional: true, Computed: true, Default: int64default.StaticInt64(0),
			MarkdownDescription: desc + " Default `0`; changed in place.", Validators: []validator.Int64{int64validator.AtLeast(0)}}
	}
	computed := func(desc string) schema.StringAttribute {
		return schema.StringAttribute{Computed: true, MarkdownDescription: desc}
	}
	return schema.Schema{
		MarkdownDescription: "A named hold on CPU, memory and disk of one node, kept in a check-and-set ledger in Nomad " +
			"Variables (`berth/nodes/<node-id>` in the provider's `ledger_namespace`) so no node is ever double-booked, even when " +
			"several `terraform apply` runs race, and held in Nomad's own scheduler by a hold job sized to the unused budget, so " +
			"work submitted any other way cannot be placed into it either (see `hold`). Without `node_id`, berth schedules the " +
			"reservation onto a node. Instances, volumes and leases can then be placed into it with their `node_reservation` attribute.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{Computed: true, MarkdownDescription: "`<node_id>/<name>`.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()}},
			"name": schema.StringAttribute{Required: true, MarkdownDescription: "Name, unique per node. Changing it replaces the reservation." + shared.NameRuleDoc,
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
				Validators:    []validator.String{shared.NameValidator()}},
			"node_id": schema.StringAttribute{Optional: true, Computed: true,
				MarkdownDescription: "Full ID of the node to reserve on. When unset berth picks a node (see `placement`) and reports it here. Changing it replaces the reservation.",
				PlanModifiers:       []planmodifier.String{stringplanmodifier.RequiresReplaceIfConfigured(), stringplanmodifier.UseStateForUnknown()},
				Validators:          []validator.String{shared.NodeIDValidator()}},
			"placement": schema.SingleNestedAttribute{
				Optional: true,
				MarkdownDescription: "Where to schedule the reservation when `node_id` is unset. Candidates are nodes that are " +
					"ready, eligible and not draining, match these filters and have room. Conflicts with `node_id`. " +
					"Changing a filter replaces the reservation; changing only `strategy` once the node is chosen changes nothing in Nomad.",
				PlanModifiers: []planmodifier.Object{objectplanmodifier.RequiresReplaceIf(placementChanged,
					"A new placement filter replaces the reservation.", "A new placement filter replaces the reservation.")},
				Attributes: map[string]schema.Attribute{
					"datacenter": schema.StringAttribute{Optional: true, MarkdownDescription: "Only nodes in this datacenter."},
					"node_pool":  schema.StringAttribute{Optional: true, MarkdownDescription: "Only nodes in this node pool."},
					"node_class": schema.StringAttribute{Optional: true, MarkdownDescription: "Only nodes of this class."},
					"strategy": schema.StringAttribute{Optional: true, Computed: true, Default: stringdefault.StaticString(string(ledger.Binpack)),
						MarkdownDescription: "`binpack` picks the node left with the least free capacity (Nomad's default), `spread` the most; " +
							"ties go to the lowest node ID. One of " + shared.BacktickList(strategies()) + ". Default `binpack`.",
						Validators: []validator.String{stringvalidator.OneOf(strategies()...)}},
				},
			},
			"cpu":         amount("CPU in MHz."),
			"memory":      amount("Memory in MiB."),
			"disk":        amount("Disk in MiB."),
			"annotations": schema.MapAttribute{Optional: true, ElementType: types.StringType, MarkdownDescription: "Free-form labels kept with the reservation."},
			"node_name":   computed("Name of the node."),
			"datacenter":  computed("Datacenter of the node."),
			"node_status": computed("Status of the node; `gone` when it left the cluster (the reservation is kept, never silently moved)."),
			"created_at": schema.StringAttribute{Computed: true, CustomType: timetypes.RFC3339Type{},
				MarkdownDescription: "When the reservation was made, RFC 3339."},
			"used":   nodeReservationUsedAttribute(),
			"hold":   nodeReservationHoldAttribute(),
			"unheld": nodeReservationUnheldAttribute(),
			"timeouts": timeouts.Attributes(ctx, timeouts.Opts{Create: true, Update: true, Delete: true,
				CreateDescription: "How long creating may take (choosing a node and writing the ledger), e.g. `10m`. Default `5m`.",
				UpdateDescription: "How long resizing may take, e.g. `10m`. Default `5m`.",
				DeleteDescription: "How long releasing may take, e.g. `10m`. Default `5m`."}),
		},
	}
}

// nodeReservationUsedAttribute is the `used` attribute; the model takes
// its object type from here, so the two cannot drift apart.
func nodeReservationUsedAttribute() schema.SingleNestedAttribute {
	return schema.SingleNestedAttribute{Computed: true,
		MarkdownDescription: "What work placed into the reservation (instances, volumes, leases) is charged to it.",
		Attributes: map[string]schema.Attribute{
			"cpu":    schema.Int64Attribute{Computed: true, MarkdownDescription: "CPU in MHz."},
			"memory": schema.Int64Attribute{Computed: true, MarkdownDescription: "Memory in MiB."},
			"disk":   schema.Int64Attribute{Computed: true, MarkdownDescription: "Disk in MiB."},
		}}
}

// nodeReservationHoldAttribute is the `hold` attribute; the model takes its
// object type from here.
func nodeReservationHoldAttribute() schema.SingleNestedAttribute {
	return schema.SingleNestedAttribute{Computed: true,
		MarkdownDescription: "The job that makes Nomad's scheduler count the reservation's unused budget (request minus `used`) " +
			"as taken on the node, so work submitted any other way cannot be placed into it. It is resized whenever work is " +
			"placed into or leaves the reservation.",
		Attributes: map[string]schema.Attribute{
			"job_id": schema.StringAttribute{Computed: true, MarkdownDescription: "ID of the hold job in the provider's `ledger_namespace` " +
				"(`berth-hold-<node-id-prefix>-<name>`). It exists as long as the reservation does and mirrors its ledger item in " +
				"its meta; it runs an allocation only while there is something to hold."},
			"cpu":    schema.Int64Attribute{Computed: true, MarkdownDescription: "CPU in MHz the hold job takes now."},
			"memory": schema.Int64Attribute{Computed: true, MarkdownDescription: "Memory in MiB the hold job takes now."},
			"disk": schema.Int64Attribute{Computed: true, MarkdownDescription: "Ephemeral disk in MiB the hold job takes now: " +
				"the unused disk, at least Nomad's minimum of 10 MiB."},
			"in_sync": schema.BoolAttribute{Computed: true, MarkdownDescription: "Whether the hold job is what the ledger asks for. " +
				"`false` (the job was stopped or changed outside berth, or an earlier write was interrupted) plans an update that repairs it."},
		}}
}

// nodeReservationUnheldAttribute is the `unheld` attribute.
func nodeReservationUnheldAttribute() schema.SingleNestedAttribute {
	return schema.SingleNestedAttribute{Computed: true,
		MarkdownDescription: "Unused budget that no hold keeps from other work: Nomad cannot run a task with less than 1 MHz " +
			"cpu or 10 MiB memory, so when the unused budget is below that in either, the hold job runs no allocation and all of it is " +
			"listed here. All zero otherwise.",
		Attributes: map[string]schema.Attribute{
			"cpu":    schema.Int64Attribute{Computed: true, MarkdownDescription: "CPU in MHz."},
			"memory": schema.Int64Attribute{Computed: true, MarkdownDescription: "Memory in MiB."},
			"disk":   schema.Int64Attribute{Computed: true, MarkdownDescription: "Disk in MiB."},
		}}
}

// placementChanged: a placement only matters before the node is chosen,
// so adding one to an imported reservation (state null) is no change, and
// neither is a new strategy: it only ranks candidate nodes, and the node is
// chosen. A new filter (datacenter, node pool, node class) replaces the
// reservation, which may then land elsewhere.
func placementChanged(_ context.Context, req planmodifier.ObjectRequest, resp *objectplanmodifier.RequiresReplaceIfFuncResponse) {
	if req.StateValue.IsNull() {
		return
	}
	if req.PlanValue.IsNull() || req.PlanValue.IsUnknown() {
		resp.RequiresReplace = true
		return
	}
	had := req.StateValue.Attributes()
	for name, v := range req.PlanValue.Attributes() {
		if name != "strategy" && !v.Equal(had[name]) {
			resp.RequiresReplace = true
			return
		}
	}
}
