package node

import (
	"github.com/hashicorp/terraform-plugin-framework-timetypes/timetypes"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
)

// nodeStatuses are the node statuses Nomad reports; the `status` filter
// accepts these and its documentation lists them.
var nodeStatuses = []string{"initializing", "ready", "down", "disconnected"}

func capacityAttribute(what string) schema.SingleNestedAttribute {
	return schema.SingleNestedAttribute{
		Computed:            true,
		MarkdownDescription: what,
		Attributes: map[string]schema.Attribute{
			"cpu":    shared.ComputedInt("CPU in MHz."),
			"memory": shared.ComputedInt("Memory in MiB."),
			"disk":   shared.ComputedInt("Disk in MiB."),
		},
	}
}

// nodeAttributes are the attributes of NodeModel, all computed.
func nodeAttributes() map[string]schema.Attribute {
	computedString := func(desc string) schema.StringAttribute {
		return schema.StringAttribute{Computed: true, MarkdownDescription: desc}
	}
	computedBool := func(desc string) schema.BoolAttribute {
		return schema.BoolAttribute{Computed: true, MarkdownDescription: desc}
	}
	return map[string]schema.Attribute{
		"id":          computedString("Node ID."),
		"name":        computedString("Node name."),
		"datacenter":  computedString("Datacenter the node is in."),
		"node_pool":   computedString("Node pool the node belongs to."),
		"node_class":  computedString("Node class; empty when the node has none."),
		"address":     computedString("Host address of the node's HTTP API."),
		"status":      computedString("Node status: " + shared.BacktickList(nodeStatuses) + "."),
		"eligible":    computedBool("Whether the node is eligible for scheduling."),
		"draining":    computedBool("Whether the node is draining."),
		"ready":       computedBool("Whether the node can take new work: status `ready`, eligible and not draining."),
		"drivers":     schema.ListAttribute{Computed: true, ElementType: types.StringType, MarkdownDescription: "Names of the task drivers that are detected and healthy, sorted."},
		"meta":        schema.MapAttribute{Computed: true, ElementType: types.StringType, MarkdownDescription: "Client metadata of the node."},
		"allocatable": capacityAttribute("What the node offers to workloads: its fingerprinted resources minus what the agent's `reserved` block keeps back."),
		"allocated": capacityAttribute("Sum of the resources of the node's non-terminal allocations, except those of work " +
			"charged to a berth node reservation on the node and the reservations' hold jobs (both are counted once, inside " +
			"`reserved`; only a hold's disk raised to Nomad's 10 MiB minimum beyond its reservation counts here)."),
		"reserved": capacityAttribute("Sum of the berth node reservations (`berth_node_reservation`) on the node."),
		"free":     capacityAttribute("`allocatable` minus `reserved` minus `allocated`. Negative in a dimension that is overcommitted."),
		"leases": shared.ComputedObjects("Active berth leases (`berth_reservation`) running on the node.", map[string]schema.Attribute{
			"name":      computedString("Lease (job) name."),
			"namespace": computedString("Namespace."),
			"user":      computedString("Hex public key that signed it; null when unsigned."),
			"expires_at": schema.StringAttribute{Computed: true, CustomType: timetypes.RFC3339Type{},
				MarkdownDescription: "When it ends, RFC 3339; null when the lease's job carries no valid end."},
			"resources": capacityAttribute("What its allocation holds on the node."),
		}),
	}
}

