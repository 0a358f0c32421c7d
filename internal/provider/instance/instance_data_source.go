package instance

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/berthhq/terraform-provider-berth/internal/instance"
	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
)

var (
	_ datasource.DataSource              = &instanceDataSource{}
	_ datasource.DataSourceWithConfigure = &instanceDataSource{}
)

// NewInstanceDataSource builds the berth_instance data source.
func NewInstanceDataSource() datasource.DataSource {
	return &instanceDataSource{shared.NewDataSourceBase("instance")}
}

type instanceDataSource struct{ shared.DataSourceBase }

type instanceStatusModel struct {
	ID               types.String            `tfsdk:"id"`
	Name             types.String            `tfsdk:"name"`
	Namespace        types.String            `tfsdk:"namespace"`
	ManagedByBerth   types.Bool              `tfsdk:"managed_by_berth"`
	Status           types.String            `tfsdk:"status"`
	JobVersion       types.Int64             `tfsdk:"job_version"`
	DeploymentID     types.String            `tfsdk:"deployment_id"`
	DeploymentStatus types.String            `tfsdk:"deployment_status"`
	Allocations      []allocationStatusModel `tfsdk:"allocations"`
}

type allocationStatusModel struct {
	ID            types.String      `tfsdk:"id"`
	Name          types.String      `tfsdk:"name"`
	NodeID        types.String      `tfsdk:"node_id"`
	NodeName      types.String      `tfsdk:"node_name"`
	ClientStatus  types.String      `tfsdk:"client_status"`
	DesiredStatus types.String      `tfsdk:"desired_status"`
	JobVersion    types.Int64       `tfsdk:"job_version"`
	Healthy       types.Bool        `tfsdk:"healthy"`
	CPUPercent    types.Float64     `tfsdk:"cpu_percent"`
	RSSMiB        types.Float64     `tfsdk:"rss_mib"`
	Tasks         []taskStatusModel `tfsdk:"tasks"`
}

type taskStatusModel struct {
	Name      types.String `tfsdk:"name"`
	State     types.String `tfsdk:"state"`
	Failed    types.Bool   `tfsdk:"failed"`
	Restarts  types.Int64  `tfsdk:"restarts"`
	LastEvent types.String `tfsdk:"last_event"`
}

func (d *instanceDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	str := func(desc string) schema.StringAttribute {
		return schema.StringAttribute{Computed: true, MarkdownDescription: desc}
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "Live status of one instance (any Nomad service job, berth's or not): status, deployment, and each " +
			"current allocation with its tasks and a one-shot CPU and memory sample.",
		Attributes: map[string]schema.Attribute{
			"name": schema.StringAttribute{Required: true, MarkdownDescription: "Job ID." + shared.LookupRuleDoc,
				Validators: []validator.String{shared.LookupNameValidator()}},
			"namespace": schema.StringAttribute{Optional: true, Computed: true, MarkdownDescription: "Namespace. Default: the provider's." + shared.NamespaceRuleDoc,
				Validators: []validator.String{shared.NamespaceValidator()}},
			"id":                str("`<namespace>/<name>`."),
			"managed_by_berth":  schema.BoolAttribute{Computed: true, MarkdownDescription: "Whether the job carries berth's `berth.kind` meta."},
			"status":            str("Status from the current allocations: " + shared.BacktickList(instanceStatuses()) + "."),
			"job_version":       schema.Int64Attribute{Computed: true, MarkdownDescription: "Current job version."},
			"deployment_id":     str("Latest deployment; empty when none."),
			"deployment_status": str("Status of the latest deployment."),
			"allocations": schema.ListNestedAttribute{
				Computed:            true,
				MarkdownDescription: "Allocations that may still run, by name: `pending`, `running`, and `unknown` (on a disconnected client, whose tasks may still be running).",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"id":             str("Allocation ID."),
					"name":           str("Allocation name, e.g. `web.app[0]`."),
					"node_id":        str("Node ID."),
					"node_name":      str("Node name."),
					"client_status":  str("Client status."),
					"desired_status": str("Desired status."),
					"job_version":    schema.Int64Attribute{Computed: true, MarkdownDescription: "Job version it runs."},
					"healthy":        schema.BoolAttribute{Computed: true, MarkdownDescription: "Deployment health; null until decided."},
					"cpu_percent":    schema.Float64Attribute{Computed: true, MarkdownDescription: "CPU use sampled once, percent of one core; null when not running or unavailable."},
					"rss_mib":        schema.Float64Attribute{Computed: true, MarkdownDescription: "Resident memory sampled once, MiB; null when not running or unavailable."},
					"tasks": schema.ListNestedAttribute{
						Computed: true, MarkdownDescription: "Tasks by name.",
						NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
							"name":       str("Task name."),
							"state":      str("`pending`, `running` or `dead`."),
							"failed":     schema.BoolAttribute{Computed: true, MarkdownDescription: "Whether the task failed."},
							"restarts":   schema.Int64Attribute{Computed: true, MarkdownDescription: "Restart count."},
							"last_event": str("Last task event, `Type: message`."),
						}},
					},
				}},
			},
		},
	}
}

