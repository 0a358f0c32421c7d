package lease

import (
	"context"
	"sync"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-timetypes/timetypes"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"

	"github.com/berthhq/terraform-provider-berth/internal/lease"
	"github.com/berthhq/terraform-provider-berth/internal/nomadclient"
	"github.com/berthhq/terraform-provider-berth/internal/provider/shared"
)

type leaseModel struct {
	ID              types.String         `tfsdk:"id"`
	Name            types.String         `tfsdk:"name"`
	Namespace       types.String         `tfsdk:"namespace"`
	Duration        timetypes.GoDuration `tfsdk:"duration"`
	NodeID          types.String         `tfsdk:"node_id"`
	NodeReservation types.String         `tfsdk:"node_reservation"`
	Workload        types.Object         `tfsdk:"workload"`
	Reference       types.String         `tfsdk:"reference"`
	Renew           types.Bool           `tfsdk:"renew"`
	WaitForRunning  types.Bool           `tfsdk:"wait_for_running"`
	User            types.String         `tfsdk:"user"`
	CreatedAt       timetypes.RFC3339    `tfsdk:"created_at"`
	ExpiresAt       timetypes.RFC3339    `tfsdk:"expires_at"`
	Expired         types.Bool           `tfsdk:"expired"`
	Signature       types.String         `tfsdk:"signature"`
	Verified        types.Bool           `tfsdk:"verified"`
	Result          types.Object         `tfsdk:"result"`
	JobModifyIndex  types.Int64          `tfsdk:"job_modify_index"`
	Timeouts        timeouts.Value       `tfsdk:"timeouts"`
}

type workloadModel struct {
	Driver  types.String `tfsdk:"driver"`
	Image   types.String `tfsdk:"image"`
	Command types.String `tfsdk:"command"`
	Args    types.List   `tfsdk:"args"`
	Env     types.Map    `tfsdk:"env"`
	CPU     types.Int64  `tfsdk:"cpu"`
	Memory  types.Int64  `tfsdk:"memory"`
	Disk    types.Int64  `tfsdk:"disk"`
	Ports   types.List   `tfsdk:"ports"`
}

type leaseResultModel struct {
	State        types.String `tfsdk:"state"`
	Error        types.String `tfsdk:"error"`
	NodeID       types.String `tfsdk:"node_id"`
	AllocationID types.String `tfsdk:"allocation_id"`
	Address      types.String `tfsdk:"address"`
	Data         types.Map    `tfsdk:"data"`
	Signature    types.String `tfsdk:"signature"`
}

// Lease result states; docs and code use this list.
const (
	resultPending = "pending"
	resultOK      = "ok"
	resultError   = "error"
	resultExpired = "expired"
	// resultDeleted: the workload was stopped or purged before the lease
	// expired.
	resultDeleted = "deleted"
	// resultOverrun: the lease ended, but Nomad still runs it (its timer
	// paused, or its client out of contact); verified is false.
	resultOverrun = "overrun"
)

var resultStates = []string{resultPending, resultOK, resultError, resultExpired, resultDeleted, resultOverrun}

// leaseObjectTypes are the attribute types of the lease schema's nested
// objects, read from the schema so they cannot drift from it.
var leaseObjectTypes = sync.OnceValue(func() map[string]map[string]attr.Type {
	out := map[string]map[string]attr.Type{}
	for name, a := range leaseSchema(context.Background()).Attributes {
		if o, ok := a.GetType().(basetypes.ObjectType); ok {
			out[name] = o.AttrTypes
		}
	}
	return out
})

func workloadAttrTypes() map[string]attr.Type { return leaseObjectTypes()["workload"] }
func resultAttrTypes() map[string]attr.Type   { return leaseObjectTypes()["result"] }

func durationsEqual(v timetypes.GoDuration, d time.Duration) bool {
	got, diags := v.ValueGoDuration()
	return !diags.HasError() && got == d
}

// timeValue is how created_at and expires_at are kept: RFC 3339, UTC,
// whole seconds.
func timeValue(t time.Time) timetypes.RFC3339 {
	return timetypes.NewRFC3339TimeValue(t.UTC().Truncate(time.Second))
}

// timeOf reads a recorded time; ok is false when none is recorded.
func timeOf(v timetypes.RFC3339) (time.Time, bool) {
	if v.IsNull() || v.IsUnknown() {
		return time.Time{}, false
	}
	t, diags := v.ValueRFC3339Time()
	return t, !diags.HasError()
}

