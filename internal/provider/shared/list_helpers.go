package shared

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/list"
	resourceschema "github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/berthhq/terraform-provider-berth/internal/instance"
	"github.com/berthhq/terraform-provider-berth/internal/nomadclient"
)

// NullResourceModel is a model of the resource schema s with every attribute null,
// each of its schema type: what an import starts from.
func NullResourceModel[T any](ctx context.Context, s resourceschema.Schema) (T, diag.Diagnostics) {
	var m T
	var diags diag.Diagnostics
	typ, ok := s.Type().TerraformType(ctx).(tftypes.Object)
	if !ok {
		diags.AddError("Provider bug", "a resource schema is not an object type")
		return m, diags
	}
	attrs := make(map[string]tftypes.Value, len(typ.AttributeTypes))
	for name, t := range typ.AttributeTypes {
		attrs[name] = tftypes.NewValue(t, nil)
	}
	st := tfsdk.State{Schema: s, Raw: tftypes.NewValue(typ, attrs)}
	diags.Append(st.Get(ctx, &m)...)
	return m, diags
}

// OpenList starts a List call the same way for every list resource: no
// results before Configure ran, and the list block's configuration read
// into C. ok is false when the call is over.
func OpenList[C any](ctx context.Context, data *ProviderData, req list.ListRequest, stream *list.ListResultsStream) (_ context.Context, cfg C, ok bool) {
	if data == nil {
		stream.Results = list.NoListResults
		return ctx, cfg, false
	}
	if diags := req.Config.Get(ctx, &cfg); diags.HasError() {
		stream.Results = list.ListResultsStreamDiagnostics(diags)
		return ctx, cfg, false
	}
	return ctx, cfg, true
}

// ListFailed ends a List call whose listing Nomad refused.
func ListFailed(stream *list.ListResultsStream, summary string, err error) {
	var diags diag.Diagnostics
	AddNomadError(&diags, summary, err)
	stream.Results = list.ListResultsStreamDiagnostics(diags)
}

// ListStream pushes what find returns, up to limit results that name an
// object (0: no limit); results that only carry diagnostics (a skipped
// object) do not count. find returns ok = false to skip an item.
func ListStream[T any](items []T, limit int64, find func(T) (list.ListResult, bool)) func(func(list.ListResult) bool) {
	return func(push func(list.ListResult) bool) {
		var listed int64
		for _, it := range items {
			if limit > 0 && listed >= limit {
				return
			}
			result, ok := find(it)
			if !ok {
				continue
			}
			if !push(result) {
				return
			}
			if result.Identity != nil {
				listed++
			}
		}
	}
}

// StreamJobs lists the jobs filter selects (in the provider's namespace
// when it names none), reads each and streams what listed makes of it,
// leaving out berth's own lease and hold jobs and the jobs gone since the
// listing: the body of the berth_instance and berth_job list resources. A
// job that cannot be read is an error result naming it.
func StreamJobs(ctx context.Context, data *ProviderData, filter nomadclient.JobFilter, req list.ListRequest,
	stream *list.ListResultsStream, listed func(nomadclient.JobSummary, *nomadclient.Job) (list.ListResult, bool)) {
	if filter.Namespace == "" {
		filter.Namespace = data.Nomad.Namespace()
	}
	jobs, err := data.Nomad.ListJobs(ctx, filter)
	if err != nil {
		ListFailed(stream, "Could not list jobs", err)
		return
	}
	stream.Results = ListStream(jobs, req.Limit, func(j nomadclient.JobSummary) (list.ListResult, bool) {
		if j.Kind != "" && j.Kind != instance.KindInstance {
			return list.ListResult{}, false // a lease or a node reservation's hold: berth manages those
		}
		job, err := data.Nomad.GetJob(ctx, j.Namespace, j.ID)
		if err != nil {
			result := list.ListResult{}
			AddNomadError(&result.Diagnostics, "Could not read job "+j.Namespace+"/"+j.ID, err)
			return result, true
		}
		if job == nil {
			return list.ListResult{}, false
		}
		return listed(j, job)
	})
}