func (d *instanceDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var name, ns types.String
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("name"), &name)...)
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("namespace"), &ns)...)
	if resp.Diagnostics.HasError() {
		return
	}
	namespace := ns.ValueString()
	if namespace == "" {
		namespace = d.Data.Nomad.Namespace()
	}
	nomad := d.Data.Nomad
	job, err := nomad.GetJob(ctx, namespace, name.ValueString())
	if err != nil {
		shared.AddNomadError(&resp.Diagnostics, "Could not read the job", err)
		return
	}
	if job == nil {
		resp.Diagnostics.AddAttributeError(path.Root("name"), "Instance not found",
			fmt.Sprintf("Nomad has no job %q in namespace %q.", name.ValueString(), namespace))
		return
	}
	allocs, err := nomad.JobAllocations(ctx, namespace, job.ID())
	if err != nil {
		shared.AddNomadError(&resp.Diagnostics, "Could not read the job's allocations", err)
		return
	}
	dep, err := nomad.LatestDeployment(ctx, namespace, job.ID())
	if err != nil {
		shared.AddNomadError(&resp.Diagnostics, "Could not read the job's deployment", err)
		return
	}
	obs := job.ObserveInstance(allocs)
	out := instanceStatusModel{
		ID: types.StringValue(instanceID(namespace, obs.Name)), Name: types.StringValue(obs.Name), Namespace: types.StringValue(namespace),
		ManagedByBerth:   types.BoolValue(job.IsBerthInstance()),
		Status:           types.StringValue(string(obs.Status)),
		JobVersion:       types.Int64Value(int64(obs.Version)),
		DeploymentID:     types.StringValue(""),
		DeploymentStatus: types.StringValue(""),
		Allocations:      []allocationStatusModel{},
	}
	if dep != nil {
		out.DeploymentID, out.DeploymentStatus = types.StringValue(dep.ID), types.StringValue(dep.Status)
	}
	for _, a := range obs.Allocations {
		am := allocationStatusModel{
			ID: types.StringValue(a.ID), Name: types.StringValue(a.Name), NodeID: types.StringValue(a.NodeID),
			NodeName: types.StringValue(a.NodeName), ClientStatus: types.StringValue(a.ClientStatus),
			DesiredStatus: types.StringValue(a.Desired), JobVersion: types.Int64Value(int64(a.JobVersion)),
			Healthy: types.BoolPointerValue(a.Healthy), CPUPercent: types.Float64Null(), RSSMiB: types.Float64Null(),
			Tasks: taskStatuses(a.Tasks),
		}
		if a.Running() {
			if u, err := nomad.AllocationUsage(ctx, namespace, a.ID); err == nil {
				am.CPUPercent, am.RSSMiB = types.Float64Value(u.CPUPercent), types.Float64Value(u.RSSMiB)
			} else {
				resp.Diagnostics.AddWarning("No usage sample", fmt.Sprintf("Allocation %s: %v. cpu_percent and rss_mib are null.", a.ID, err))
			}
		}
		out.Allocations = append(out.Allocations, am)
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &out)...)
}

func taskStatuses(tasks []instance.TaskSummary) []taskStatusModel {
	out := make([]taskStatusModel, 0, len(tasks))
	for _, ts := range tasks {
		out = append(out, taskStatusModel{
			Name: types.StringValue(ts.Name), State: types.StringValue(ts.State), Failed: types.BoolValue(ts.Failed),
			Restarts: types.Int64Value(int64(ts.Restarts)), LastEvent: types.StringValue(ts.LastEvent),
		})
	}
	return out
}
