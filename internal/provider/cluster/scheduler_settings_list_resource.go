package cluster

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/list"
	listschema "github.com/hashicorp/terraform-plugin-framework/list/schema"

	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
)

var _ list.ListResourceWithConfigure = &schedulerSettingsListResource{}

// NewSchedulerSettingsListResource builds the berth_scheduler_settings
// list resource for `terraform query` (Terraform 1.14+): the one
// configuration of the provider's region.
func NewSchedulerSettingsListResource() list.ListResource {
	return &schedulerSettingsListResource{newSchedulerSettingsResource()}
}

// It embeds the resource: its name, provider data, identity and model.
type schedulerSettingsListResource struct{ *schedulerSettingsResource }

type schedulerSettingsListModel struct{}

func (r *schedulerSettingsListResource) ListResourceConfigSchema(_ context.Context, _ list.ListResourceSchemaRequest, resp *list.ListResourceSchemaResponse) {
	resp.Schema = listschema.Schema{
		MarkdownDescription: "The scheduler configuration of the provider's region, for `terraform query` (Terraform " +
			"1.14 and later): always one result, named by the region.",
	}
}

func (r *schedulerSettingsListResource) List(ctx context.Context, req list.ListRequest, stream *list.ListResultsStream) {
	ctx, _, ok := shared.OpenList[schedulerSettingsListModel](ctx, r.Data, req, stream)
	if !ok {
		return
	}
	region, err := r.Data.Nomad.Region(ctx)
	if err != nil {
		shared.ListFailed(stream, "Could not find the region", err)
		return
	}
	s, _, err := r.Data.Nomad.GetSchedulerSettings(ctx)
	if err != nil {
		shared.ListFailed(stream, "Could not read the scheduler configuration", err)
		return
	}
	stream.Results = shared.ListStream([]string{region}, req.Limit, func(region string) (list.ListResult, bool) {
		result := req.NewListResult(ctx)
		result.DisplayName = region
		schedulerSettingsIdentity.Record(ctx, result.Identity, region, &result.Diagnostics)
		if !req.IncludeResource {
			return result, true
		}
		m, d := shared.NullResourceModel[schedulerSettingsModel](ctx, schedulerSettingsSchema())
		result.Diagnostics.Append(d...)
		m.record(region, s)
		if !result.Diagnostics.HasError() {
			result.Diagnostics.Append(result.Resource.Set(ctx, &m)...)
		}
		return result, true
	})
}
