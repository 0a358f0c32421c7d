package job

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/berthhq/terraform-provider-berth/internal/nomadclient"
	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
)

var _ datasource.DataSourceWithConfigure = &jobDataSource{}

// NewJobDataSource builds the berth_job data source.
func NewJobDataSource() datasource.DataSource {
	return &jobDataSource{shared.NewDataSourceBase("job")}
}

// jobDataSource reads any job, as hashicorp/nomad's nomad_job data source
// does: the attributes users of that one rely on, by its names, and the
// job as Nomad's JSON. Only a few fields are typed (each costs Terraform
// time on every plan); `json` holds the rest.
type jobDataSource struct{ shared.DataSourceBase }

type jobDataModel struct {
	JobID             types.String        `tfsdk:"job_id"`
	Namespace         types.String        `tfsdk:"namespace"`
	ID                types.String        `tfsdk:"id"`
	Name              types.String        `tfsdk:"name"`
	Type              types.String        `tfsdk:"type"`
	Version           types.Int64         `tfsdk:"version"`
	Region            types.String        `tfsdk:"region"`
	Datacenters       []string            `tfsdk:"datacenters"`
	NodePool          types.String        `tfsdk:"node_pool"`
	Status            types.String        `tfsdk:"status"`
	StatusDescription types.String        `tfsdk:"status_description"`
	Priority          types.Int64         `tfsdk:"priority"`
	ParentID          types.String        `tfsdk:"parent_id"`
	Stop              types.Bool          `tfsdk:"stop"`
	Stable            types.Bool          `tfsdk:"stable"`
	AllAtOnce         types.Bool          `tfsdk:"all_at_once"`
	SubmitTime        types.Int64         `tfsdk:"submit_time"`
	CreateIndex       types.Int64         `tfsdk:"create_index"`
	ModifyIndex       types.Int64         `tfsdk:"modify_index"`
	JobModifyIndex    types.Int64         `tfsdk:"job_modify_index"`
	Meta              map[string]string   `tfsdk:"meta"`
	TaskGroups        []jobDataGroupModel `tfsdk:"task_groups"`
	JSON              types.String        `tfsdk:"json"`
}

type jobDataGroupModel struct {
	Name  string             `tfsdk:"name"`
	Count int64              `tfsdk:"count"`
	Meta  map[string]string  `tfsdk:"meta"`
	Task  []jobDataTaskModel `tfsdk:"task"`
}

type jobDataTaskModel struct {
	Name   string            `tfsdk:"name"`
	Driver string            `tfsdk:"driver"`
	Meta   map[string]string `tfsdk:"meta"`
}

func (d *jobDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	str := func(doc string) schema.StringAttribute {
		return schema.StringAttribute{Computed: true, MarkdownDescription: doc}
	}
	num := func(doc string) schema.Int64Attribute {
		return schema.Int64Attribute{Computed: true, MarkdownDescription: doc}
	}
	flag := func(doc string) schema.BoolAttribute {
		return schema.BoolAttribute{Computed: true, MarkdownDescription: doc}
	}
	meta := func(of string) schema.MapAttribute {
		return schema.MapAttribute{Computed: true, ElementType: types.StringType, MarkdownDescription: "The " + of + "'s `meta`."}
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "One Nomad job as Nomad holds it, whoever registered it (`berth_job`, `nomad job run`, " +
			"another provider): the attributes of hashicorp/nomad's `nomad_job` data source, by the same names, and " +
			"the whole job as Nomad's JSON in `json` (read it with `jsondecode`), which keeps every field the cluster " +
			"knows, a newer Nomad's included. A job Nomad does not have is an error. Unlike `nomad_job`, `id` is " +
			"`<namespace>/<job_id>` (as `berth_job`'s), `task_groups` holds no deployment progress (the " +
			"`berth_deployments` data source has it), and `constraints`, `update_strategy` and `periodic_config` are " +
			"read from `json` (`jsondecode(…).Constraints`, `.Update`, `.Periodic`): typed, they would cost every plan.",
		Attributes: map[string]schema.Attribute{
			"job_id": schema.StringAttribute{Required: true, Validators: []validator.String{stringvalidator.LengthAtLeast(1)},
				MarkdownDescription: "The job's ID (a `job` block's label; a dispatched or periodic job's child has its " +
					"parent's ID and a suffix)."},
			"namespace": schema.StringAttribute{Optional: true, Computed: true, Validators: []validator.String{shared.NamespaceValidator()},
				MarkdownDescription: "The job's namespace; the provider's namespace when unset." + shared.NamespaceRuleDoc},
			"id":                 str("`<namespace>/<job_id>`, as `berth_job`'s `id` (`nomad_job`'s is the job ID: `job_id`)."),
			"name":               str("The job's name (its ID unless the jobspec sets `name`)."),
			"type":               str("`service`, `batch`, `system` or `sysbatch`."),
			"version":            num("The job's version: each registration that changes the job adds one."),
			"region":             str("The job's region."),
			"datacenters":        schema.ListAttribute{Computed: true, ElementType: types.StringType, MarkdownDescription: "The datacenters the job may run in."},
			"node_pool":          str("The node pool the job runs in."),
			"status":             str("`pending`, `running` or `dead`."),
			"status_description": str("Why the job has its status, when Nomad says."),
			"priority":           num("The job's priority."),
			"parent_id":          str("The parameterized or periodic job this one was started from; empty for others."),
			"stop":               flag("Whether the job was stopped (`nomad job stop` without purge)."),
			"stable":             flag("Whether the job's version is marked stable (a healthy deployment)."),
			"all_at_once":        flag("Whether the scheduler places all the job's allocations at once."),
			"submit_time":        num("When this version was registered, in Unix nanoseconds."),
			"create_index":       num("Nomad's index when the job was created."),
			"modify_index":       num("Nomad's index when the job last changed, its status included."),
			"job_modify_index":   num("Nomad's index when the job was last registered: check-and-set writes compare it."),
			"meta":               meta("job"),
			"task_groups": schema.ListNestedAttribute{Computed: true,
				MarkdownDescription: "The job's task groups, in the jobspec's order: a summary (`json` holds the rest).",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"name":  str("The group's name."),
					"count": num("How many allocations of the group the job asks for."),
					"meta":  meta("group"),
					"task": schema.ListNestedAttribute{Computed: true, MarkdownDescription: "The group's tasks.",
						NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
							"name":   str("The task's name."),
							"driver": str("The task's driver."),
							"meta":   meta("task"),
						}}},
				}}},
			"json": str("The job as Nomad's JSON (`GET /v1/job/:job_id`, what `nomad job inspect` prints inside " +
				"`{\"Job\": …}`): every field the cluster holds, whatever berth's own Nomad library knows. " +
				"`jsondecode(data.berth_job.x.json).TaskGroups[0].Update` reads what no typed attribute has."),
		},
	}
}

