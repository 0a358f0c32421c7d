package cluster

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
)

var _ datasource.DataSourceWithConfigure = &schedulerSettingsDataSource{}

// NewSchedulerSettingsDataSource builds the berth_scheduler_settings data source.
func NewSchedulerSettingsDataSource() datasource.DataSource {
	return &schedulerSettingsDataSource{shared.NewDataSourceBase("scheduler_settings")}
}

type schedulerSettingsDataSource struct{ shared.DataSourceBase }

// schedulerSettingsDataModel is the resource's model and the index.
type schedulerSettingsDataModel struct {
	ID                     types.String     `tfsdk:"id"`
	Region                 types.String     `tfsdk:"region"`
	Algorithm              types.String     `tfsdk:"scheduler_algorithm"`
	Preemption             *preemptionModel `tfsdk:"preemption"`
	MemoryOversubscription types.Bool       `tfsdk:"memory_oversubscription"`
	RejectJobRegistration  types.Bool       `tfsdk:"reject_job_registration"`
	PauseEvalBroker        types.Bool       `tfsdk:"pause_eval_broker"`
	ModifyIndex            types.Int64      `tfsdk:"modify_index"`
}

func (d *schedulerSettingsDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schedulerSettingsDataSourceSchema()
}

func (d *schedulerSettingsDataSource) Read(ctx context.Context, _ datasource.ReadRequest, resp *datasource.ReadResponse) {
	region, err := d.Data.Nomad.Region(ctx)
	if err != nil {
		shared.AddNomadError(&resp.Diagnostics, "Could not find the region", err)
		return
	}
	s, index, err := d.Data.Nomad.GetSchedulerSettings(ctx)
	if err != nil {
		shared.AddNomadError(&resp.Diagnostics, "Could not read the scheduler configuration", err)
		return
	}
	var r schedulerSettingsModel
	r.record(region, s)
	m := schedulerSettingsDataModel{ID: r.ID, Region: r.Region, Algorithm: r.Algorithm, Preemption: r.Preemption,
		MemoryOversubscription: r.MemoryOversubscription, RejectJobRegistration: r.RejectJobRegistration,
		PauseEvalBroker: r.PauseEvalBroker, ModifyIndex: types.Int64Value(int64(index))}
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}