// nodeDataSourceSchema is the schema of berth_node: a node's attributes,
// with id and name as the lookup keys, plus its details.
func nodeDataSourceSchema() schema.Schema {
	attrs := nodeAttributes()
	attrs["id"] = schema.StringAttribute{
		Optional: true, Computed: true,
		MarkdownDescription: "Node ID to look up: the full ID or a prefix that matches one node (lowercase hex digits, with dashes where the full ID has them). Exactly one of `id` and `name` is required.",
		Validators:          []validator.String{nodeIDPrefixValidator()},
	}
	attrs["name"] = schema.StringAttribute{
		Optional: true, Computed: true,
		MarkdownDescription: "Node name to look up. Exactly one of `id` and `name` is required.",
		Validators:          []validator.String{stringvalidator.LengthAtLeast(1)},
	}
	attrs["status_description"] = shared.ComputedString("Nomad's explanation of the node status.")
	attrs["allocation_count"] = shared.ComputedInt("Number of non-terminal allocations on the node.")
	attrs["drivers_detail"] = shared.ComputedObjects("Every task driver the node fingerprinted, sorted by name.", map[string]schema.Attribute{
		"name":        shared.ComputedString("Driver name."),
		"detected":    shared.ComputedBool("Whether the driver was detected."),
		"healthy":     shared.ComputedBool("Whether the driver is healthy."),
		"description": shared.ComputedString("The driver's health description."),
	})
	attrs["host_volumes"] = shared.ComputedObjects("Host volumes the node offers, static and dynamic, sorted by name.", map[string]schema.Attribute{
		"name":      shared.ComputedString("Volume name."),
		"path":      shared.ComputedString("Path on the host."),
		"read_only": shared.ComputedBool("Whether the volume is read-only."),
		"id":        shared.ComputedString("Volume ID; empty for static host volumes."),
	})
	attrs["events"] = shared.ComputedObjects("The node's recent events as Nomad keeps them (at most 10), newest first.", map[string]schema.Attribute{
		"time":      shared.ComputedString("When it happened, RFC 3339 in UTC."),
		"subsystem": shared.ComputedString("Subsystem that reported it (e.g. `Cluster`, `Driver`)."),
		"message":   shared.ComputedString("What happened."),
	})
	attrs["reservations"] = shared.ComputedObjects("berth node reservations on the node, by name.", map[string]schema.Attribute{
		"name":        shared.ComputedString("Reservation name."),
		"cpu":         shared.ComputedInt("Reserved CPU in MHz."),
		"memory":      shared.ComputedInt("Reserved memory in MiB."),
		"disk":        shared.ComputedInt("Reserved disk in MiB."),
		"used":        capacityAttribute("What work charged to the reservation uses of it."),
		"annotations": schema.MapAttribute{Computed: true, ElementType: types.StringType, MarkdownDescription: "Annotations."},
	})
	return schema.Schema{
		MarkdownDescription: "Status and capacity of one Nomad node, looked up by ID (or unique ID prefix) or by name.",
		Attributes:          attrs,
	}
}

// nodesDataSourceSchema is the schema of berth_nodes: filters, and the
// matching nodes with the attributes berth_node shares.
func nodesDataSourceSchema() schema.Schema {
	nonNegative := []validator.Int64{int64validator.AtLeast(0)}
	return schema.Schema{
		MarkdownDescription: "Lists Nomad nodes with their status and capacity: what each offers (`allocatable`), " +
			"what running work holds (`allocated`) and what is left (`free`). Filters are optional and combine with AND. " +
			"The read costs three Nomad API calls however many nodes and reservations there are (reservations are read " +
			"from the ledger items their hold jobs mirror), plus one per node with `include_meta`.",
		Attributes: map[string]schema.Attribute{
			"datacenter": schema.StringAttribute{Optional: true, MarkdownDescription: "Only nodes in this datacenter."},
			"node_pool":  schema.StringAttribute{Optional: true, MarkdownDescription: "Only nodes in this node pool."},
			"node_class": schema.StringAttribute{Optional: true, MarkdownDescription: "Only nodes of this node class."},
			"status": schema.StringAttribute{
				Optional:            true,
				MarkdownDescription: "Only nodes with this status: " + shared.BacktickList(nodeStatuses) + ".",
				Validators:          []validator.String{stringvalidator.OneOf(nodeStatuses...)},
			},
			"ready": schema.BoolAttribute{
				Optional:            true,
				MarkdownDescription: "`true`: only nodes that can take work (status `ready`, eligible, not draining); `false`: only nodes that cannot.",
			},
			"filter": schema.StringAttribute{
				Optional: true,
				MarkdownDescription: "A raw [Nomad filter expression](https://developer.hashicorp.com/nomad/api-docs#filtering) " +
					"evaluated by Nomad against each node, e.g. `Meta.team == \"db\"` or `Attributes[\"kernel.name\"] == \"linux\"`.",
				Validators: []validator.String{stringvalidator.LengthAtLeast(1)},
			},
			"min_free": schema.SingleNestedAttribute{
				Optional:            true,
				MarkdownDescription: "Only nodes with at least this much `free` capacity in every dimension given.",
				Attributes: map[string]schema.Attribute{
					"cpu":    schema.Int64Attribute{Optional: true, MarkdownDescription: "Free CPU in MHz.", Validators: nonNegative},
					"memory": schema.Int64Attribute{Optional: true, MarkdownDescription: "Free memory in MiB.", Validators: nonNegative},
					"disk":   schema.Int64Attribute{Optional: true, MarkdownDescription: "Free disk in MiB.", Validators: nonNegative},
				},
			},
			"include_meta": schema.BoolAttribute{
				Optional: true,
				MarkdownDescription: "Fill each node's `meta`. Nomad's node list does not carry meta, so this costs one " +
					"extra API call per node; without it `meta` is null. Default `false`. To select nodes by meta, " +
					"prefer `filter`, which costs nothing extra.",
			},
			"nodes": schema.ListNestedAttribute{
				Computed:            true,
				MarkdownDescription: "The matching nodes, sorted by name then ID.",
				NestedObject:        schema.NestedAttributeObject{Attributes: nodeAttributes()},
			},
		},
	}
}