func (d *jobDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var m jobDataModel
	if resp.Diagnostics.Append(req.Config.Get(ctx, &m)...); resp.Diagnostics.HasError() {
		return
	}
	namespace := m.Namespace.ValueString()
	if namespace == "" {
		namespace = d.Data.Nomad.Namespace()
	}
	rec, err := d.Data.Nomad.ReadJobRecord(ctx, namespace, m.JobID.ValueString())
	if err != nil {
		shared.AddNomadError(&resp.Diagnostics, "Could not read the job", err)
		return
	}
	if rec == nil {
		resp.Diagnostics.AddAttributeError(path.Root("job_id"), "Job not found",
			fmt.Sprintf("Nomad has no job %q in namespace %q (or the provider's token may not read it). List the "+
				"namespace's jobs with `nomad job status -namespace=%s`.", m.JobID.ValueString(), namespace, namespace))
		return
	}
	m.fromRecord(rec)
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

// fromRecord sets the computed attributes from what Nomad holds.
func (m *jobDataModel) fromRecord(rec *nomadclient.JobRecord) {
	m.Namespace = types.StringValue(rec.Namespace)
	m.ID = types.StringValue(rec.Namespace + "/" + rec.ID)
	m.Name, m.Type, m.Region = types.StringValue(rec.Name), types.StringValue(rec.Type), types.StringValue(rec.Region)
	m.Version = types.Int64Value(int64(rec.Version))
	m.Datacenters = rec.Datacenters
	if m.Datacenters == nil {
		m.Datacenters = []string{}
	}
	m.NodePool, m.Status = types.StringValue(rec.NodePool), types.StringValue(rec.Status)
	m.StatusDescription, m.ParentID = types.StringValue(rec.StatusDescription), types.StringValue(rec.ParentID)
	m.Priority = types.Int64Value(rec.Priority)
	m.Stop, m.Stable, m.AllAtOnce = types.BoolValue(rec.Stop), types.BoolValue(rec.Stable), types.BoolValue(rec.AllAtOnce)
	m.SubmitTime = types.Int64Value(rec.SubmitTime)
	m.CreateIndex, m.ModifyIndex = types.Int64Value(int64(rec.CreateIndex)), types.Int64Value(int64(rec.ModifyIndex))
	m.JobModifyIndex = types.Int64Value(int64(rec.JobModifyIndex))
	m.Meta = rec.Meta
	m.TaskGroups = make([]jobDataGroupModel, 0, len(rec.TaskGroups))
	for _, g := range rec.TaskGroups {
		tasks := make([]jobDataTaskModel, 0, len(g.Tasks))
		for _, t := range g.Tasks {
			tasks = append(tasks, jobDataTaskModel{Name: t.Name, Driver: t.Driver, Meta: t.Meta})
		}
		m.TaskGroups = append(m.TaskGroups, jobDataGroupModel{Name: g.Name, Count: g.Count, Meta: g.Meta, Task: tasks})
	}
	m.JSON = types.StringValue(rec.JSON)
}
