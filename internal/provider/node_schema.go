package provider

import (
	"time"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/berthhq/terraform-provider-berth/internal/capacity"
	"github.com/berthhq/terraform-provider-berth/internal/nomadclient"
)

// nodeStatuses are the node statuses Nomad reports; the `status` filter
// accepts these and its documentation lists them.
var nodeStatuses = []string{"initializing", "ready", "down", "disconnected"}

// NodeModel is one node as both node data sources report it.
type NodeModel struct {
	ID          types.String      `tfsdk:"id"`
	Name        types.String      `tfsdk:"name"`
	Datacenter  types.String      `tfsdk:"datacenter"`
	NodePool    types.String      `tfsdk:"node_pool"`
	NodeClass   types.String      `tfsdk:"node_class"`
	Address     types.String      `tfsdk:"address"`
	Status      types.String      `tfsdk:"status"`
	Eligible    types.Bool        `tfsdk:"eligible"`
	Draining    types.Bool        `tfsdk:"draining"`
	Ready       types.Bool        `tfsdk:"ready"`
	Drivers     []string          `tfsdk:"drivers"`
	Meta        map[string]string `tfsdk:"meta"`
	Allocatable capacityModel     `tfsdk:"allocatable"`
	Allocated   capacityModel     `tfsdk:"allocated"`
	Reserved    capacityModel     `tfsdk:"reserved"`
	Free        capacityModel     `tfsdk:"free"`
	Leases      []leaseEntry      `tfsdk:"leases"`
}

type leaseEntry struct {
	Name      types.String  `tfsdk:"name"`
	Namespace types.String  `tfsdk:"namespace"`
	User      types.String  `tfsdk:"user"`
	ExpiresAt types.String  `tfsdk:"expires_at"`
	Resources capacityModel `tfsdk:"resources"`
}

type capacityModel struct {
	CPU    types.Int64 `tfsdk:"cpu"`
	Memory types.Int64 `tfsdk:"memory"`
	Disk   types.Int64 `tfsdk:"disk"`
}

func newCapacityModel(r capacity.Resources) capacityModel {
	return capacityModel{CPU: types.Int64Value(r.CPU), Memory: types.Int64Value(r.MemoryMB), Disk: types.Int64Value(r.DiskMB)}
}

func newNodeModel(n nomadclient.NodeInfo) NodeModel {
	return NodeModel{
		ID:          types.StringValue(n.ID),
		Name:        types.StringValue(n.Name),
		Datacenter:  types.StringValue(n.Datacenter),
		NodePool:    types.StringValue(n.NodePool),
		NodeClass:   types.StringValue(n.NodeClass),
		Address:     types.StringValue(n.Address),
		Status:      types.StringValue(n.Status),
		Eligible:    types.BoolValue(n.Eligible),
		Draining:    types.BoolValue(n.Draining),
		Ready:       types.BoolValue(n.Ready()),
		Drivers:     n.Drivers,
		Meta:        n.Meta,
		Allocatable: newCapacityModel(n.Capacity.Allocatable()),
		Allocated:   newCapacityModel(n.Capacity.Allocated),
		Reserved:    newCapacityModel(n.Capacity.Reserved),
		Free:        newCapacityModel(n.Capacity.Free()),
		Leases:      newLeaseEntries(n.Leases),
	}
}

func newLeaseEntries(leases []nomadclient.NodeLease) []leaseEntry {
	out := make([]leaseEntry, 0, len(leases))
	for _, l := range leases {
		out = append(out, leaseEntry{
			Name: types.StringValue(l.Name), Namespace: types.StringValue(l.Namespace), User: stringOrNull(l.User),
			ExpiresAt: types.StringValue(l.ExpiresAt), Resources: newCapacityModel(l.Resources),
		})
	}
	return out
}

func capacityAttribute(what string) schema.SingleNestedAttribute {
	return schema.SingleNestedAttribute{
		Computed:            true,
		MarkdownDescription: what,
		Attributes: map[string]schema.Attribute{
			"cpu":    schema.Int64Attribute{Computed: true, MarkdownDescription: "CPU in MHz."},
			"memory": schema.Int64Attribute{Computed: true, MarkdownDescription: "Memory in MiB."},
			"disk":   schema.Int64Attribute{Computed: true, MarkdownDescription: "Disk in MiB."},
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
		"status":      computedString("Node status: " + backtickList(nodeStatuses) + "."),
		"eligible":    computedBool("Whether the node is eligible for scheduling."),
		"draining":    computedBool("Whether the node is draining."),
		"ready":       computedBool("Whether the node can take new work: status `ready`, eligible and not draining."),
		"drivers":     schema.ListAttribute{Computed: true, ElementType: types.StringType, MarkdownDescription: "Names of the task drivers that are detected and healthy, sorted."},
		"meta":        schema.MapAttribute{Computed: true, ElementType: types.StringType, MarkdownDescription: "Client metadata of the node."},
		"allocatable": capacityAttribute("What the node offers to workloads: its fingerprinted resources minus what the agent's `reserved` block keeps back."),
		"allocated": capacityAttribute("Sum of the resources of the node's non-terminal allocations, except those of work " +
			"charged to a berth node reservation on the node (that work is counted once, inside `reserved`)."),
		"reserved": capacityAttribute("Sum of the berth node reservations (`berth_node_reservation`) on the node."),
		"free":     capacityAttribute("`allocatable` minus `reserved` minus `allocated`. Negative in a dimension that is overcommitted."),
		"leases": schema.ListNestedAttribute{
			Computed:            true,
			MarkdownDescription: "Active berth leases (`berth_reservation`) running on the node.",
			NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
				"name":       computedString("Lease (job) name."),
				"namespace":  computedString("Namespace."),
				"user":       computedString("Hex public key that signed it; null when unsigned."),
				"expires_at": computedString("When it ends, RFC 3339."),
				"resources":  capacityAttribute("What its allocation holds on the node."),
			}},
		},
	}
}

// eventModel is one node event.
type eventModel struct {
	Time      types.String `tfsdk:"time"`
	Subsystem types.String `tfsdk:"subsystem"`
	Message   types.String `tfsdk:"message"`
}

func newEventModels(events []nomadclient.NodeEvent) []eventModel {
	out := make([]eventModel, 0, len(events))
	for _, e := range events {
		out = append(out, eventModel{
			Time:      types.StringValue(e.Time.UTC().Format(time.RFC3339)),
			Subsystem: types.StringValue(e.Subsystem),
			Message:   types.StringValue(e.Message),
		})
	}
	return out
}

var capacityAttrTypes = map[string]attr.Type{"cpu": types.Int64Type, "memory": types.Int64Type, "disk": types.Int64Type}

func capacityObject(r capacity.Resources) types.Object {
	return types.ObjectValueMust(capacityAttrTypes, map[string]attr.Value{
		"cpu": types.Int64Value(r.CPU), "memory": types.Int64Value(r.MemoryMB), "disk": types.Int64Value(r.DiskMB),
	})
}
