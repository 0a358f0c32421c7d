package cluster

import (
	"context"
	"errors"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/berthhq/terraform-provider-berth/internal/nomadclient"
	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
)

// NewAllocationsDataSource builds the berth_allocations data source.
func NewAllocationsDataSource() datasource.DataSource {
	return shared.NewDataSource("allocations", allocationsDataSourceSchema, readAllocations)
}

type allocationsModel struct {
	Namespace   types.String      `tfsdk:"namespace"`
	Job         types.String      `tfsdk:"job"`
	Filter      types.String      `tfsdk:"filter"`
	Allocations []allocationModel `tfsdk:"allocations"`
}

type allocationModel struct {
	ID                 types.String         `tfsdk:"id"`
	Name               types.String         `tfsdk:"name"`
	Namespace          types.String         `tfsdk:"namespace"`
	Job                types.String         `tfsdk:"job"`
	JobType            types.String         `tfsdk:"job_type"`
	JobVersion         types.Int64          `tfsdk:"job_version"`
	Group              types.String         `tfsdk:"group"`
	NodeID             types.String         `tfsdk:"node_id"`
	NodeName           types.String         `tfsdk:"node_name"`
	ClientStatus       types.String         `tfsdk:"client_status"`
	ClientDescription  types.String         `tfsdk:"client_description"`
	DesiredStatus      types.String         `tfsdk:"desired_status"`
	DesiredDescription types.String         `tfsdk:"desired_description"`
	CreateTime         types.Int64          `tfsdk:"create_time"`
	ModifyTime         types.Int64          `tfsdk:"modify_time"`
	Tasks              map[string]taskModel `tfsdk:"tasks"`
}

type taskModel struct {
	State            types.String `tfsdk:"state"`
	Failed           types.Bool   `tfsdk:"failed"`
	Restarts         types.Int64  `tfsdk:"restarts"`
	LastEventType    types.String `tfsdk:"last_event_type"`
	LastEventMessage types.String `tfsdk:"last_event_message"`
}

func allocationsDataSourceSchema() schema.Schema {
	str := func(desc string) schema.StringAttribute {
		return schema.StringAttribute{Computed: true, MarkdownDescription: desc}
	}
	num := func(desc string) schema.Int64Attribute {
		return schema.Int64Attribute{Computed: true, MarkdownDescription: desc}
	}
	return schema.Schema{
		MarkdownDescription: "The allocations of a namespace (or all of them), of one job, or those a Nomad filter " +
			"expression selects, with each task's state: what `nomad alloc status` shows, for checks and outputs. " +
			"Needs `read-job` in the namespaces read when ACLs are on.",
		Attributes: map[string]schema.Attribute{
			"namespace": schema.StringAttribute{Optional: true,
				MarkdownDescription: "Namespace to read; `*` for every namespace the token can read. Defaults to the provider's namespace."},
			"job": schema.StringAttribute{Optional: true, MarkdownDescription: "Only the allocations of this job (its ID)."},
			"filter": schema.StringAttribute{Optional: true,
				MarkdownDescription: "A Nomad [filter expression](https://developer.hashicorp.com/nomad/api-docs#filtering) " +
					"over the allocations' fields, which Nomad evaluates, e.g. `ClientStatus == \"running\"` or " +
					"`TaskGroup == \"web\" and NodeName == \"n1\"`. An expression Nomad cannot parse fails the read with Nomad's message."},
			"allocations": schema.ListNestedAttribute{Computed: true,
				MarkdownDescription: "The allocations, sorted by namespace, job, group, name and ID.",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"id":                  str("Allocation ID."),
					"name":                str("Allocation name, `<job>.<group>[<index>]`."),
					"namespace":           str("Namespace of its job."),
					"job":                 str("Job ID."),
					"job_type":            str("Job type: `service`, `batch`, `system` or `sysbatch`."),
					"job_version":         num("Version of the job the allocation runs."),
					"group":               str("Task group."),
					"node_id":             str("ID of the node it was placed on."),
					"node_name":           str("Name of that node."),
					"client_status":       str("What the client reports: `pending`, `running`, `complete`, `failed`, `lost` or `unknown`."),
					"client_description":  str("The client's explanation of its status."),
					"desired_status":      str("What the scheduler wants: `run`, `stop` or `evict`."),
					"desired_description": str("The scheduler's explanation of its desired status."),
					"create_time":         num("When it was created, in Unix nanoseconds."),
					"modify_time":         num("When it last changed, in Unix nanoseconds."),
					"tasks": schema.MapNestedAttribute{Computed: true,
						MarkdownDescription: "Each task's state, by task name (empty until the client reports).",
						NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
							"state":              str("`pending`, `running` or `dead`."),
							"failed":             schema.BoolAttribute{Computed: true, MarkdownDescription: "Whether the task failed."},
							"restarts":           num("How many times it restarted."),
							"last_event_type":    str("Type of its latest event (`Started`, `Terminated`, `Driver Failure`…)."),
							"last_event_message": str("Message of its latest event, as `nomad alloc status` shows it."),
						}},
					},
				}},
			},
		},
	}
}

func readAllocations(ctx context.Context, data *shared.ProviderData, m *allocationsModel, diags *diag.Diagnostics) {
	allocs, err := data.Nomad.ListAllocations(ctx, nomadclient.AllocationQuery{
		Namespace: m.Namespace.ValueString(), Job: m.Job.ValueString(), Filter: m.Filter.ValueString()})
	var bad *nomadclient.BadFilterError
	switch {
	case errors.As(err, &bad):
		diags.AddAttributeError(path.Root("filter"), "Nomad refused the filter expression",
			"Nomad said: "+bad.Error()+". Fix the expression; the syntax is at https://developer.hashicorp.com/nomad/api-docs#filtering "+
				"and the fields are those of an allocation in `nomad alloc status -json`.")
		return
	case err != nil:
		shared.AddNomadError(diags, "Could not list allocations", err)
		return
	}
	m.Allocations = make([]allocationModel, 0, len(allocs))
	for _, a := range allocs {
		am := allocationModel{ID: types.StringValue(a.ID), Name: types.StringValue(a.Name), Namespace: types.StringValue(a.Namespace),
			Job: types.StringValue(a.JobID), JobType: types.StringValue(a.JobType), JobVersion: types.Int64Value(int64(a.JobVersion)),
			Group: types.StringValue(a.TaskGroup), NodeID: types.StringValue(a.NodeID), NodeName: types.StringValue(a.NodeName),
			ClientStatus: types.StringValue(a.ClientStatus), ClientDescription: types.StringValue(a.ClientDescription),
			DesiredStatus: types.StringValue(a.DesiredStatus), DesiredDescription: types.StringValue(a.DesiredDescription),
			CreateTime: types.Int64Value(a.CreateTime), ModifyTime: types.Int64Value(a.ModifyTime),
			Tasks: make(map[string]taskModel, len(a.Tasks))}
		for name, t := range a.Tasks {
			am.Tasks[name] = taskModel{State: types.StringValue(t.State), Failed: types.BoolValue(t.Failed),
				Restarts: types.Int64Value(int64(t.Restarts)), LastEventType: types.StringValue(t.LastEventType),
				LastEventMessage: types.StringValue(t.LastEventMessage)}
		}
		m.Allocations = append(m.Allocations, am)
	}
}
