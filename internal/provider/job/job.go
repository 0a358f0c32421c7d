// Package job is the Terraform layer's berth_job: any Nomad job, from a
// jobspec, with its list resource, the dispatch action and the move from
// nomad_job. The domain package internal/jobspec parses and compares
// jobspecs; this package converts models and reports diagnostics.
//
// Files: job_resource.go (CRUD) with job_resource_<topic>.go,
// job_schema.go, job_model.go, job_list_resource.go,
// job_dispatch_action.go; job.go lists what the family offers.
package job

import (
	"github.com/hashicorp/terraform-plugin-framework/action"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/list"
	"github.com/hashicorp/terraform-plugin-framework/resource"
)

// jobBudgetFix is what a job can change when it does not fit its node
// reservation (shared.CheckReservationBudget).
const jobBudgetFix = "Lower the jobspec's counts or its tasks' cpu, memory or ephemeral disk, or grow the node reservation."

// Resources are the family's managed resources, as the provider lists them.
func Resources() []func() resource.Resource {
	return []func() resource.Resource{NewJobResource}
}

// ListResources are the family's list resources (terraform query).
func ListResources() []func() list.ListResource {
	return []func() list.ListResource{NewJobListResource}
}

// Actions are the family's actions.
func Actions() []func() action.Action {
	return []func() action.Action{NewJobDispatchAction}
}

// DataSources are the family's data sources: one job as Nomad holds it,
// and a jobspec as the cluster's parser reads it.
func DataSources() []func() datasource.DataSource {
	return []func() datasource.DataSource{NewJobDataSource, NewJobspecDataSource}
}
