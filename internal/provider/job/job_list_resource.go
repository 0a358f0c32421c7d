package job

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/list"
	listschema "github.com/hashicorp/terraform-plugin-framework/list/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/berthhq/terraform-provider-berth/internal/nomadclient"
	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
)

var _ list.ListResourceWithConfigure = &jobListResource{}

// NewJobListResource builds the berth_job list resource: with the
// berth_instance one, `terraform query` adopts a whole fleet, every job
// berth_instance can represent as a typed instance and every other one
// from its jobspec.
func NewJobListResource() list.ListResource {
	return &jobListResource{newJobResource()}
}

// It embeds the resource: its name, provider data, identity and model.
type jobListResource struct{ *jobResource }

// jobListModel is the list block's configuration.
type jobListModel struct {
	Namespace        types.String `tfsdk:"namespace"`
	NamePrefix       types.String `tfsdk:"name_prefix"`
	IncludeInstances types.Bool   `tfsdk:"include_instances"`
}

func (r *jobListResource) ListResourceConfigSchema(_ context.Context, _ list.ListResourceSchemaRequest, resp *list.ListResourceSchemaResponse) {
	resp.Schema = listschema.Schema{
		MarkdownDescription: "Nomad jobs for `berth_job`, whoever created them, for `terraform query` (Terraform 1.14 " +
			"and later): by default the jobs `berth_instance` cannot represent (several groups, periodic, parameterized, " +
			"sysbatch, …), so that a `berth_instance` list and this one adopt a fleet once. The generated configuration " +
			"holds each job as its JSON jobspec and plans as an import with no change. berth's own lease and hold jobs " +
			"are left out.",
		Attributes: map[string]listschema.Attribute{
			"namespace": listschema.StringAttribute{Optional: true,
				MarkdownDescription: "Namespace to list; `*` lists every namespace the token can read. Default: the provider's `namespace`."},
			"name_prefix": listschema.StringAttribute{Optional: true, MarkdownDescription: "Only jobs whose ID starts with this."},
			"include_instances": listschema.BoolAttribute{Optional: true,
				MarkdownDescription: "List the jobs `berth_instance` can represent too. Default `false`."},
		},
	}
}

func (r *jobListResource) List(ctx context.Context, req list.ListRequest, stream *list.ListResultsStream) {
	ctx, cfg, ok := shared.OpenList[jobListModel](ctx, r.Data, req, stream)
	if !ok {
		return
	}
	filter := nomadclient.JobFilter{Namespace: cfg.Namespace.ValueString(), Prefix: cfg.NamePrefix.ValueString()}
	shared.StreamJobs(ctx, r.Data, filter, req, stream, func(j nomadclient.JobSummary, job *nomadclient.Job) (list.ListResult, bool) {
		return r.listed(ctx, req, j, job, cfg.IncludeInstances.ValueBool())
	})
}

// listed makes one job a list result; ok is false for one berth_instance
// lists instead.
func (r *jobListResource) listed(ctx context.Context, req list.ListRequest, j nomadclient.JobSummary, job *nomadclient.Job, instances bool) (list.ListResult, bool) {
	if _, unsupported := job.InstanceSpec(); len(unsupported) == 0 && !instances {
		return list.ListResult{}, false
	}
	result := req.NewListResult(ctx)
	result.DisplayName = j.Namespace + "/" + j.ID
	Identity.Record(ctx, result.Identity, j.Namespace, j.ID, &result.Diagnostics)
	if !req.IncludeResource {
		return result, true
	}
	m, diags := shared.NullResourceModel[jobModel](ctx, jobSchema(ctx))
	m.Name, m.Namespace, m.ID = types.StringValue(j.ID), types.StringValue(j.Namespace), types.StringValue(j.Namespace+"/"+j.ID)
	r.recordImported(ctx, &m, job, &diags)
	if !diags.HasError() {
		diags.Append(result.Resource.Set(ctx, &m)...)
	}
	result.Diagnostics.Append(diags...)
	return result, true
}
