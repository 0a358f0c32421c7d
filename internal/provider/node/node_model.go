package node

import (
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timetypes/timetypes"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/berthhq/terraform-provider-berth/internal/capacity"
	"github.com/berthhq/terraform-provider-berth/internal/nomadclient"
	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
)

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
	Name      types.String      `tfsdk:"name"`
	Namespace types.String      `tfsdk:"namespace"`
	User      types.String      `tfsdk:"user"`
	ExpiresAt timetypes.RFC3339 `tfsdk:"expires_at"`
	Resources capacityModel     `tfsdk:"resources"`
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
			Name: types.StringValue(l.Name), Namespace: types.StringValue(l.Namespace), User: shared.StringOrNull(l.User),
			ExpiresAt: rfc3339OrNull(l.ExpiresAt), Resources: newCapacityModel(l.Resources),
		})
	}
	return out
}

// rfc3339OrNull is s as a timestamp, or null when s is not RFC 3339 (a
// lease job whose meta was edited by hand).
func rfc3339OrNull(s string) timetypes.RFC3339 {
	v, diags := timetypes.NewRFC3339Value(s)
	if diags.HasError() {
		return timetypes.NewRFC3339Null()
	}
	return v
}

// nodeDataSourceModel is berth_node: a node with its details.
type nodeDataSourceModel struct {
	NodeModel
	StatusDescription types.String           `tfsdk:"status_description"`
	DriversDetail     []driverModel          `tfsdk:"drivers_detail"`
	HostVolumes       []hostVolumeModel      `tfsdk:"host_volumes"`
	AllocationCount   types.Int64            `tfsdk:"allocation_count"`
	Events            []eventModel           `tfsdk:"events"`
	Reservations      []nodeReservationEntry `tfsdk:"reservations"`
}

// nodeReservationEntry is one berth_node_reservation as berth_node lists it.
type nodeReservationEntry struct {
	Name        types.String      `tfsdk:"name"`
	CPU         types.Int64       `tfsdk:"cpu"`
	Memory      types.Int64       `tfsdk:"memory"`
	Disk        types.Int64       `tfsdk:"disk"`
	Used        capacityModel     `tfsdk:"used"`
	Annotations map[string]string `tfsdk:"annotations"`
}

type driverModel struct {
	Name        types.String `tfsdk:"name"`
	Detected    types.Bool   `tfsdk:"detected"`
	Healthy     types.Bool   `tfsdk:"healthy"`
	Description types.String `tfsdk:"description"`
}

type hostVolumeModel struct {
	Name     types.String `tfsdk:"name"`
	Path     types.String `tfsdk:"path"`
	ReadOnly types.Bool   `tfsdk:"read_only"`
	ID       types.String `tfsdk:"id"`
}

// eventModel is one node event.
type eventModel struct {
	Time      types.String `tfsdk:"time"`
	Subsystem types.String `tfsdk:"subsystem"`
	Message   types.String `tfsdk:"message"`
}

func newNodeDataSourceModel(node *nomadclient.NodeDetail) nodeDataSourceModel {
	out := nodeDataSourceModel{
		NodeModel:         newNodeModel(node.NodeInfo),
		StatusDescription: types.StringValue(node.StatusDescription),
		AllocationCount:   types.Int64Value(int64(node.AllocationCount)),
		Events:            make([]eventModel, 0, len(node.Events)),
		DriversDetail:     make([]driverModel, 0, len(node.DriverDetails)),
		HostVolumes:       make([]hostVolumeModel, 0, len(node.HostVolumes)),
		Reservations:      make([]nodeReservationEntry, 0, len(node.Reservations)),
	}
	for _, r := range node.Reservations {
		out.Reservations = append(out.Reservations, nodeReservationEntry{
			Name: types.StringValue(r.Name), CPU: types.Int64Value(r.Request.CPU), Memory: types.Int64Value(r.Request.MemoryMB),
			Disk: types.Int64Value(r.Request.DiskMB), Used: newCapacityModel(r.Used), Annotations: r.Annotations,
		})
	}
	for _, drv := range node.DriverDetails {
		out.DriversDetail = append(out.DriversDetail, driverModel{
			Name: types.StringValue(drv.Name), Detected: types.BoolValue(drv.Detected),
			Healthy: types.BoolValue(drv.Healthy), Description: types.StringValue(drv.Description),
		})
	}
	for _, hv := range node.HostVolumes {
		out.HostVolumes = append(out.HostVolumes, hostVolumeModel{
			Name: types.StringValue(hv.Name), Path: types.StringValue(hv.Path),
			ReadOnly: types.BoolValue(hv.ReadOnly), ID: types.StringValue(hv.ID),
		})
	}
	for _, e := range node.Events {
		out.Events = append(out.Events, eventModel{
			Time:      types.StringValue(e.Time.UTC().Format(time.RFC3339)),
			Subsystem: types.StringValue(e.Subsystem),
			Message:   types.StringValue(e.Message),
		})
	}
	return out
}

// nodesDataSourceModel is berth_nodes: filters and the matching nodes.
type nodesDataSourceModel struct {
	Datacenter  types.String  `tfsdk:"datacenter"`
	NodePool    types.String  `tfsdk:"node_pool"`
	NodeClass   types.String  `tfsdk:"node_class"`
	Status      types.String  `tfsdk:"status"`
	Ready       types.Bool    `tfsdk:"ready"`
	Filter      types.String  `tfsdk:"filter"`
	MinFree     *minFreeModel `tfsdk:"min_free"`
	IncludeMeta types.Bool    `tfsdk:"include_meta"`
	Nodes       []NodeModel   `tfsdk:"nodes"`
}

type minFreeModel struct {
	CPU    types.Int64 `tfsdk:"cpu"`
	Memory types.Int64 `tfsdk:"memory"`
	Disk   types.Int64 `tfsdk:"disk"`
}

func (m *minFreeModel) resources() capacity.Resources {
	if m == nil {
		return capacity.Resources{}
	}
	return capacity.Resources{CPU: m.CPU.ValueInt64(), MemoryMB: m.Memory.ValueInt64(), DiskMB: m.Disk.ValueInt64()}
}

// filter is the part of the selection Nomad evaluates.
func (m *nodesDataSourceModel) filter() nomadclient.NodeFilter {
	return nomadclient.NodeFilter{
		Datacenter: m.Datacenter.ValueString(),
		NodePool:   m.NodePool.ValueString(),
		NodeClass:  m.NodeClass.ValueString(),
		Status:     m.Status.ValueString(),
		Expression: m.Filter.ValueString(),
	}
}