func workloadObject(ctx context.Context, w lease.Workload, diags *diag.Diagnostics) types.Object {
	obj, d := types.ObjectValueFrom(ctx, workloadAttrTypes(), workloadModel{
		Driver: types.StringValue(w.Driver), Image: shared.StringOrNull(w.Image), Command: shared.StringOrNull(w.Command),
		Args: shared.ListOrNull(ctx, w.Args, diags), Env: shared.MapOrNull(ctx, w.Env, diags),
		CPU: types.Int64Value(int64(w.CPU)), Memory: types.Int64Value(int64(w.Memory)), Disk: types.Int64Value(int64(w.Disk)),
		Ports: shared.ListOrNull(ctx, w.Ports, diags),
	})
	diags.Append(d...)
	return obj
}

// leaseResult derives result from what the newest allocation says about
// the workload task.
func leaseResult(ctx context.Context, o nomadclient.TaskOutcome, expired bool, diags *diag.Diagnostics) types.Object {
	return leaseResultIn(ctx, o, expired, false, diags)
}

// leaseResultIn is leaseResult for a lease whose workload may have been
// deleted (stopped or purged) before it expired.
func leaseResultIn(ctx context.Context, o nomadclient.TaskOutcome, expired, deleted bool, diags *diag.Diagnostics) types.Object {
	state := resultPending
	switch {
	case deleted:
		state = resultDeleted
	case o.Overrun:
		state = resultOverrun
	case o.Failed:
		state = resultError
	case o.Running:
		state = resultOK
	}
	if expired && state != resultError && state != resultDeleted && state != resultOverrun {
		state = resultExpired
	}
	address, data := "", map[string]string{}
	if state == resultOK {
		address = o.Address
		for label, at := range o.Ports {
			data[label] = at
		}
	}
	dataValue, d := types.MapValueFrom(ctx, types.StringType, data)
	diags.Append(d...)
	obj, d := types.ObjectValueFrom(ctx, resultAttrTypes(), leaseResultModel{
		State: types.StringValue(state), Error: types.StringValue(o.Error), NodeID: types.StringValue(o.NodeID),
		AllocationID: types.StringValue(o.AllocationID), Address: types.StringValue(address), Data: dataValue,
		Signature: types.StringValue(o.Signature),
	})
	diags.Append(d...)
	return obj
}

// priorOutcome is the node and allocation a recorded result names, for a
// lease whose job is gone and can no longer say.
func priorOutcome(ctx context.Context, result types.Object) nomadclient.TaskOutcome {
	var r leaseResultModel
	if result.IsNull() || result.IsUnknown() || result.As(ctx, &r, basetypes.ObjectAsOptions{}).HasError() {
		return nomadclient.TaskOutcome{}
	}
	return nomadclient.TaskOutcome{NodeID: r.NodeID.ValueString(), AllocationID: r.AllocationID.ValueString(),
		Signature: r.Signature.ValueString()}
}

func unknownOf(attrName string) attr.Value {
	switch attrName {
	case "verified", "expired":
		return types.BoolUnknown()
	case "result":
		return types.ObjectUnknown(resultAttrTypes())
	case "job_modify_index":
		return types.Int64Unknown()
	case "created_at", "expires_at":
		return timetypes.NewRFC3339Unknown()
	}
	return types.StringUnknown()
}

// keepEmptyWorkloadCollections keeps "env = {}" and "args = []" from
// prior where Nomad reports nothing, so they are no change (the workload
// forces replacement, so a phantom diff would replace the lease).
func keepEmptyWorkloadCollections(ctx context.Context, prior, next types.Object, diags *diag.Diagnostics) types.Object {
	if prior.IsNull() || prior.IsUnknown() || next.IsNull() || next.IsUnknown() {
		return next
	}
	var p, n workloadModel
	diags.Append(prior.As(ctx, &p, basetypes.ObjectAsOptions{})...)
	diags.Append(next.As(ctx, &n, basetypes.ObjectAsOptions{})...)
	if diags.HasError() {
		return next
	}
	n.Env, n.Args, n.Ports = shared.KeepEmptyMap(p.Env, n.Env), shared.KeepEmptyList(p.Args, n.Args), shared.KeepEmptyList(p.Ports, n.Ports)
	obj, d := types.ObjectValueFrom(ctx, workloadAttrTypes(), n)
	diags.Append(d...)
	return obj
}
