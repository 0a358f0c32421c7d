package cluster

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
)

// NewSchedulerSettingsDataSource builds the berth_scheduler_settings data source.
func NewSchedulerSettingsDataSource() datasource.DataSource {
	return shared.NewDataSource("scheduler_settings", schedulerSettingsDataSourceSchema, readSchedulerSettings)
}

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

func readSchedulerSettings(ctx context.Context, data *shared.ProviderData, m *schedulerSettingsDataModel, diags *diag.Diagnostics) {
	region, err := data.Nomad.Region(ctx)
	if err != nil {
		shared.AddNomadError(diags, "Could not find the region", err)
		return
	}
	s, index, err := data.Nomad.GetSchedulerSettings(ctx)
	if err != nil {
		shared.AddNomadError(diags, "Could not read the scheduler configuration", err)
		return
	}
	var r schedulerSettingsModel
	r.record(region, s)
	*m = schedulerSettingsDataModel{ID: r.ID, Region: r.Region, Algorithm: r.Algorithm, Preemption: r.Preemption,
		MemoryOversubscription: r.MemoryOversubscription, RejectJobRegistration: r.RejectJobRegistration,
		PauseEvalBroker: r.PauseEvalBroker, ModifyIndex: types.Int64Value(int64(index))}
}
