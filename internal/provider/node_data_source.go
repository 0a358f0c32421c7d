package provider

import (
	"context"
	"errors"

	"github.com/hashicorp/terraform-plugin-framework-validators/datasourcevalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/berthhq/terraform-provider-berth/internal/nomadclient"
)

var (
	_ datasource.DataSource                     = &nodeDataSource{}
	_ datasource.DataSourceWithConfigure        = &nodeDataSource{}
	_ datasource.DataSourceWithConfigValidators = &nodeDataSource{}
)

// NewNodeDataSource builds the berth_node data source.
func NewNodeDataSource() datasource.DataSource { return &nodeDataSource{} }

type nodeDataSource struct{ data *ProviderData }

type nodeDataSourceModel struct {
	NodeModel
	StatusDescription types.String       `tfsdk:"status_description"`
	DriversDetail     []driverModel      `tfsdk:"drivers_detail"`
	HostVolumes       []hostVolumeModel  `tfsdk:"host_volumes"`
	AllocationCount   types.Int64        `tfsdk:"allocation_count"`
	Events            []eventModel       `tfsdk:"events"`
	Reservations      []nodeReservationEntry `tfsdk:"reservations"`
}

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

func (d *nodeDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_node"
}

func (d *nodeDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
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
	attrs["status_description"] = schema.StringAttribute{Computed: true, MarkdownDescription: "Nomad's explanation of the node status."}
	attrs["allocation_count"] = schema.Int64Attribute{Computed: true, MarkdownDescription: "Number of non-terminal allocations on the node."}
	attrs["drivers_detail"] = schema.ListNestedAttribute{
		Computed:            true,
		MarkdownDescription: "Every task driver the node fingerprinted, sorted by name.",
		NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
			"name":        schema.StringAttribute{Computed: true, MarkdownDescription: "Driver name."},
			"detected":    schema.BoolAttribute{Computed: true, MarkdownDescription: "Whether the driver was detected."},
			"healthy":     schema.BoolAttribute{Computed: true, MarkdownDescription: "Whether the driver is healthy."},
			"description": schema.StringAttribute{Computed: true, MarkdownDescription: "The driver's health description."},
		}},
	}
	attrs["host_volumes"] = schema.ListNestedAttribute{
		Computed:            true,
		MarkdownDescription: "Host volumes the node offers, static and dynamic, sorted by name.",
		NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
			"name":      schema.StringAttribute{Computed: true, MarkdownDescription: "Volume name."},
			"path":      schema.StringAttribute{Computed: true, MarkdownDescription: "Path on the host."},
			"read_only": schema.BoolAttribute{Computed: true, MarkdownDescription: "Whether the volume is read-only."},
			"id":        schema.StringAttribute{Computed: true, MarkdownDescription: "Volume ID; empty for static host volumes."},
		}},
	}
	attrs["events"] = schema.ListNestedAttribute{
		Computed:            true,
		MarkdownDescription: "The node's recent events as Nomad keeps them (at most 10), newest first.",
		NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
			"time":      schema.StringAttribute{Computed: true, MarkdownDescription: "When it happened, RFC 3339 in UTC."},
			"subsystem": schema.StringAttribute{Computed: true, MarkdownDescription: "Subsystem that reported it (e.g. `Cluster`, `Driver`)."},
			"message":   schema.StringAttribute{Computed: true, MarkdownDescription: "What happened."},
		}},
	}
	attrs["reservations"] = schema.ListNestedAttribute{
		Computed:            true,
		MarkdownDescription: "berth node reservations on the node, by name.",
		NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
			"name":        schema.StringAttribute{Computed: true, MarkdownDescription: "Reservation name."},
			"cpu":         schema.Int64Attribute{Computed: true, MarkdownDescription: "Reserved CPU in MHz."},
			"memory":      schema.Int64Attribute{Computed: true, MarkdownDescription: "Reserved memory in MiB."},
			"disk":        schema.Int64Attribute{Computed: true, MarkdownDescription: "Reserved disk in MiB."},
			"used":        capacityAttribute("What work charged to the reservation uses of it."),
			"annotations": schema.MapAttribute{Computed: true, ElementType: types.StringType, MarkdownDescription: "Annotations."},
		}},
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "Status and capacity of one Nomad node, looked up by ID (or unique ID prefix) or by name.",
		Attributes:          attrs,
	}
}

func (d *nodeDataSource) ConfigValidators(context.Context) []datasource.ConfigValidator {
	return []datasource.ConfigValidator{
		datasourcevalidator.ExactlyOneOf(path.MatchRoot("id"), path.MatchRoot("name")),
	}
}

func (d *nodeDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	d.data = providerDataFrom(req.ProviderData, &resp.Diagnostics)
}

func (d *nodeDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	ctx = d.data.Nomad.MaskSecrets(ctx)
	// Only id and name come from configuration; everything else is
	// computed, so read just those two.
	var id, name types.String
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("id"), &id)...)
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("name"), &name)...)
	if resp.Diagnostics.HasError() {
		return
	}
	node, err := d.data.Nomad.FindNode(ctx, id.ValueString(), name.ValueString(), d.data.LedgerNamespace)
	if err != nil {
		var notFound *nomadclient.NodeNotFoundError
		var ambiguous *nomadclient.AmbiguousNodeError
		at := path.Root("name")
		if !id.IsNull() {
			at = path.Root("id")
		}
		switch {
		case errors.As(err, &notFound):
			resp.Diagnostics.AddAttributeError(at, "Nomad node not found",
				err.Error()+". List the cluster's nodes with the berth_nodes data source or `nomad node status`.")
		case errors.As(err, &ambiguous):
			resp.Diagnostics.AddAttributeError(at, "Nomad node lookup is ambiguous", err.Error())
		default:
			addNomadError(&resp.Diagnostics, "Could not read Nomad node", err)
		}
		return
	}

	out := nodeDataSourceModel{
		NodeModel:         newNodeModel(node.NodeInfo),
		StatusDescription: types.StringValue(node.StatusDescription),
		AllocationCount:   types.Int64Value(int64(node.AllocationCount)),
		Events:            newEventModels(node.Events),
		DriversDetail:     make([]driverModel, 0, len(node.DriverDetails)),
		HostVolumes:       make([]hostVolumeModel, 0, len(node.HostVolumes)),
	}
	out.Reservations = make([]nodeReservationEntry, 0, len(node.Reservations))
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
	resp.Diagnostics.Append(resp.State.Set(ctx, &out)...)
}
