package cluster

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"

	"github.com/berthhq/terraform-provider-berth/internal/nomadclient"
	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
)

var _ resource.ResourceWithMoveState = &schedulerSettingsResource{}

// nomadSchedulerConfigState is the state of the other Nomad provider's
// nomad_scheduler_config (hashicorp/nomad).
type nomadSchedulerConfigState struct {
	Algorithm              string          `json:"scheduler_algorithm"`
	MemoryOversubscription bool            `json:"memory_oversubscription_enabled"`
	Preemption             map[string]bool `json:"preemption_config"`
}

// MoveState takes a nomad_scheduler_config over without writing to Nomad
// (`moved { from = nomad_scheduler_config.x to = berth_scheduler_settings.x
// }`). That resource writes reject_job_registration and pause_eval_broker
// as false, so they move as false; the refresh that follows reads every
// field from Nomad, and records the configuration as berth found it then,
// which is what destroy puts back.
func (r *schedulerSettingsResource) MoveState(context.Context) []resource.StateMover {
	return []resource.StateMover{shared.MoveFrom("nomad_scheduler_config", func(ctx context.Context, src nomadSchedulerConfigState, _ *diag.Diagnostics) schedulerSettingsModel {
		s := nomadclient.SchedulerSettings{
			Algorithm:              src.Algorithm,
			MemoryOversubscription: src.MemoryOversubscription,
			Preemption: nomadclient.Preemption{
				System: src.Preemption["system_scheduler_enabled"], SysBatch: src.Preemption["sysbatch_scheduler_enabled"],
				Batch: src.Preemption["batch_scheduler_enabled"], Service: src.Preemption["service_scheduler_enabled"],
			},
		}
		if s.Algorithm == "" {
			s.Algorithm = nomadclient.SchedulerAlgorithmBinpack
		}
		region := "" // the refresh finds it when it cannot be found here
		if r.Data != nil {
			region, _ = r.Data.Nomad.Region(ctx)
		}
		var m schedulerSettingsModel
		m.record(region, s)
		return m
	})}
}
