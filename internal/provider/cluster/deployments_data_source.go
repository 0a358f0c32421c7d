package cluster

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
)

// NewDeploymentsDataSource builds the berth_deployments data source.
func NewDeploymentsDataSource() datasource.DataSource {
	return shared.NewDataSource("deployments", deploymentsDataSourceSchema, readDeployments)
}

type deploymentsModel struct {
	Namespace   types.String      `tfsdk:"namespace"`
	Job         types.String      `tfsdk:"job"`
	Deployments []deploymentModel `tfsdk:"deployments"`
}

type deploymentModel struct {
	ID                types.String                    `tfsdk:"id"`
	Namespace         types.String                    `tfsdk:"namespace"`
	Job               types.String                    `tfsdk:"job"`
	JobVersion        types.Int64                     `tfsdk:"job_version"`
	Status            types.String                    `tfsdk:"status"`
	StatusDescription types.String                    `tfsdk:"status_description"`
	CreateTime        types.Int64                     `tfsdk:"create_time"`
	ModifyTime        types.Int64                     `tfsdk:"modify_time"`
	Groups            map[string]deploymentGroupModel `tfsdk:"groups"`
}

type deploymentGroupModel struct {
	AutoRevert      types.Bool  `tfsdk:"auto_revert"`
	Promoted        types.Bool  `tfsdk:"promoted"`
	DesiredTotal    types.Int64 `tfsdk:"desired_total"`
	DesiredCanaries types.Int64 `tfsdk:"desired_canaries"`
	Placed          types.Int64 `tfsdk:"placed"`
	Healthy         types.Int64 `tfsdk:"healthy"`
	Unhealthy       types.Int64 `tfsdk:"unhealthy"`
}

func deploymentsDataSourceSchema() schema.Schema {
	return schema.Schema{
		MarkdownDescription: "Deployments of a namespace (or all of them) or of one job, newest first, with each task " +
			"group's progress: what `nomad deployment list` and `status` show. Needs `read-job` when ACLs are on.",
		Attributes: map[string]schema.Attribute{
			"namespace": namespaceInput(),
			"job":       optionalString("Only the deployments of this job (its ID); none when the job does not exist."),
			"deployments": shared.ComputedObjects("The deployments, newest first.", map[string]schema.Attribute{
				"id":                 shared.ComputedString("Deployment ID."),
				"namespace":          shared.ComputedString("Namespace of its job."),
				"job":                shared.ComputedString("Job ID."),
				"job_version":        shared.ComputedInt("Version of the job it rolls out."),
				"status":             shared.ComputedString("Nomad's status of the deployment: `running`, `paused`, `successful`, `failed`, `pending`, … as `nomad deployment status` shows it."),
				"status_description": shared.ComputedString("Nomad's explanation of the status."),
				"create_time":        shared.ComputedInt("When it was created, in Unix nanoseconds."),
				"modify_time":        shared.ComputedInt("When it last changed, in Unix nanoseconds."),
				"groups": schema.MapNestedAttribute{Computed: true, MarkdownDescription: "Progress of each task group, by name.",
					NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
						"auto_revert":      shared.ComputedBool("Whether a failed deployment reverts the group to the last stable version."),
						"promoted":         shared.ComputedBool("Whether its canaries were promoted."),
						"desired_total":    shared.ComputedInt("Allocations the group should end with."),
						"desired_canaries": shared.ComputedInt("Canaries the group places."),
						"placed":           shared.ComputedInt("Allocations placed."),
						"healthy":          shared.ComputedInt("Placed allocations that became healthy."),
						"unhealthy":        shared.ComputedInt("Placed allocations that became unhealthy."),
					}},
				},
			}),
		},
	}
}

func readDeployments(ctx context.Context, data *shared.ProviderData, m *deploymentsModel, diags *diag.Diagnostics) {
	deps, err := data.Nomad.ListDeployments(ctx, m.Namespace.ValueString(), m.Job.ValueString())
	if err != nil {
		shared.AddNomadError(diags, "Could not list deployments", err)
		return
	}
	m.Deployments = make([]deploymentModel, 0, len(deps))
	for _, dep := range deps {
		dm := deploymentModel{ID: types.StringValue(dep.ID), Namespace: types.StringValue(dep.Namespace), Job: types.StringValue(dep.JobID),
			JobVersion: types.Int64Value(int64(dep.JobVersion)), Status: types.StringValue(dep.Status),
			StatusDescription: types.StringValue(dep.StatusDescription), CreateTime: types.Int64Value(dep.CreateTime),
			ModifyTime: types.Int64Value(dep.ModifyTime), Groups: make(map[string]deploymentGroupModel, len(dep.Groups))}
		for name, g := range dep.Groups {
			dm.Groups[name] = deploymentGroupModel{AutoRevert: types.BoolValue(g.AutoRevert), Promoted: types.BoolValue(g.Promoted),
				DesiredTotal: types.Int64Value(int64(g.DesiredTotal)), DesiredCanaries: types.Int64Value(int64(g.DesiredCanaries)),
				Placed: types.Int64Value(int64(g.PlacedAllocs)), Healthy: types.Int64Value(int64(g.HealthyAllocs)),
				Unhealthy: types.Int64Value(int64(g.UnhealthyAllocs))}
		}
		m.Deployments = append(m.Deployments, dm)
	}
}
