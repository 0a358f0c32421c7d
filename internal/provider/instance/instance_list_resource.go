package instance

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/list"
	listschema "github.com/hashicorp/terraform-plugin-framework/list/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/berthhq/terraform-provider-berth/internal/nomadclient"
	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
)

var _ list.ListResourceWithConfigure = &instanceListResource{}

// NewInstanceListResource builds the berth_instance list resource, which
// `terraform query` (Terraform 1.14+) uses to find jobs to manage,
// including jobs berth did not create.
func NewInstanceListResource() list.ListResource {
	return &instanceListResource{newInstanceResource()}
}

// It embeds the resource: its name, provider data, identity and model.
type instanceListResource struct{ *instanceResource }

// instanceListModel is the list block's configuration.
type instanceListModel struct {
	Namespace  types.String `tfsdk:"namespace"`
	NamePrefix types.String `tfsdk:"name_prefix"`
	NodePool   types.String `tfsdk:"node_pool"`
	Meta       types.Map    `tfsdk:"meta"`
}

func (r *instanceListResource) ListResourceConfigSchema(_ context.Context, _ list.ListResourceSchemaRequest, resp *list.ListResourceSchemaResponse) {
	resp.Schema = listschema.Schema{
		MarkdownDescription: "Nomad jobs that `berth_instance` can manage, whoever created them, for `terraform query` " +
			"(Terraform 1.14 and later). Jobs it cannot represent (several task groups, periodic, parameterized, " +
			"templates, …) are skipped with a warning that names each one and why; berth's own lease and hold jobs are left out.",
		Attributes: map[string]listschema.Attribute{
			"namespace": listschema.StringAttribute{Optional: true,
				MarkdownDescription: "Namespace to list; `*` lists every namespace the token can read. Default: the provider's `namespace`."},
			"name_prefix": listschema.StringAttribute{Optional: true, MarkdownDescription: "Only jobs whose ID starts with this."},
			"node_pool":   listschema.StringAttribute{Optional: true, MarkdownDescription: "Only jobs in this node pool."},
			"meta": listschema.MapAttribute{ElementType: types.StringType, Optional: true,
				MarkdownDescription: "Only jobs whose meta holds every one of these pairs."},
		},
	}
}

func (r *instanceListResource) List(ctx context.Context, req list.ListRequest, stream *list.ListResultsStream) {
	ctx, cfg, ok := shared.OpenList[instanceListModel](ctx, r.Data, req, stream)
	if !ok {
		return
	}
	filter := nomadclient.JobFilter{
		Namespace: cfg.Namespace.ValueString(), Prefix: cfg.NamePrefix.ValueString(), NodePool: cfg.NodePool.ValueString(),
	}
	if diags := cfg.Meta.ElementsAs(ctx, &filter.Meta, false); diags.HasError() {
		stream.Results = list.ListResultsStreamDiagnostics(diags)
		return
	}
	shared.StreamJobs(ctx, r.Data, filter, req, stream, func(j nomadclient.JobSummary, job *nomadclient.Job) (list.ListResult, bool) {
		return r.listed(ctx, req, j, job)
	})
}

// listed makes one job a list result: the instance (identity, and the
// resource when asked for), or a warning saying why the job cannot be one.
func (r *instanceListResource) listed(ctx context.Context, req list.ListRequest, j nomadclient.JobSummary, job *nomadclient.Job) (list.ListResult, bool) {
	live, unsupported := job.InstanceSpec()
	if len(unsupported) > 0 {
		tflog.Debug(ctx, "Job cannot be a berth_instance", map[string]any{"job": j.ID, "namespace": j.Namespace})
		var diags diag.Diagnostics
		diags.AddWarning("Job skipped: berth_instance cannot represent it",
			fmt.Sprintf("Job %q in namespace %q uses what berth_instance cannot manage, so it is not listed:\n  - %s\n"+
				"The berth_job list resource finds it, to manage from its jobspec.",
				j.ID, j.Namespace, strings.Join(unsupported, "\n  - ")))
		return list.ListResult{Diagnostics: diags}, true
	}
	result := req.NewListResult(ctx)
	result.DisplayName = instanceID(j.Namespace, j.ID)
	Identity.Record(ctx, result.Identity, j.Namespace, j.ID, &result.Diagnostics)
	if !req.IncludeResource {
		return result, true
	}
	m, diags := shared.NullResourceModel[instanceModel](ctx, Schema(ctx))
	m.Name, m.Namespace = types.StringValue(j.ID), types.StringValue(j.Namespace)
	r.mergeLive(ctx, &m, live, true, &diags)
	setComputed(&m, job)
	if !diags.HasError() {
		diags.Append(result.Resource.Set(ctx, &m)...)
	}
	result.Diagnostics.Append(diags...)
	return result, true
}
