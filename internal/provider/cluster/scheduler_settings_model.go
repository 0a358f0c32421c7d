package cluster

import (
	"context"
	"strconv"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/berthhq/terraform-provider-berth/internal/nomadclient"
	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
)

// schedulerSettingsModel is berth_scheduler_settings' state.
type schedulerSettingsModel struct {
	ID                     types.String     `tfsdk:"id"`
	Region                 types.String     `tfsdk:"region"`
	Algorithm              types.String     `tfsdk:"scheduler_algorithm"`
	Preemption             *preemptionModel `tfsdk:"preemption"`
	MemoryOversubscription types.Bool       `tfsdk:"memory_oversubscription"`
	RejectJobRegistration  types.Bool       `tfsdk:"reject_job_registration"`
	PauseEvalBroker        types.Bool       `tfsdk:"pause_eval_broker"`
	Found                  types.Object     `tfsdk:"found"`
}

type preemptionModel struct {
	System   types.Bool `tfsdk:"system"`
	SysBatch types.Bool `tfsdk:"sysbatch"`
	Batch    types.Bool `tfsdk:"batch"`
	Service  types.Bool `tfsdk:"service"`
}

// settings is what the model asks for. Every attribute has a default, so
// a plan's values are all known by apply.
func (m *schedulerSettingsModel) settings() nomadclient.SchedulerSettings {
	s := nomadclient.SchedulerSettings{
		Algorithm:              m.Algorithm.ValueString(),
		MemoryOversubscription: m.MemoryOversubscription.ValueBool(),
		RejectJobRegistration:  m.RejectJobRegistration.ValueBool(),
		PauseEvalBroker:        m.PauseEvalBroker.ValueBool(),
		Preemption:             defaultPreemption,
	}
	if p := m.Preemption; p != nil {
		s.Preemption = nomadclient.Preemption{System: p.System.ValueBool(), SysBatch: p.SysBatch.ValueBool(),
			Batch: p.Batch.ValueBool(), Service: p.Service.ValueBool()}
	}
	return s
}

// record fills m with what Nomad holds for region.
func (m *schedulerSettingsModel) record(region string, s nomadclient.SchedulerSettings) {
	m.ID, m.Region = types.StringValue(region), types.StringValue(region)
	m.Algorithm = types.StringValue(s.Algorithm)
	m.Preemption = newPreemptionModel(s.Preemption)
	m.MemoryOversubscription = types.BoolValue(s.MemoryOversubscription)
	m.RejectJobRegistration = types.BoolValue(s.RejectJobRegistration)
	m.PauseEvalBroker = types.BoolValue(s.PauseEvalBroker)
	if m.Found.Equal(types.Object{}) { // never set: null of the found attribute's type
		m.Found = types.ObjectNull(foundTypes)
	}
}

// foundValue is s as the found attribute.
func foundValue(s nomadclient.SchedulerSettings) types.Object {
	p := s.Preemption
	return types.ObjectValueMust(foundTypes, map[string]attr.Value{
		"scheduler_algorithm": types.StringValue(s.Algorithm),
		"preemption": types.ObjectValueMust(preemptionTypes, map[string]attr.Value{
			"system": types.BoolValue(p.System), "sysbatch": types.BoolValue(p.SysBatch),
			"batch": types.BoolValue(p.Batch), "service": types.BoolValue(p.Service)}),
		"memory_oversubscription": types.BoolValue(s.MemoryOversubscription),
		"reject_job_registration": types.BoolValue(s.RejectJobRegistration),
		"pause_eval_broker":       types.BoolValue(s.PauseEvalBroker),
	})
}

// foundSettings reads the found attribute; nil when it is null or unknown
// (a plan made without a configured provider, or a state from before it).
func foundSettings(o types.Object) *nomadclient.SchedulerSettings {
	if o.IsNull() || o.IsUnknown() {
		return nil
	}
	a := o.Attributes()
	str := func(v attr.Value) string { s, _ := v.(types.String); return s.ValueString() }
	flag := func(v attr.Value) bool { b, _ := v.(types.Bool); return b.ValueBool() }
	s := nomadclient.SchedulerSettings{Algorithm: str(a["scheduler_algorithm"]),
		MemoryOversubscription: flag(a["memory_oversubscription"]), RejectJobRegistration: flag(a["reject_job_registration"]),
		PauseEvalBroker: flag(a["pause_eval_broker"])}
	if p, ok := a["preemption"].(types.Object); ok && !p.IsNull() && !p.IsUnknown() {
		pa := p.Attributes()
		s.Preemption = nomadclient.Preemption{System: flag(pa["system"]), SysBatch: flag(pa["sysbatch"]),
			Batch: flag(pa["batch"]), Service: flag(pa["service"])}
	}
	return &s
}

func newPreemptionModel(p nomadclient.Preemption) *preemptionModel {
	return &preemptionModel{System: types.BoolValue(p.System), SysBatch: types.BoolValue(p.SysBatch),
		Batch: types.BoolValue(p.Batch), Service: types.BoolValue(p.Service)}
}

// Private state keys: how berth found the configuration when it took it
// over (destroy puts it back), and the index it last read it at (the
// check-and-set index of the next write).
const (
	schedulerFoundKey = "found"
	schedulerIndexKey = "modify_index"
)

func readSchedulerFound(ctx context.Context, p shared.PrivateData, diags *diag.Diagnostics) *nomadclient.SchedulerSettings {
	return shared.ReadPrivateJSON[nomadclient.SchedulerSettings](ctx, p, schedulerFoundKey, "how berth found the scheduler configuration",
		"Import the resource again to record the configuration as it is now.", diags)
}

func writeSchedulerFound(ctx context.Context, p shared.PrivateData, f nomadclient.SchedulerSettings, diags *diag.Diagnostics) {
	shared.WritePrivateJSON(ctx, p, schedulerFoundKey, "how berth found the scheduler configuration", f, diags)
}

// readSchedulerIndex is the index berth last read the configuration at;
// 0 when it has none.
func readSchedulerIndex(ctx context.Context, p shared.PrivateData, diags *diag.Diagnostics) uint64 {
	raw, d := p.GetKey(ctx, schedulerIndexKey)
	if diags.Append(d...); len(raw) == 0 {
		return 0
	}
	n, err := strconv.ParseUint(string(raw), 10, 64)
	if err != nil {
		return 0
	}
	return n
}

func writeSchedulerIndex(ctx context.Context, p shared.PrivateData, index uint64, diags *diag.Diagnostics) {
	var raw []byte // removes the key: the next write reads the index afresh
	if index > 0 {
		raw = []byte(strconv.FormatUint(index, 10)) // private state values are JSON: a number is
	}
	diags.Append(p.SetKey(ctx, schedulerIndexKey, raw)...)
}
